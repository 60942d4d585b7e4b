"""Sputo on the club's boards (``matches/boards.py``): the Glicko-2 leaderboard, read from
the precomputed ratings in a constant number of queries."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from matches.boards import Column, Leaderboard
from matches.models import PlayerRating

COLUMNS = [
    Column("rating", _("Rating"), "rating", help=_("Rating minus twice its deviation.")),
    Column("mu", _("Glicko-2 rating"), "rating"),
    Column("rd", _("Deviation"), "rating"),
    Column("games", _("Rated matches")),
]


def leaderboard(club, *, season=None, min_games=0) -> Leaderboard | None:
    """Ratings are the club's, across seasons (a rating follows a player, not a season)."""
    rows = [
        {
            "player": r.player_id,
            "name": r.player.display_name,
            "provisional": r.provisional,
            "rating": round(r.display, 1),
            "mu": round(r.mu, 1),
            "rd": round(r.sigma, 1),
            "games": r.games,
        }
        for r in PlayerRating.objects.filter(
            club=club, game="sputo", games__gte=min_games
        ).select_related("player")
    ]
    if not rows:
        return None
    return Leaderboard(
        game="sputo",
        title=_("Sputo: Glicko-2 ratings"),
        columns=COLUMNS,
        rows=rows,
        default_sort="rating",
    )
