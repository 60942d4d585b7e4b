"""The club page's sections about recorded games (the protocol: ``clubs.club_page``)."""

from django.db.models import Prefetch
from django.utils.translation import gettext as _

from clubs.access import ClubAccess
from clubs.club_page import Section
from matches.models import GameRecord, GameSeat

RECENT_GAMES = 5


def recent_games(request, access: ClubAccess) -> Section | None:
    """The club's last games, with who sat at the table (two queries); hidden while the
    club has recorded none."""
    seats = GameSeat.objects.select_related("player").order_by("place", "pk")
    games = list(
        GameRecord.objects.filter(club=access.club)
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
