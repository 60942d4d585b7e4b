"""What a Singapore posting came from, for the ledger's statements (``ledger.sources``)."""

from __future__ import annotations

from django.urls import reverse
from django.utils import formats
from django.utils.translation import gettext as _

from ledger.sources import Source
from matches.singapore.models import Hand, TableSession


def describe_hands(club, ids: list[str]) -> dict[str, Source]:
    """``"hand:<id>"`` labels: the table, the hand's number and a link to it."""
    wanted = [int(i) for i in ids if i.isdigit() and len(i) <= 18]
    found = {}
    for hand in Hand.objects.filter(club=club, pk__in=wanted).select_related("session"):
        found[str(hand.pk)] = Source(
            _("%(table)s, hand %(n)s") % {"table": hand.session.name, "n": hand.number},
            reverse("singapore:hand", args=[club.slug, hand.session_id, hand.pk]),
        )
    return found


def describe_sessions(club, ids: list[str]) -> dict[str, Source]:
    """``"session:<id>"`` scopes (a table's postings): the table's name and day, and a link
    to the table. Two tables may share a name; their days tell them apart."""
    wanted = [int(i) for i in ids if i.isdigit() and len(i) <= 18]
    return {
        str(session.pk): Source(
            _("%(table)s, %(date)s")
            % {"table": session.name, "date": formats.date_format(session.date, "DATE_FORMAT")},
            reverse("singapore:table", args=[club.slug, session.pk]),
        )
        for session in TableSession.objects.filter(club=club, pk__in=wanted)
    }
