"""The boards' API, for every game: a club's leaderboards, a player's ratings with their
history, and a player's head to head (``/api/v1/clubs/{slug}/leaderboards/{game}/``,
``/api/v1/players/{id}/ratings/``, ``/api/v1/players/{id}/head-to-head/``).

Read by whoever may see the club (public clubs: everyone; private ones: their members),
through the same access check as the pages; the same providers as the leaderboard page.
Money columns only for those who see the club's money (``ClubAccess.sees_money``).
"""

from __future__ import annotations

import re

from django.shortcuts import get_object_or_404
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from clubs.access import access_club
from clubs.models import Game, Player, Season
from matches import boards
from matches.boards.models import PlayerRating, RatingChange
from plumbing.errors import NOT_FOUND

MIN_GAMES_MAX = 999_999


def min_games_param(request) -> int:
    values = request.query_params.getlist("min_games")
    if not values or values == [""]:
        return 0
    raw = values[0]
    if len(values) > 1 or not raw.isdigit() or int(raw) > MIN_GAMES_MAX:
        raise serializers.ValidationError({"min_games": [_("A whole number of games, 0 or more.")]})
    return int(raw)


def season_param(request, club) -> Season | None:
    """``?season=<id>``: one of the club's seasons. Not an id: a 400 naming ``season``; an id
    of no season of the club: a 404 naming it (an object named that is not there)."""
    values = request.query_params.getlist("season")
    if not values or values == [""]:
        return None
    raw = values[0]
    if len(values) > 1 or not re.fullmatch(r"[1-9][0-9]{0,17}", raw):
        raise serializers.ValidationError({"season": [_("A season's id, once.")]})
    season = club.seasons.filter(pk=int(raw)).first()
    if season is None:
        raise serializers.ValidationError(
            {"season": [_("No such season in this club.")]}, code=NOT_FOUND
        )
    return season


SEASON = OpenApiParameter(
    "season",
    {"type": "integer", "minimum": 1, "maximum": 10**18 - 1},
    description=gettext_lazy("A season's id; all time without it."),
)


class ColumnSerializer(serializers.Serializer):
    key = serializers.CharField()
    label = serializers.CharField()
    kind = serializers.CharField()


class LeaderboardSerializer(serializers.Serializer):
    game = serializers.CharField()
    title = serializers.CharField()
    note = serializers.CharField()
    season = serializers.IntegerField(allow_null=True)
    min_games = serializers.IntegerField()
    unit = serializers.CharField()
    columns = ColumnSerializer(many=True)
    rows = serializers.ListField(
        child=serializers.DictField(),
        help_text=gettext_lazy(
            "One object per player: player (id), name, provisional, and a value per column key."
        ),
    )


class LeaderboardView(APIView):
    """A club's leaderboard for one game, per season or all time (sorted as the game sorts
    it by default; ``ordering=<column>``, or ``-<column>`` for the highest first)."""

    game = ""

    def get(self, request, slug):
        game = self.game
        access = access_club(request.user, slug)
        club = access.club
        provider = boards.leaderboard_providers().get(game)
        season = season_param(request, club)
        min_games = min_games_param(request)
        # A game whose feature has no provider (yet) has an empty board, as one without data.
        board = provider(club, season=season, min_games=min_games) if provider else None
        if board is not None and not access.sees_money():  # its money columns gone
            board = boards.without_money(board)
        ordering = request.query_params.get("ordering") or ""
        key = ordering.removeprefix("-") or None
        if key is not None and key not in {c.key for c in boards.leaderboard_columns(game)}:
            raise serializers.ValidationError({"ordering": [_("No such column.")]})
        rows = []
        if board is not None:
            descending = None if not ordering else ordering.startswith("-")
            rows = [
                {k: boards.as_json(v) for k, v in row.items()}
                for row in board.sorted_rows(key, descending=descending)
            ]
        return Response(
            LeaderboardSerializer(
                {
                    "game": game,
                    "title": board.title if board else Game(game).label,
                    "note": board.note if board else "",
                    "season": season.pk if season else None,
                    "min_games": min_games,
                    "unit": board.unit if board else "",
                    "columns": [
                        {"key": c.key, "label": str(c.label), "kind": c.kind}
                        for c in (board.columns if board else [])
                    ],
                    "rows": rows,
                }
            ).data
        )


