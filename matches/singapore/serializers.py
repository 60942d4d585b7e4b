"""The Singapore API's bodies and answers (``matches.singapore.api``): tables, seats, the
bulk import, and hands with their history and transfers."""

from __future__ import annotations

import json
from decimal import Decimal

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from drf_spectacular.utils import (
    extend_schema_field,
)
from rest_framework import serializers

from clubs.api import ClubSlugField
from matches.boards.api import PlayerNameSerializer
from matches.singapore import turns
from matches.singapore.models import Hand, TableSession
from matches.singapore.payload import QUOTA_MAX, current_outcome, views_of
from plumbing.strict import IdList, StrictSerializer

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
