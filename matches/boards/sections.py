"""The club page's sections about recorded games (the protocol: ``clubs.club_page``)."""

from django.db.models import Prefetch
from django.urls import reverse
from django.utils.translation import gettext as _

from clubs.access import ClubAccess
from clubs.club_page import Section, Tab, kept_under
from matches.results.models import GameRecord, GameSeat

RECENT_GAMES = 5


@kept_under("singapore", "sputo", "spazzumazz")
def recent_games(request, access: ClubAccess) -> Section | None:
    """The club's last games, with who sat at the table (two queries); hidden while the
    club has recorded none."""
    seats = GameSeat.objects.select_related("player").order_by("place", "pk")
    games = list(
        GameRecord.objects.filter(club=access.club)
        .defer("record", "result")  # a Singapore record is long; the section names the game
        .order_by("-played_at", "-pk")
        .prefetch_related(Prefetch("seats", queryset=seats))[:RECENT_GAMES]
    )
    if not games:
        return None
    return Section(
        slug="recent-games",
        title=_("Recent games"),
        template="matches/sections/recent_games.html",
        context={"games": games},
        order=40,
    )


def leaderboards_tab(request, access: ClubAccess) -> Tab:
    """Every game's leaderboards (``matches/views.py``)."""
    return Tab(
        label=_("Leaderboards"),
        url=reverse("boards:leaderboards", args=[access.club.slug]),
        order=60,
    )


def nights_tab(request, access: ClubAccess) -> Tab:
    """The club nights and their end-of-evening reports."""
    return Tab(
        label=_("Club nights"), url=reverse("boards:nights", args=[access.club.slug]), order=70
    )