def leaderboard_view(game: str):
    """The leaderboard of one game: one operation each in the schema, so that ``ordering``
    lists that game's columns (an unknown game matches no route: a JSON 404)."""
    keys = [c.key for c in boards.leaderboard_columns(game) if c.sortable]
    ordering = (
        {"type": "string", "enum": [*keys, *(f"-{k}" for k in keys)]}
        if keys
        else {"type": "string", "enum": [""]}
    )

    def get(self, request, slug):
        return LeaderboardView.get(self, request, slug)

    get = extend_schema(
        operation_id=f"clubs_leaderboards_{game}_retrieve",
        parameters=[
            SEASON,
            OpenApiParameter(
                "min_games",
                {"type": "integer", "minimum": 0, "maximum": MIN_GAMES_MAX},
                description=gettext_lazy("At least this many games."),
            ),
            OpenApiParameter(
                "ordering", ordering, description=gettext_lazy("A column, - first to reverse.")
            ),
        ],
        responses=LeaderboardSerializer,
    )(get)
    view = type(
        f"{game.title()}LeaderboardView",
        (LeaderboardView,),
        {
            "game": game,
            "get": get,
            "__doc__": f"The club's {Game(game).label} leaderboard, per season or all time "
            "(``ordering=<column>``, ``-<column>`` for the highest first).",
        },
    )
    return view.as_view()


def visible_player(request, pk) -> Player:
    return get_object_or_404(Player.objects.visible_to(request.user).select_related("club"), pk=pk)


# The start of a row about one player in the games' answers: its id and its name (a comment,
# not a docstring: the schema would give it to every serializer built on this one).
class PlayerNameSerializer(serializers.Serializer):
    player = serializers.IntegerField()
    name = serializers.CharField()


class RatingPointSerializer(serializers.Serializer):
    sequence = serializers.IntegerField()
    at = serializers.DateTimeField()
    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    display = serializers.FloatField()
    delta = serializers.FloatField()


class GameRatingSerializer(serializers.Serializer):
    game = serializers.CharField()
    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    volatility = serializers.FloatField(allow_null=True)
    display = serializers.FloatField(help_text=gettext_lazy("The conservative figure shown."))
    games = serializers.IntegerField()
    provisional = serializers.BooleanField()
    history = RatingPointSerializer(many=True)


class PlayerRatingsSerializer(serializers.Serializer):
    player = serializers.IntegerField()
    ratings = GameRatingSerializer(many=True)


class PlayerRatingsView(APIView):
    """A player's ratings (Sputo's Glicko-2, Spazz'u'mazz's OpenSkill) with their history,
    oldest first; ``?game=`` for one game."""

    @extend_schema(
        parameters=[OpenApiParameter("game", str, enum=Game.values)],
        responses=PlayerRatingsSerializer,
    )
    def get(self, request, pk):
        player = visible_player(request, pk)
        game = request.query_params.get("game")
        ratings = PlayerRating.objects.filter(player=player).order_by("game")
        changes = RatingChange.objects.filter(player=player).order_by("game", "sequence")
        if game is not None:  # asked for, even empty: one of the games
            if game not in Game.values:
                raise serializers.ValidationError({"game": [_("Unknown game.")]})
            ratings, changes = ratings.filter(game=game), changes.filter(game=game)
        history: dict[str, list] = {}
        for change in changes:
            history.setdefault(change.game, []).append(change)
        return Response(
            PlayerRatingsSerializer(
                {
                    "player": player.pk,
                    "ratings": [
                        {
                            "game": r.game,
                            "mu": r.mu,
                            "sigma": r.sigma,
                            "volatility": r.volatility,
                            "display": r.display,
                            "games": r.games,
                            "provisional": r.provisional,
                            "history": history.get(r.game, []),
                        }
                        for r in ratings
                    ],
                }
            ).data
        )
