"""Singapore tables' REST API: ``/api/v1/table-sessions/`` with its seats and hands.

The paths and fields are a contract others script against. Everything goes
through ``matches.singapore.services`` and the one access check: a table is seen by the
club's members (anyone else: 404); scorers and admins open and close tables, seat people
and record hands in force; a member seats themself and reports a hand they play in.
"""

from __future__ import annotations

import json
from decimal import Decimal

from django.conf import settings
from django.db import transaction
from django.db.models import Count, prefetch_related_objects
from django.template.defaultfilters import filesizeformat
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django_filters import rest_framework as filters
from drf_spectacular.utils import (
    OpenApiParameter,
    extend_schema,
    extend_schema_field,
)
from rest_framework import mixins, permissions, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound
from rest_framework.response import Response

import plumbing.once.sent as once
from clubs.access import access_club
from clubs.api import ClubAccessMixin, ClubSlugField
from clubs.models import Player, Role
from matches.boards.api import PlayerNameSerializer
from matches.results.api import result_steps
from matches.singapore import services, turns
from matches.singapore.adapter import SingaporeAdapter
from matches.singapore.importer import DEFAULT_TABLE, import_hands
from matches.singapore.models import Hand, TableSession
from matches.singapore.payload import (
    QUOTA_MAX,
    current_outcome,
    history_lookups,
    views_of,
    with_history,
)
from plumbing.errors import not_found
from plumbing.schema import recorded_once
from plumbing.strict import IdFilter, IdList, StrictSerializer, json_parsers, parsers_of

# --- The serializers: the bodies and answers ---------------------------------------------
#
# Tables, seats, the bulk import, and hands with their history and transfers.

IMPORT_MAX_LINES = 20_000


def _id(**kwargs) -> serializers.IntegerField:
    return serializers.IntegerField(min_value=1, max_value=2**63 - 1, **kwargs)


# --- Serializers: tables --------------------------------------------------------------------


class TablePairSerializer(serializers.Serializer):
    dealer = serializers.IntegerField()
    opponent = serializers.IntegerField()


class TableSeatSerializer(PlayerNameSerializer):
    position = serializers.IntegerField()
    sitting_out = serializers.BooleanField()
    left = serializers.BooleanField()


class TableDrawSerializer(serializers.Serializer):
    seed = serializers.IntegerField()
    seats = serializers.ListField(child=serializers.IntegerField())


class TableSessionSerializer(serializers.ModelSerializer):
    """A table as it stands: ``seats`` (the ids of the people at it now, in rotation order),
    ``seating`` (everyone who sat there, with their state) and ``next``, the pair the
    rotation calls for (null: any two people playing at the table may play)."""

    club = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    unit = serializers.CharField(read_only=True)
    house_rules_version = serializers.SerializerMethodField()
    seats = serializers.SerializerMethodField()
    seating = serializers.SerializerMethodField()
    next = serializers.SerializerMethodField()
    draw = serializers.SerializerMethodField()
    hands = serializers.SerializerMethodField()
    open = serializers.BooleanField(source="is_open", read_only=True)

    class Meta:
        model = TableSession
        fields = [
            "id",
            "club",
            "season",
            "name",
            "date",
            "house_rules_version",
            "point_value",
            "currency",
            "unit",
            "seats",
            "seating",
            "first_dealer",
            "first_opponent",
            "draw",
            "next",
            "hands",
            "open",
            "closed_at",
            "created_at",
        ]
        read_only_fields = fields

    def _state(self, session) -> turns.TableState:
        states = self.context.setdefault("states", {})
        if session.pk not in states:
            states[session.pk] = turns.table_state(session)
        return states[session.pk]

    def get_house_rules_version(self, session) -> int | None:
        return session.house_rules.version if session.house_rules_id else None

    @extend_schema_field(serializers.ListField(child=serializers.IntegerField()))
    def get_seats(self, session):
        return [s.player_id for s in self._state(session).seats if s.left_at is None]

    @extend_schema_field(TableSeatSerializer(many=True))
    def get_seating(self, session):
        return [
            {
                "player": s.player_id,
                "name": s.player.display_name,
                "position": s.position,
                "sitting_out": s.sitting_out,
                "left": s.left_at is not None,
            }
            for s in self._state(session).seats
        ]

    @extend_schema_field(TablePairSerializer(allow_null=True))
    def get_next(self, session):
        pair = self._state(session).next
        return {"dealer": pair[0], "opponent": pair[1]} if pair else None

    @extend_schema_field(TableDrawSerializer(allow_null=True))
    def get_draw(self, session):
        return session.draw or None

    def get_hands(self, session) -> int:
        count = getattr(session, "n_hands", None)
        return session.hands.count() if count is None else count


