"""Sputo on the club page: a section (my next match, the running and coming tournaments)
and a tab (every tournament), for the protocol of ``clubs/club_page.py``
(``CLUB_PAGE_SECTIONS`` / ``CLUB_TABS`` in the settings)."""

from __future__ import annotations

from django.urls import reverse
from django.utils.translation import gettext as _

from clubs.club_page import Section, Tab
from matches.sputo import reads
from matches.sputo.models import TournamentStatus


def club_section(request, access) -> Section | None:
    club = access.club
    tournaments = list(
        club.tournaments.filter(
            status__in=[
                TournamentStatus.REGISTRATION,
                TournamentStatus.CHECK_IN,
                TournamentStatus.RUNNING,
            ]
        ).order_by("starts_at")[:5]
    )
    next_matches = list(reads.next_matches(request.user, club=club)[:3])
    if not tournaments and not next_matches:
        return Section(
            slug="tournaments",
            title=_("Sputo tournaments"),
            empty=_("No tournament running or open."),
            order=20,
        )
    return Section(
        slug="tournaments",
        title=_("Sputo tournaments"),
        template="matches/sputo/_club_section.html",
        context={
            "tournaments": tournaments,
            "next_matches": next_matches,
            "url": reverse("sputo:tournaments", args=[club.slug]),
        },
        order=20,
    )


def club_tab(request, access) -> Tab:
    return Tab(
        label=_("Tournaments"), url=reverse("sputo:tournaments", args=[access.club.slug]), order=30
    )
