"""Spazz'u'mazz's API: ``/api/v1/spazzumazz-games/`` (list, create, read, the result cycle's
steps) and the club's idiot statistics, ``/api/v1/clubs/{slug}/idiot-stats/``.

The same services and the same access check as the pages: lists hold what the user may
see, an object of a club they may not see is a 404, a step they may not take a 403, the
wrong moment a 409.
"""

from __future__ import annotations

from django.db import transaction
from django.db.models import Prefetch
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django_filters import rest_framework as filters
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound
from rest_framework.response import Response
from rest_framework.views import APIView

import plumbing.once.sent as once
from clubs.access import access_club
from clubs.api import ClubSlugField
from clubs.models import Game
from matches.boards.api import SEASON, PlayerNameSerializer, season_param, visible_player
from matches.results.api import result_steps
from matches.results.models import OutcomeStatus
from matches.spazzumazz import boards
from matches.spazzumazz.adapter import SpazzumazzAdapter
from matches.spazzumazz.models import SpazzumazzGame, SpazzumazzHeadToHead, SpazzumazzPlace
from matches.spazzumazz.services import (
    players_of,
    record_spazzumazz_batch,
    record_spazzumazz_game,
)
from plumbing.schema import recorded_once
from plumbing.strict import IdFilter, IdList, StrictSerializer, json_parsers

# --- Serializers -------------------------------------------------------------------------------


MAX_PLAYERS = 20  # at one table

OUTCOMES_SHOWN = (OutcomeStatus.CONFIRMED, OutcomeStatus.REPORTED, OutcomeStatus.DISPUTED)
GAME_KEY = gettext_lazy(
    "Optional: a client's key for this game, at most 255 characters (longer is "
    "a 400). Sent again with the same body, it answers the game already "
    "recorded (200) instead of recording another; with another body it is a "
    "422 naming the key, never the earlier game."
)


class SpazzumazzGameSerializer(serializers.ModelSerializer):
    club = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    players = serializers.SerializerMethodField(
        help_text=gettext_lazy("The players' ids in turn order.")
    )
    finish_order = serializers.SerializerMethodField(
        help_text=gettext_lazy(
            "The players' ids in the order they went out, the idiot last: of the result in "
            "force, else of the report waiting; null without either."
        )
    )
    idiot = serializers.SerializerMethodField()
    status = serializers.SerializerMethodField(
        help_text=gettext_lazy(
            "The latest result's state: reported, disputed, confirmed, ... (null: none yet)."
        )
    )
    full_log = serializers.SerializerMethodField(
        help_text=gettext_lazy("Whether the result came with the full turn log.")
    )
    house_rules_version = serializers.IntegerField(
        source="house_rules.version", read_only=True, allow_null=True, default=None
    )

    class Meta:
        model = SpazzumazzGame
        fields = [
            "id",
            "club",
            "season",
            "played_at",
            "players",
            "finish_order",
            "idiot",
            "status",
            "full_log",
            "house_rules_version",
            "created_at",
        ]
        read_only_fields = fields

    def _latest(self, game):
        found = [o for o in game.outcomes.all() if o.status != OutcomeStatus.WITHDRAWN]
        in_force = [o for o in found if o.status == OutcomeStatus.CONFIRMED]
        return (in_force or found or [None])[-1]

    def get_players(self, game) -> list[int]:
        return [p.player_id for p in sorted(game.places.all(), key=lambda p: p.turn)]

    def get_finish_order(self, game) -> list[int] | None:
        latest = self._latest(game)
        if latest is None or latest.status not in OUTCOMES_SHOWN:
            return None
        return latest.payload["finish_order"]

    def get_idiot(self, game) -> int | None:
        order = self.get_finish_order(game)
        return order[-1] if order else None

    def get_status(self, game) -> str | None:
        latest = self._latest(game)
        return latest.status if latest else None

    def get_full_log(self, game) -> bool | None:
        latest = self._latest(game)
        return bool(latest.payload.get("log")) if latest else None