class TableSessionCreateSerializer(StrictSerializer):
    club = ClubSlugField()
    name = serializers.CharField(max_length=80)
    point_value = serializers.DecimalField(
        max_digits=10,
        decimal_places=2,
        allow_null=True,
        required=False,
        min_value=Decimal("0.01"),
        help_text=gettext_lazy("The money value of one point; null: points only."),
    )
    seats = IdList(
        unique=True,
        min_length=2,
        max_length=50,
        help_text=gettext_lazy("Player ids in rotation order, each once."),
    )
    first_dealer = _id(
        required=False,
        allow_null=True,
        help_text=gettext_lazy("One of the seats; with first_opponent, or neither (a draw)."),
    )
    first_opponent = _id(
        required=False, allow_null=True, help_text=gettext_lazy("Another of the seats.")
    )
    date = serializers.DateField(required=False)
    seed = serializers.IntegerField(
        required=False,
        min_value=0,
        max_value=2**62,
        help_text=gettext_lazy("The draw's seed (drawn at random if not given)."),
    )


@extend_schema_field({"type": "object", "additionalProperties": {"type": "integer"}})
class PlayerMappingField(serializers.Field):
    """A multipart part holding a JSON object of names and player ids (``{"Anna": 12}``)."""

    default_error_messages = {
        "invalid": gettext_lazy('A JSON object of "name": player id.'),
        "not_json": gettext_lazy("Not JSON."),
    }

    def to_internal_value(self, data):
        if isinstance(data, str):
            if len(data) > 100_000:
                self.fail("invalid")
            try:
                data = json.loads(data)
            except ValueError:
                self.fail("not_json")
        if not isinstance(data, dict) or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in data.values()
        ):
            self.fail("invalid")
        return data

    def to_representation(self, value):
        return value


class HandImportSerializer(StrictSerializer):
    club = ClubSlugField()
    file = serializers.FileField(
        allow_empty_file=True,  # no lines: nothing imported
        help_text=gettext_lazy(
            "UTF-8 text, JSON lines: one Singapore record with its stake a line."
        ),
    )
    players = PlayerMappingField(
        required=False,
        help_text=gettext_lazy('A JSON object mapping names to player ids: {"Anna": 12}.'),
    )
    session = _id(required=False, help_text=gettext_lazy("Put every hand in this table."))
    table = serializers.CharField(required=False, max_length=80)
    point_value = serializers.DecimalField(
        max_digits=10, decimal_places=2, required=False, allow_null=True, min_value=Decimal("0.01")
    )
    create_guests = serializers.BooleanField(required=False, default=False)
    allow_out_of_turn = serializers.BooleanField(
        required=False,
        default=False,
        help_text=gettext_lazy(
            "Admins only (403 for anyone else): let in the lines out of the rotation's turn, "
            "each marked on its hand; without it they are refused in the report."
        ),
    )


class ImportRefusalSerializer(serializers.Serializer):
    line = serializers.IntegerField()
    errors = serializers.ListField(child=serializers.DictField())


