"""Singapore tables' REST API: ``/api/v1/table-sessions/`` with its seats and hands.

The paths and fields are a contract others script against. Everything goes
through ``matches.singapore.services`` and the one access check: a table is seen by the
club's members (anyone else: 404); scorers and admins open and close tables, seat people
and record hands in force; a member seats themself and reports a hand they play in.
"""

from __future__ import annotations

from django.conf import settings
from django.db.models import Count
from django.template.defaultfilters import filesizeformat
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django_filters import rest_framework as filters
from drf_spectacular.utils import (
    OpenApiParameter,
    extend_schema,
)
from rest_framework import mixins, permissions, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound
from rest_framework.response import Response

import plumbing.once.sent as once
from clubs.access import access_club
from clubs.api import ClubAccessMixin
from clubs.models import Player, Role
from matches.results.api import result_steps
from matches.singapore import services, turns
from matches.singapore.adapter import SingaporeAdapter
from matches.singapore.importer import DEFAULT_TABLE, import_hands
from matches.singapore.models import Hand, TableSession
from matches.singapore.payload import with_history
from matches.singapore.serializers import (
    IMPORT_MAX_LINES,
    HandCorrectSerializer,
    HandCreateSerializer,
    HandDecideSerializer,
    HandImportSerializer,
    HandReasonSerializer,
    HandSerializer,
    ImportReportSerializer,
    TableJoinSerializer,
    TableSessionCreateSerializer,
    TableSessionSerializer,
    hand_data,
    preview_data,
    result_in,
)
from plumbing.errors import not_found
from plumbing.schema import recorded_once
from plumbing.strict import IdFilter, json_parsers, parsers_of

# --- Filters --------------------------------------------------------------------------------


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
        services.join_table(session=session, player=player, by=request.user)
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

    def _hand_response(self, session, hand, code=status.HTTP_200_OK):
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
        recorded = services.record_hand(
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
            return Response(preview_data(session, dealer, opponent, fields, recorded, money=money))
        code = status.HTTP_200_OK if recorded.replayed else status.HTTP_201_CREATED
        return self._hand_response(session, recorded.hand, code)

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