EITHER_ORDER_OR_RECORD = {"oneOf": [{"required": ["finish_order"]}, {"required": ["record"]}]}


class RecordField(serializers.DictField):
    """A full Spazz'u'mazz record (RULES.md: its players in turn order and every turn): the
    rules engine checks it and the finishing order comes from it."""


def _player_ids(**kwargs) -> IdList:
    return IdList(unique=True, min_length=2, max_length=MAX_PLAYERS, **kwargs)


def _either_order_or_record(data: dict) -> dict:
    if ("finish_order" in data) == ("record" in data):
        raise serializers.ValidationError(
            {"finish_order": [_("Give either the finishing order or a record.")]}
        )
    return data


def _every_player_once(order: list[int], players: list[int], field: str) -> None:
    if sorted(order) != sorted(players):
        raise serializers.ValidationError(
            {field: [_("List every player of the game once, in the order they went out.")]}
        )


class SpazzumazzGameCreateSerializer(StrictSerializer):
    request_schema_extra = EITHER_ORDER_OR_RECORD

    club = ClubSlugField()
    played_at = serializers.DateTimeField(required=False)
    players = _player_ids(help_text=gettext_lazy("Player ids in turn order."))
    finish_order = _player_ids(
        required=False,
        help_text=gettext_lazy(
            "The players' ids in the order they went out, the idiot last: each player of the "
            "game once."
        ),
    )
    record = RecordField(
        required=False,
        help_text=gettext_lazy(
            "The full record (a turn log) instead of the finishing order: the rules engine "
            "checks it, and the finishing order comes from it."
        ),
    )

    def validate(self, data):
        if "finish_order" in data:
            _every_player_once(data["finish_order"], data["players"], "finish_order")
        return _either_order_or_record(data)


class SpazzumazzBatchSerializer(StrictSerializer):
    club = ClubSlugField()
    played_at = serializers.DateTimeField(
        required=False, help_text=gettext_lazy("When the first game was played.")
    )
    players = _player_ids()
    finish_orders = serializers.ListField(
        child=_player_ids(),
        min_length=1,
        max_length=50,
        help_text=gettext_lazy("One per game: each player of the table once, the idiot last."),
    )

    def validate(self, data):
        for n, order in enumerate(data["finish_orders"]):
            _every_player_once(order, data["players"], f"finish_orders[{n}]")
        return data


class SpazzumazzReasonSerializer(StrictSerializer):
    reason = serializers.CharField(max_length=1000)


class SpazzumazzCorrectSerializer(StrictSerializer):
    request_schema_extra = EITHER_ORDER_OR_RECORD

    reason = serializers.CharField(max_length=1000)
    finish_order = _player_ids(required=False)
    record = RecordField(required=False)

    def validate(self, data):
        return _either_order_or_record(data)


class SpazzumazzDecideSerializer(StrictSerializer):
    uphold = serializers.BooleanField()
    finish_order = _player_ids(
        required=False, help_text=gettext_lazy("The result to put in force instead.")
    )
    note = serializers.CharField(max_length=1000, required=False, allow_blank=True)

    def validate(self, data):
        if data["uphold"] and "finish_order" in data:
            raise serializers.ValidationError(
                {"finish_order": [_("Either uphold the report or enter a result.")]}
            )
        return data


# --- The games ---------------------------------------------------------------------------------


class SpazzumazzGameFilter(filters.FilterSet):
    club__slug = filters.CharFilter(field_name="club__slug")
    season = IdFilter(field_name="season_id")
    player = IdFilter(method="filter_player", label=gettext_lazy("Player id"))

    class Meta:
        model = SpazzumazzGame
        fields = ["club__slug", "season", "player"]

    def filter_player(self, queryset, name, value):
        return queryset.filter(
            pk__in=SpazzumazzPlace.objects.filter(player_id=value).values("game_id")
        )