class ImportReportSerializer(serializers.Serializer):
    lines = serializers.IntegerField()
    imported = serializers.IntegerField()
    skipped = serializers.IntegerField(help_text=gettext_lazy("Imported before (the same lines)."))
    refused = ImportRefusalSerializer(many=True)
    sessions = serializers.ListField(child=serializers.IntegerField())
    out_of_turn = serializers.ListField(
        child=serializers.IntegerField(),
        help_text=gettext_lazy("The lines imported out of turn (allowed by an admin), marked."),
    )


class TableJoinSerializer(StrictSerializer):
    player = _id()
    move = serializers.BooleanField(
        default=False,
        help_text=gettext_lazy(
            "Someone seated at another open table of the night is a 409 naming it; with "
            "move, they leave that table and sit here in one step."
        ),
    )


# --- Serializers: hands ---------------------------------------------------------------------


def _quotas(**kwargs) -> serializers.IntegerField:
    return serializers.IntegerField(min_value=1, max_value=QUOTA_MAX, **kwargs)


class HandSideBetSerializer(StrictSerializer):
    backer_of_winner = _id()
    backer_of_loser = _id()
    quotas = _quotas()


class CardList(serializers.ListField):
    """Cards such as ``AS``, ``10H``, ``JK``: the rules engine checks them (a 400 with its
    code and the card's place, ``winner_cards[3]``)."""

    child = serializers.CharField(max_length=10)


class HandResultSerializer(StrictSerializer):
    """A hand's result, as the body of a new hand (with ``dealer`` and ``opponent``), of a
    correction or of a decision. Whether the cards close and the stake holds is the rules
    engine's to say (a 400 with its ``code`` and ``at`` for each error)."""

    winner = serializers.ChoiceField(choices=["dealer", "opponent"])
    winner_cards = CardList(max_length=30)
    loser_cards = CardList(max_length=30)
    melds = serializers.ListField(
        child=CardList(max_length=30),
        required=False,
        allow_null=True,
        min_length=1,
        max_length=10,
    )
    dealer_quotas = _quotas()
    covers = serializers.DictField(
        child=_quotas(),
        required=False,
        help_text=gettext_lazy(
            '{"<player id>": quotas}: the opponent first, then bystanders, each seated at '
            "the table."
        ),
    )
    side_bets = HandSideBetSerializer(many=True, required=False, max_length=50)


# The keys of a hand's result, read once (a serializer builds its fields anew each time).
_RESULT_KEYS = frozenset(HandResultSerializer._declared_fields)


def result_in(body: dict) -> dict:
    """The hand's result in a request's body: its keys of :class:`HandResultSerializer`."""
    return {k: v for k, v in body.items() if k in _RESULT_KEYS}


class HandCreateSerializer(HandResultSerializer):
    dealer = _id()
    opponent = _id()
    override = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=1000,
        help_text=gettext_lazy(
            "Admins only (403 for anyone else): why a hand out of turn is allowed. Without "
            "it, a hand whose pair or dealer is not the rotation's is a 409."
        ),
    )
    preview = serializers.BooleanField(
        required=False, default=False, help_text=gettext_lazy("Check and answer; save nothing.")
    )


class HandCorrectSerializer(HandResultSerializer):
    reason = serializers.CharField(max_length=1000)


class HandReasonSerializer(StrictSerializer):
    reason = serializers.CharField(max_length=1000)


class HandDecideSerializer(StrictSerializer):
    uphold = serializers.BooleanField()
    note = serializers.CharField(required=False, allow_blank=True, max_length=1000)
    result = HandResultSerializer(required=False, allow_null=True)

    def validate(self, data):
        if data["uphold"] and data.get("result") is not None:
            raise serializers.ValidationError(
                {"result": [_("Either uphold the hand or enter its result.")]}
            )
        return data


