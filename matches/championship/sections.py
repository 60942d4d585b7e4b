"""The championship on the club page: its tab and the top of the current season's
standings (the protocol: ``clubs.club_page``)."""

from __future__ import annotations

from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from clubs.access import ClubAccess
from clubs.club_page import Section, Tab, kept_under
from clubs.models import Season
from matches.championship import standings

TOP = 5


def current_season(club) -> Season | None:
    """The season of today with a championship (one query), if any."""
    today = timezone.localdate()
    return (
        Season.objects.filter(
            club=club, start__lte=today, end__gte=today, championships__isnull=False
        )
        .distinct()
        .first()
    )


def shown_season(club) -> Season | None:
    """The season the championship tab opens: today's, else the latest with a
    championship, else today's, else the latest."""
    seasons = Season.objects.filter(club=club)
    return (
        current_season(club)
        or seasons.filter(championships__isnull=False).distinct().order_by("-start").first()
        or seasons.holding(timezone.localdate())
        or seasons.order_by("-start").first()
    )


def championship_tab(request, access: ClubAccess) -> Tab:
    """The championship (no query: the page finds the season)."""
    return Tab(
        label=_("Championship"),
        url=reverse("championship:current", args=[access.club.slug]),
        order=65,
    )


@kept_under(standings.AREA)
def top_of_the_standings(request, access: ClubAccess) -> Section | None:
    season = current_season(access.club)
    if season is None:
        return None
    rows = [row for row in standings.table(season).rows if row.rank is not None][:TOP]
    if not rows:
        return None
    return Section(
        slug="championship",
        title=_("Championship %(season)s") % {"season": season.name},
        template="matches/championship/section.html",
        context={"rows": rows, "season": season},
        order=35,
    )