def _payload(data: dict) -> dict:
    if "record" in data:
        return {"record": data["record"]}
    return {"finish_order": data["finish_order"]}


GameSteps = result_steps(
    "spazzumazz",
    # A game is reported as it is entered (POST spazzumazz-games/): every other step here.
    steps=[step for step in SpazzumazzAdapter.steps if step != "report"],
    bodies={
        "dispute": SpazzumazzReasonSerializer,
        "void": SpazzumazzReasonSerializer,
        "decide": SpazzumazzDecideSerializer,
        "correct": SpazzumazzCorrectSerializer,
    },
    answer=SpazzumazzGameSerializer,
)


class SpazzumazzGameViewSet(
    GameSteps,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    viewsets.GenericViewSet,
):
    """Spazz'u'mazz games. A player of the game reports a result for another to confirm; a
    scorer's or an admin's entry is in force at once. Corrections and voids need a scorer."""

    queryset = SpazzumazzGame.objects.none()  # the schema's model; get_queryset filters
    serializer_class = SpazzumazzGameSerializer
    filterset_class = SpazzumazzGameFilter
    ordering_fields = ["played_at", "created_at"]
    search_fields: list[str] = []
    parser_classes = json_parsers()  # lists of ids and a turn log: JSON, not a form
    # The wrong moment in the result cycle (a second confirmation, a report decided
    # already), or a finishing order of players other than the game's.
    api_errors = {
        action: {409} for action in ("confirm", "dispute", "decide", "withdraw", "correct", "void")
    }
    api_errors["create"] = {422}  # an Idempotency-Key sent again with another body

    def get_queryset(self):
        return (
            SpazzumazzGame.objects.visible_to(self.request.user)
            .select_related("club", "house_rules")
            .prefetch_related(
                Prefetch("places", queryset=SpazzumazzPlace.objects.order_by("turn")),
                "outcomes",
            )
        )

    def _show(self, game, code=status.HTTP_200_OK):
        game = self.get_queryset().get(pk=game.pk)
        return Response(self.get_serializer(game).data, status=code)

    @recorded_once(
        SpazzumazzGameSerializer,
        request=SpazzumazzGameCreateSerializer,
        key=GAME_KEY,
        already=gettext_lazy("A game already recorded"),
    )
    def create(self, request, *args, **kwargs):
        """Record a game and its result (finishing order, or the full turn log). An
        ``Idempotency-Key`` records it once."""
        key = once.api_key(request)
        data = SpazzumazzGameCreateSerializer(data=request.data, context={"request": request})
        data.is_valid(raise_exception=True)
        values = data.validated_data
        club = values["club"]
        # The answer is read in the write's own transaction: a connection lost right after
        # the commit costs only the after-commit sending (which the outbox keeps), never the
        # answer to a game already recorded.
        with (
            transaction.atomic(),
            once.api_sent_once(request, scope="spazzumazz.game", key=key) as sent,
        ):
            if not sent.before:
                game, _outcome = record_spazzumazz_game.within(
                    club=club,
                    players=players_of(club, values["players"]),
                    by=request.user,
                    played_at=values.get("played_at"),
                    **{k: v for k, v in _payload(values).items()},
                )
                sent.keep(game.pk)
                return self._show(game, status.HTTP_201_CREATED)
        game = self.get_queryset().filter(pk=sent.before).first()
        if game is None:  # gone from what the user may see since
            raise NotFound()
        return self._show(game)

    @extend_schema(
        request=SpazzumazzBatchSerializer, responses={201: SpazzumazzGameSerializer(many=True)}
    )
    @action(detail=False, methods=["post"], pagination_class=None)
    def batch(self, request):
        """Several games by the same players in a row (a club night): all or none."""
        data = SpazzumazzBatchSerializer(data=request.data, context={"request": request})
        data.is_valid(raise_exception=True)
        values = data.validated_data
        club = values["club"]
        recorded = record_spazzumazz_batch(
            club=club,
            players=players_of(club, values["players"]),
            by=request.user,
            finish_orders=values["finish_orders"],
            played_at=values.get("played_at"),
        )
        games = self.get_queryset().filter(pk__in=[g.pk for g, _o in recorded])
        return Response(
            self.get_serializer(games.order_by("played_at", "pk"), many=True).data,
            status=status.HTTP_201_CREATED,
        )

    # --- The result cycle's steps (``result_steps``)

    def step_subject(self, request, pk=None):
        return self.get_object()

    def step_answer(self, subject, step, code=status.HTTP_200_OK, taken=None):
        return self._show(subject, code)

    def step_payload(self, step, data, request):
        if step == "decide":
            return {"finish_order": data["finish_order"]} if "finish_order" in data else None
        return _payload(data)