class HandTransferSerializer(serializers.Serializer):
    from_ = serializers.IntegerField()
    to = serializers.IntegerField()
    points = serializers.IntegerField()
    amount = serializers.DecimalField(max_digits=14, decimal_places=2, allow_null=True)

    def get_fields(self):
        fields = super().get_fields()
        fields["from"] = fields.pop("from_")
        return fields


class HandHistorySerializer(serializers.Serializer):
    outcome = serializers.IntegerField()
    status = serializers.CharField()
    reported_by = serializers.IntegerField(
        allow_null=True, help_text=gettext_lazy("The id of the user who reported it.")
    )
    reported_at = serializers.DateTimeField()
    note = serializers.CharField()
    winner = serializers.CharField()
    points = serializers.IntegerField()


class HandSerializer(serializers.Serializer):
    """A hand and the result that stands for it (in force, else waiting, else the last);
    ``history`` lists every result it had, oldest first."""

    id = serializers.IntegerField(allow_null=True)
    session = serializers.IntegerField()
    number = serializers.IntegerField(allow_null=True)
    dealer = serializers.IntegerField()
    opponent = serializers.IntegerField()
    played_at = serializers.DateTimeField(allow_null=True)
    out_of_turn = serializers.BooleanField(
        help_text=gettext_lazy(
            "Recorded out of the rotation's turn (an admin's override, or an import that "
            "allowed it)."
        )
    )
    status = serializers.CharField()
    winner = serializers.ChoiceField(choices=["dealer", "opponent"])
    winner_cards = serializers.ListField(child=serializers.CharField())
    loser_cards = serializers.ListField(child=serializers.CharField())
    melds = serializers.ListField(
        child=serializers.ListField(child=serializers.CharField()), allow_null=True
    )
    dealer_quotas = serializers.IntegerField()
    covers = serializers.DictField(child=serializers.IntegerField())
    side_bets = HandSideBetSerializer(many=True)
    result = serializers.DictField(help_text=gettext_lazy("The rules engine's output."))
    transfers = HandTransferSerializer(many=True)
    history = HandHistorySerializer(many=True)


def _money(value):
    return None if value is None else f"{value:.2f}"


def _transfers(transfers, money: bool) -> list[dict]:
    """The transfers for the API: their ``amount`` null for a reader who may not see the
    club's money (``ClubAccess.sees_money``), as in a session without a point value."""
    return [dict(t, amount=_money(t["amount"]) if money else None) for t in transfers]


def hand_data(hand: Hand, *, money: bool) -> dict:
    """A hand's API representation (``hand`` read through ``with_history``); ``money``:
    whether the reader sees the club's money."""
    views = views_of(hand)
    current = current_outcome(hand)
    view = next(v for v in views if v.outcome.pk == current.pk)
    return {
        "id": hand.pk,
        "session": hand.session_id,
        "number": hand.number,
        "dealer": hand.dealer_id,
        "opponent": hand.opponent_id,
        "played_at": hand.played_at,
        "out_of_turn": hand.out_of_turn,
        "status": current.status,
        "winner": view.winner,
        "winner_cards": view.winner_cards,
        "loser_cards": view.loser_cards,
        "melds": view.melds,
        "dealer_quotas": view.dealer_quotas,
        "covers": {str(pid): q for pid, q in view.covers.items()},
        "side_bets": view.side_bets,
        "result": view.result,
        "transfers": _transfers(view.transfers, money),
        "history": [
            {
                "outcome": v.outcome.pk,
                "status": v.outcome.status,
                "reported_by": v.outcome.reported_by_id,
                "reported_at": v.outcome.reported_at,
                "note": v.outcome.note,
                "winner": v.winner,
                "points": v.points,
            }
            for v in views
        ],
    }


