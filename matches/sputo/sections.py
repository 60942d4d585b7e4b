"""Sputo on the club page: a section (my next match, the running and coming tournaments)
and a tab (every tournament), for the protocol of ``clubs/club_page.py``
(``CLUB_PAGE_SECTIONS`` / ``CLUB_TABS`` in the settings)."""

from __future__ import annotations

from django.urls import reverse
from django.utils.translation import gettext as _

from clubs.club_page import Section, Tab, kept_under, own_part
from matches.sputo import reads
from matches.sputo.models import TournamentStatus


@kept_under("sputo")
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
    if not tournaments:
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
            "url": reverse("sputo:tournaments", args=[club.slug]),
        },
        order=20,
    )


@own_part
def next_match(request, access) -> Section | None:
    """The user's next matches in the club's running tournaments (one query); nothing for a
    user with none."""
    next_matches = list(reads.next_matches(request.user, club=access.club)[:3])
    if not next_matches:
        return None
    return Section(
        slug="next-match",
        title=_("My next match"),
        template="matches/sputo/_next_match_section.html",
        context={"next_matches": next_matches},
        order=19,
    )


def club_tab(request, access) -> Tab:
    return Tab(
        label=_("Tournaments"), url=reverse("sputo:tournaments", args=[access.club.slug]), order=30
    )