def register(router) -> None:
    router.register("spazzumazz-games", SpazzumazzGameViewSet, basename="spazzumazz-game")


# --- The club's idiot statistics -----------------------------------------------------------------


class GameNameSerializer(PlayerNameSerializer):
    since = serializers.DateField(help_text=gettext_lazy("When the title last changed hands."))


class IdiotRowSerializer(PlayerNameSerializer):
    games = serializers.IntegerField()
    idiot = serializers.IntegerField(help_text=gettext_lazy("Times the idiot."))
    idiot_rate = serializers.FloatField()
    average_place = serializers.FloatField(
        help_text=gettext_lazy(
            "The average finishing place, normalised: 0 always out first, 1 always the idiot."
        )
    )
    current_streak = serializers.IntegerField()
    longest_streak = serializers.IntegerField()


class IdiotStatsSerializer(serializers.Serializer):
    game_name = GameNameSerializer(allow_null=True)
    players = IdiotRowSerializer(many=True)


class IdiotStatsView(APIView):
    """The club's idiot statistics per player, and who its game is named after."""

    @extend_schema(parameters=[SEASON], responses=IdiotStatsSerializer)
    def get(self, request, slug):
        club = access_club(request.user, slug).club
        season = season_param(request, club)
        return Response(
            IdiotStatsSerializer(
                {
                    "game_name": boards.game_name(club, season),
                    "players": boards.idiot_stats(club, season),
                }
            ).data
        )


# --- A player's head to head ------------------------------------------------------------


class OpponentSerializer(PlayerNameSerializer):
    games = serializers.IntegerField(help_text=gettext_lazy("Games played together."))
    behind = serializers.IntegerField(
        help_text=gettext_lazy("How often this player finished behind the opponent.")
    )
    ahead = serializers.IntegerField()


class HeadToHeadSerializer(serializers.Serializer):
    player = serializers.IntegerField()
    game = serializers.CharField()
    season = serializers.IntegerField(allow_null=True)
    opponents = OpponentSerializer(many=True)


class HeadToHeadView(APIView):
    """A player's Spazz'u'mazz head to head: for each player met, the games shared and how
    often this player finished behind them; most games first."""

    @extend_schema(parameters=[SEASON], responses=HeadToHeadSerializer)
    def get(self, request, pk):
        player = visible_player(request, pk)
        season = season_param(request, player.club)
        rows = (
            SpazzumazzHeadToHead.objects.filter(player=player, season=season)
            .select_related("opponent")
            .order_by("-games", "opponent__display_name")
        )
        return Response(
            HeadToHeadSerializer(
                {
                    "player": player.pk,
                    "game": Game.SPAZZUMAZZ,
                    "season": season.pk if season else None,
                    "opponents": [
                        {
                            "player": r.opponent_id,
                            "name": r.opponent.display_name,
                            "games": r.games,
                            "behind": r.behind,
                            "ahead": r.games - r.behind,
                        }
                        for r in rows
                    ],
                }
            ).data
        )