def preview_data(session, dealer: int, opponent: int, body: dict, recorded, *, money: bool) -> dict:
    checked = recorded.checked
    preview = recorded.preview
    return {
        "id": None,
        "session": session.pk,
        "number": None,
        "dealer": dealer,
        "opponent": opponent,
        "played_at": None,
        "out_of_turn": recorded.out_of_turn,
        "status": "preview",
        "winner": checked.payload["winner"],
        "winner_cards": checked.payload["winner_cards"],
        "loser_cards": checked.payload["loser_cards"],
        "melds": checked.payload["melds"],
        "dealer_quotas": checked.payload["dealer_quotas"],
        "covers": checked.payload["covers"],
        "side_bets": checked.payload["side_bets"],
        "result": preview["result"],
        "transfers": _transfers(preview["transfers"], money),
        "history": [],
    }


# --- The filters -----------------------------------------------------------------------------


class TableSessionFilter(filters.FilterSet):
    season = IdFilter(field_name="season_id")
    open = filters.BooleanFilter(
        method="filter_open", label=gettext_lazy("Only tables still open (or closed)")
    )

    class Meta:
        model = TableSession
        fields = {"club__slug": ["exact"], "date": ["exact", "gte", "lte"]}

    def filter_open(self, queryset, name, value):
        return queryset.filter(closed_at__isnull=value)


# --- The viewset ------------------------------------------------------------------------------

HAND_ID = OpenApiParameter("hand_id", int, OpenApiParameter.PATH)
PLAYER_ID = OpenApiParameter("player_id", int, OpenApiParameter.PATH)
# The table is closed, a seat taken or left, a hand out of turn, the wrong moment in the
# result cycle.
CONFLICTS = {409}
HAND_KEY = gettext_lazy(
    "Optional: a client's key for this hand, at most 255 characters (longer is "
    "a 400). Sent again with the same body, it answers the hand already "
    "recorded (200) instead of recording another; with another body it is a "
    "422 naming the key, never the earlier hand."
)


HandSteps = result_steps(
    "singapore",
    steps=SingaporeAdapter.steps,  # a hand is reported as it is recorded: POST hands/
    bodies={
        "dispute": HandReasonSerializer,
        "void": HandReasonSerializer,
        "decide": HandDecideSerializer,
        "correct": HandCorrectSerializer,
    },
    answer=HandSerializer,
    prefix=r"hands/(?P<hand_id>\d+)/",
    parameters=[HAND_ID],
    notes={
        "correct": "The ledger gets the reversal of the old posting and the new one.",
        "void": "The ledger gets the reversal.",
    },
)


class TableSessionViewSet(
    ClubAccessMixin,
    HandSteps,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    viewsets.GenericViewSet,
):
    """Singapore tables of your clubs (members see them), their seats and their hands. A
    transfer's ``amount`` is null for a reader who may not see the club's money (a club that
    hides it from its members: all but its admins), as in a session of points only."""

    model = TableSession
    create_role = Role.SCORER
    queryset = TableSession.objects.none()  # the schema's model; get_queryset filters
    serializer_class = TableSessionSerializer
    permission_classes = [permissions.IsAuthenticated]
    filterset_class = TableSessionFilter
    ordering_fields = ["date", "name", "created_at"]
    search_fields = ["name"]
    parser_classes = json_parsers()  # seats and hands are lists and objects: JSON
    api_errors = {
        action: CONFLICTS
        for action in (
            "close",
            "reopen",
            "seats",
            "leave",
            "sit_out",
            "back",
            "hands",
            "void",
            "correct",
            "confirm",
            "dispute",
            "withdraw",
            "decide",
        )
    }
    # The multipart body is described apart: the club and the table it names may be missing.
    api_errors["import_hands"] = {404}
    api_errors["hands"] = {*CONFLICTS, 422}  # an Idempotency-Key sent again with another body

    def get_queryset(self):
        tables = super().get_queryset().select_related("club", "house_rules")
        tables = tables.order_by("-date", "-pk")
        # The hands are counted where the table is shown, not where a hand is recorded or a
        # step taken: counting a long table's hands took longer than the rest of its read.
        return _with_hands_counted(tables) if self.action in ("list", "retrieve") else tables

    def role_to_write(self, obj) -> str | None:
        return Role.MEMBER  # the services check who may do what to whom

    def get_serializer_context(self):
        return {**super().get_serializer_context(), "states": {}}

    def list(self, request, *args, **kwargs):
        queryset = self.filter_queryset(self.get_queryset())
        page = self.paginate_queryset(queryset)
        sessions = list(page if page is not None else queryset)
        context = self.get_serializer_context()
        context["states"] = turns.table_states(sessions)
        data = TableSessionSerializer(sessions, many=True, context=context).data
        return self.get_paginated_response(data) if page is not None else Response(data)

    def _session_response(self, session, code=status.HTTP_200_OK):
        session = _with_hands_counted(self.get_queryset()).get(pk=session.pk)
        return Response(self.get_serializer(session).data, status=code)

    def _player(self, session, player_id, field="player") -> Player:
        """A player of the table's club (another id names nobody: a 404 naming ``field``)."""
        player = session.club.players.filter(pk=player_id).first()
        if player is None:
            raise not_found(field, _("No such player in this club."))
        return player

    @extend_schema(request=TableSessionCreateSerializer, responses={201: TableSessionSerializer})
    def create(self, request, *args, **kwargs):
        data = TableSessionCreateSerializer(data=request.data, context={"request": request})
        data.is_valid(raise_exception=True)
        fields = data.validated_data
        club = fields["club"]
        self.require(club, self.create_role)
        players = {p.pk: p for p in club.players.filter(pk__in=fields["seats"])}
        missing = [pk for pk in fields["seats"] if pk not in players]
        if missing:
            raise not_found("seats", _("No such player in this club: %(ids)s.") % {"ids": missing})
        pair = {}
        for name in ("first_dealer", "first_opponent"):
            pk = fields.get(name)
            if pk is not None:
                pair[name] = players.get(pk) or club.players.filter(pk=pk).first()
                if pair[name] is None:
                    raise not_found(name, _("No such player in this club."))
        session = services.open_session(
            club=club,
            by=request.user,
            name=fields["name"],
            seats=[players[pk] for pk in fields["seats"]],
            point_value=fields.get("point_value"),
            date=fields.get("date"),
            seed=fields.get("seed"),
            **pair,
        )
        return self._session_response(session, status.HTTP_201_CREATED)

    @extend_schema(
        request={"multipart/form-data": HandImportSerializer},
        responses={200: ImportReportSerializer},
    )
    @action(
        detail=False, methods=["post"], url_path="import", parser_classes=parsers_of("multipart")
    )
    def import_hands(self, request):
        """Import past hands (scorers and admins): JSON lines of RULES.md's Singapore records
        with their stakes, checked by the rules engine; the refused lines come back with
        their errors. At most 20,000 lines and 5 MB an upload (``SINGAPORE_IMPORT_MAX_MB``;
        ``manage.py import_hands`` for more);
        the same file again imports nothing twice. Lines out of the rotation's turn are
        refused (naming who deals) unless an admin sends ``allow_out_of_turn``: then they go
        in, marked, listed in ``out_of_turn``. A multipart body: ``players`` is a part
        holding JSON."""
        data = HandImportSerializer(data=request.data, context={"request": request})
        data.is_valid(raise_exception=True)
        fields = data.validated_data
        club = fields["club"]
        self.require(club, Role.SCORER)
        session = None
        if fields.get("session") is not None:
            session = TableSession.objects.filter(pk=fields["session"], club=club).first()
            if session is None:
                raise not_found("session", _("No such table in this club."))
        limit = settings.SINGAPORE_IMPORT_MAX_BYTES
        if fields["file"].size > limit:
            raise serializers.ValidationError(
                {"file": [_("At most %(size)s an upload.") % {"size": filesizeformat(limit)}]}
            )
        try:
            text = fields["file"].read().decode("utf-8")
        except UnicodeDecodeError:
            raise serializers.ValidationError(
                {"file": [_("The file is not UTF-8 text.")]}
            ) from None
        lines = text.splitlines()
        if len(lines) > IMPORT_MAX_LINES:
            raise serializers.ValidationError(
                {"file": [_("At most %(n)s lines an upload.") % {"n": f"{IMPORT_MAX_LINES:,}"}]}
            )
        report = import_hands(
            club=club,
            lines=lines,
            by=request.user,
            players=fields.get("players") or {},
            session=session,
            table=fields.get("table") or DEFAULT_TABLE,
            point_value=fields.get("point_value"),
            create_guests=fields["create_guests"],
            source=(fields["file"].name or "upload")[:200],
            workers=1,
            allow_out_of_turn=fields["allow_out_of_turn"],
        )
        return Response(report.as_dict())

    @extend_schema(request=None, responses=TableSessionSerializer)
    @action(detail=True, methods=["post"])
    def close(self, request, pk=None):
        """Close the table (scorers and admins)."""
        session = services.close_table(session=self.get_object(), by=request.user)
        return self._session_response(session)

    @extend_schema(request=None, responses=TableSessionSerializer)
    @action(detail=True, methods=["post"])
    def reopen(self, request, pk=None):
        """Reopen a closed table the same night (admins: within 12 hours of its closing)."""
        session = services.reopen_table(session=self.get_object(), by=request.user)
        return self._session_response(session)

    # --- Seats

    @extend_schema(request=TableJoinSerializer, responses={201: TableSessionSerializer})
    @action(detail=True, methods=["post"])
    def seats(self, request, pk=None):
        """Seat a player at the end of the rotation (scorers; a member seats themself)."""
        session = self.get_object()
        data = TableJoinSerializer(data=request.data, context={"request": request})
        data.is_valid(raise_exception=True)
        player = self._player(session, data.validated_data["player"])
        services.join_table(
            session=session, player=player, by=request.user, move=data.validated_data["move"]
        )
        return self._session_response(session, status.HTTP_201_CREATED)

    def _seat_change(self, request, pk, player_id, service):
        session = self.get_object()
        player = self._player(session, player_id)
        service(session=session, player=player, by=request.user)
        return self._session_response(session)

    @extend_schema(parameters=[PLAYER_ID], request=None, responses=TableSessionSerializer)
    @action(detail=True, methods=["post"], url_path=r"seats/(?P<player_id>\d+)/leave")
    def leave(self, request, pk=None, player_id=None):
        """The player leaves the table (the seat stays in the history)."""
        return self._seat_change(request, pk, player_id, services.leave_table)

    @extend_schema(parameters=[PLAYER_ID], request=None, responses=TableSessionSerializer)
    @action(detail=True, methods=["post"], url_path=r"seats/(?P<player_id>\d+)/sit-out")
    def sit_out(self, request, pk=None, player_id=None):
        """The player sits out: skipped by the rotation, may still cover and bet."""
        return self._seat_change(request, pk, player_id, services.sit_out)

    @extend_schema(parameters=[PLAYER_ID], request=None, responses=TableSessionSerializer)
    @action(detail=True, methods=["post"], url_path=r"seats/(?P<player_id>\d+)/return")
    def back(self, request, pk=None, player_id=None):
        """The player comes back into the rotation."""
        return self._seat_change(request, pk, player_id, services.return_to_play)

    # --- Hands

    def _hands(self, session):
        return with_history(session.hands.all()).order_by("number")

    def _hand(self, session, hand_id) -> Hand:
        hand = self._hands(session).filter(pk=hand_id).first()
        if hand is None:
            raise NotFound()
        hand.session = session
        return hand

    def _sees_money(self, session) -> bool:
        access = self.club_access  # a write's, checked as the table was read
        if access is None or access.club.pk != session.club_id:
            access = access_club(self.request.user, session.club)
        return access.sees_money()

    def _hand_response(self, session, hand, code=status.HTTP_200_OK, *, new=False):
        """The hand as it is now: read again, or (``new``: just made, nothing of its
        history read yet) its history read onto it (three queries)."""
        if new:
            prefetch_related_objects([hand], *history_lookups())
            hand.session = session
        else:
            hand = self._hand(session, hand.pk)
        return Response(hand_data(hand, money=self._sees_money(session)), status=code)

    @extend_schema(
        methods=["GET"],
        responses=HandSerializer(many=True),
        description=_("The table's hands in order."),
    )
    @recorded_once(
        HandSerializer,
        methods=["POST"],
        request=HandCreateSerializer,
        key=HAND_KEY,
        already=gettext_lazy("A preview, or a hand already recorded"),
    )
    @action(detail=True, methods=["get", "post"], pagination_class=None)
    def hands(self, request, pk=None):
        """GET: the table's hands in order. POST: record a hand (scorers and admins, in force
        at once; one of the two players, for the other to confirm). A hand the rules refuse
        is a 400 with the engine's ``code``, ``message`` and ``at``; out of turn (the pair,
        or who deals: the winner stays and deals) is a 409 naming who deals, unless an admin
        gives ``override``, a reason (403 from anyone else); ``preview`` saves nothing."""
        session = self.get_object()
        if request.method == "GET":
            hands = list(self._hands(session))
            for hand in hands:
                hand.session = session
            money = self._sees_money(session)
            return Response([hand_data(hand, money=money) for hand in hands])
        body = HandCreateSerializer(data=request.data, context={"request": request})
        body.is_valid(raise_exception=True)
        fields = body.validated_data
        # The players by their ids: found among the table's seats, read under its lock.
        dealer, opponent = fields["dealer"], fields["opponent"]
        payload = result_in(request.data)
        # The answer is read in the write's own transaction: a connection lost right after
        # the commit costs only the after-commit sending (which the outbox keeps).
        with transaction.atomic():
            recorded = services.record_hand.within(
                session=session,
                by=request.user,
                dealer=dealer,
                opponent=opponent,
                payload=payload,
                override=fields.get("override"),
                preview=fields["preview"],
                key=once.api_key(request),
                key_hash=once.fingerprint(request.data),
                access=self.club_access,  # checked as the table was read
            )
            if recorded.hand is None:
                money = self._sees_money(session)
                data = preview_data(session, dealer, opponent, fields, recorded, money=money)
                return Response(data)
            if recorded.replayed:
                return self._hand_response(session, recorded.hand)
            return self._hand_response(session, recorded.hand, status.HTTP_201_CREATED, new=True)

    @extend_schema(parameters=[HAND_ID], responses=HandSerializer)
    @action(detail=True, methods=["get"], url_path=r"hands/(?P<hand_id>\d+)")
    def hand(self, request, pk=None, hand_id=None):
        """One hand, with its history."""
        session = self.get_object()
        found = self._hand(session, hand_id)
        return Response(hand_data(found, money=self._sees_money(session)))

    # --- The result cycle's steps on a hand (``result_steps``)

    def step_subject(self, request, pk=None, hand_id=None):
        return self._hand(self.get_object(), hand_id)

    def step_answer(self, subject, step, code=status.HTTP_200_OK, taken=None):
        return self._hand_response(subject.session, subject, code)

    def step_payload(self, step, data, request):
        raw = request.data if step == "correct" else None
        if step == "decide" and data.get("result") is not None:
            raw = request.data.get("result") if isinstance(request.data, dict) else None
        if not isinstance(raw, dict):
            return None
        return result_in(raw)


def _with_hands_counted(tables):
    """The tables with their hands counted, as :class:`TableSessionSerializer` shows them."""
    return tables.annotate(n_hands=Count("hands"))


def register(router) -> None:
    router.register("table-sessions", TableSessionViewSet, basename="table-session")
