"""The ledger's REST API (``/api/v1/ledger/``): balances, who owes whom, the settle-up plan,
payments and statements. The paths and fields are a contract others script against.

- ``GET balances/?club=<slug>&unit=points|<currency>[&session=<id>]`` ->
  ``[{"player": id, "name": ..., "balance": ...}]``
- ``GET settle-up/?...same...`` -> ``{"payments": [{"from": id, "to": id, "amount": ...}]}``
- ``GET debts/?...same...`` -> ``{"debts": [{"from": id, "to": id, "amount": ..., "paid":
  ..., "hands": [{"source", "description", "url", "amount"}]}]}``: ``from`` owes ``to``,
  the legs of the two netted, less what payments cleared (``paid``); ``hands`` are the
  postings behind it, one per source (a hand), in the debt's direction
- ``payments/``: list (filters ``club``, ``status``, ``unit``), create
  ``{"club", "from", "to", "amount", "unit"}``, ``POST payments/{id}/confirm/`` (409 once
  decided), ``POST payments/{id}/cancel/``
- ``GET statements/{player_id}/?unit=...[&session=<id>]``

Money amounts are strings with two decimals (``"12.50"``), points integers. Who may: the
members of the club see its ledger (an outsider of a public club gets 403, of a private one
404, like the pages, through ``clubs.access``); a person always sees their own statement.
A club that hides money from its members (``members_see_money`` off) shows a member only
their own figures: balances, debts, plan and payments with them in it, their statement (any
other is a 403); its admins see everyone's (``ledger.privacy``).
"""

from __future__ import annotations

import re
from decimal import Decimal

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.utils.translation import gettext, gettext_lazy
from django_filters import rest_framework as filters
from drf_spectacular.utils import (
    OpenApiParameter,
    extend_schema,
    extend_schema_field,
    inline_serializer,
)
from rest_framework import exceptions, mixins, permissions, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

import plumbing.once.sent as once
from clubs.access import access_club
from clubs.api import ClubAccessMixin, ClubSlugField
from clubs.models import CURRENCY_CODES, Player, Role
from ledger import privacy, services
from ledger import reads as ledger_reads
from ledger.amounts import POINTS, from_minor
from ledger.models import Payment
from plumbing.schema import recorded_once
from plumbing.strict import StrictModelSerializer, StrictQuerySerializer, query_data


def amount_json(minor: int, unit: str):
    """Money as a two-decimal string (exact), points as an integer."""
    amount = from_minor(minor, unit)
    return str(amount) if unit != POINTS else amount


# A payment's amount as a string: more than zero, at most two decimal places (the service
# refuses places a points payment cannot have); as a JSON integer, a whole amount.
AMOUNT_PATTERN = r"^(?:[1-9][0-9]{0,9}(?:\.[0-9]{1,2})?|0\.(?:0[1-9]|[1-9][0-9]?))$"
AMOUNT_MAX = 10**10 - 1  # whole units, within the ledger's bound (ledger.amounts.MAX_MINOR)
PAYMENT_KEY = gettext_lazy(
    "Optional: a client's key for this payment, at most 255 characters (longer "
    "is a 400). Sent again with the same body, it answers the payment already "
    "recorded (200) instead of recording another; with another body it is a "
    "422 naming the key, never the earlier payment."
)


@extend_schema_field(
    {
        "oneOf": [
            {"type": "string", "pattern": AMOUNT_PATTERN, "example": "12.50"},
            {"type": "integer", "minimum": 1, "maximum": AMOUNT_MAX},
        ],
        "description": "More than zero: a string with at most two decimals (exact), or a "
        "whole number. Points are whole numbers.",
    }
)
class AmountField(serializers.Field):
    """An amount as the schema documents it: a string such as ``"12.50"`` or a JSON integer;
    never a JSON fraction, which is not exact (its unit decides the rest:
    ``ledger.amounts.to_minor``, in the service)."""

    default_error_messages = {
        "invalid": gettext_lazy(
            'Give the amount as a string such as "12.50", more than zero with at most two '
            "decimals, or as a whole number."
        )
    }

    def to_internal_value(self, data):
        if isinstance(data, int) and not isinstance(data, bool) and 1 <= data <= AMOUNT_MAX:
            return Decimal(data)
        if isinstance(data, str) and re.fullmatch(AMOUNT_PATTERN, data):
            return Decimal(data)
        self.fail("invalid")

    def to_representation(self, value):
        return value


# --- Balances, debts, the settle-up plan ------------------------------------------------------


UNITS = [POINTS, *CURRENCY_CODES]
UNIT_ERROR = gettext_lazy(
    "{input} is neither “points” nor an ISO 4217 currency code (such as EUR)."
)


class StatementQuerySerializer(StrictQuerySerializer):
    unit = serializers.ChoiceField(choices=UNITS, error_messages={"invalid_choice": UNIT_ERROR})
    session = serializers.IntegerField(min_value=1, max_value=2**63 - 1, required=False)


class LedgerQuerySerializer(StatementQuerySerializer):
    club = serializers.SlugField(max_length=60)


QUERY_PARAMETERS = [
    OpenApiParameter(
        "club",
        {"type": "string", "pattern": r"^[-a-zA-Z0-9_]+$", "maxLength": 60},
        required=True,
        description="The club's slug.",
    ),
    OpenApiParameter(
        "unit",
        {"type": "string", "enum": UNITS},
        required=True,
        description='"points" or an ISO 4217 code.',
    ),
    OpenApiParameter(
        "session",
        {"type": "integer", "minimum": 1, "maximum": 2**63 - 1},
        description="Only the postings of this session.",
    ),
]


class LedgerQueryMixin:
    permission_classes = [permissions.IsAuthenticated]
    api_errors = {"list": {404}}  # a club the user may not see, named in the query

    def ledger_query(self, request):
        """(club, unit, scope, shown) from the query string: 400 naming a bad parameter,
        then the club's access check: 404 if the user may not see it, 403 if not a member;
        ``shown``: whose figures the user sees (``ledger.privacy``; None: everyone's)."""
        query = LedgerQuerySerializer(data=query_data(request))
        query.is_valid(raise_exception=True)
        data = query.validated_data
        access = access_club(request.user, data["club"], at_least=Role.MEMBER)
        scope = services.scope_of_session(data["session"]) if "session" in data else None
        return access.club, data["unit"], scope, privacy.shown_players(access)


def _transfers(debts) -> list[dict]:
    return [
        {"from": d.debtor.pk, "to": d.creditor.pk, "amount": amount_json(d.minor, d.unit)}
        for d in debts
    ]


TRANSFER = {
    "from": serializers.IntegerField(),
    "to": serializers.IntegerField(),
    "amount": serializers.CharField(help_text="Money as a string (12.50), points as an integer."),
}


class BalanceViewSet(LedgerQueryMixin, viewsets.ViewSet):
    @extend_schema(
        parameters=QUERY_PARAMETERS,
        responses=inline_serializer(
            "LedgerBalance",
            {
                "player": serializers.IntegerField(),
                "name": serializers.CharField(),
                "balance": serializers.CharField(
                    help_text="Money as a string (12.50), points as an integer; positive: "
                    "the others owe this person."
                ),
            },
            many=True,
        ),
    )
    def list(self, request):
        """Each person's balance in a unit (and session): positive when owed."""
        club, unit, scope, shown = self.ledger_query(request)
        found = ledger_reads.balances(club=club, unit=unit, scope=scope)
        return Response(
            [
                {
                    "player": b.player.pk,
                    "name": b.player.display_name,
                    "balance": amount_json(b.minor, unit),
                }
                for b in privacy.balances(found, shown)
            ]
        )


class SettleUpViewSet(LedgerQueryMixin, viewsets.ViewSet):
    answers_one_object = True  # one plan, not a list of them

    @extend_schema(
        parameters=QUERY_PARAMETERS,
        responses=inline_serializer(
            "LedgerSettleUp",
            {"payments": inline_serializer("LedgerPlannedPayment", TRANSFER, many=True)},
        ),
    )
    def list(self, request):
        """The fewest payments that clear every balance: ``from`` pays ``to``."""
        club, unit, scope, shown = self.ledger_query(request)
        plan = ledger_reads.settle_up_plan(club=club, unit=unit, scope=scope)
        return Response({"payments": _transfers(privacy.debts(plan, shown))})


DEBT_PART = {
    "source": serializers.CharField(
        help_text="The postings' source label (hand:42), or their key where they have none."
    ),
    "kind": serializers.CharField(
        help_text='"posting", or "carry" for a guest\'s balance carried over to a member.'
    ),
    "description": serializers.CharField(),
    "url": serializers.CharField(allow_null=True),
    "amount": serializers.CharField(
        help_text="What it adds to the debt (negative: what it takes off); money as a string, "
        "points as an integer."
    ),
}


class DebtViewSet(LedgerQueryMixin, viewsets.ViewSet):
    answers_one_object = True

    @extend_schema(
        parameters=QUERY_PARAMETERS,
        responses=inline_serializer(
            "LedgerDebts",
            {
                "debts": inline_serializer(
                    "LedgerDebt",
                    {
                        **TRANSFER,
                        "paid": serializers.CharField(
                            help_text="What payments cleared of it: between the two first, "
                            "then through chains of debts (club-wide only: payments have "
                            "no session)."
                        ),
                        "hands": inline_serializer("LedgerDebtHand", DEBT_PART, many=True),
                    },
                    many=True,
                )
            },
        ),
    )
    def list(self, request):
        """Who owes whom, pair by pair: the debts the postings made between the two (each
        cover, each side bet), netted, less the payments; with the hands behind each."""
        club, unit, scope, shown = self.ledger_query(request)
        debts = privacy.debts(ledger_reads.net_debts(club=club, unit=unit, scope=scope), shown)
        return Response(
            {
                "debts": [
                    {
                        "from": d.debtor.pk,
                        "to": d.creditor.pk,
                        "amount": amount_json(d.minor, unit),
                        "paid": amount_json(d.paid_minor, unit),
                        "hands": [
                            {
                                "source": part.label,
                                "kind": part.kind,
                                "description": part.text,
                                "url": request.build_absolute_uri(part.url) if part.url else None,
                                "amount": amount_json(part.minor, unit),
                            }
                            for part in d.parts
                        ],
                    }
                    for d in debts
                ]
            }
        )


# --- Statements ------------------------------------------------------------------------------


class StatementViewSet(viewsets.ViewSet):
    permission_classes = [permissions.IsAuthenticated]
    lookup_value_regex = r"[0-9]{1,18}"  # anything else is no player: a 404

    @extend_schema(
        parameters=[
            OpenApiParameter("id", int, OpenApiParameter.PATH, description="The player's id."),
            *QUERY_PARAMETERS[1:],
        ],
        responses=inline_serializer(
            "LedgerStatement",
            {
                "player": serializers.IntegerField(),
                "name": serializers.CharField(),
                "club": serializers.CharField(),
                "unit": serializers.CharField(),
                "balance": serializers.CharField(),
                "entries": inline_serializer(
                    "LedgerStatementLine",
                    {
                        "transaction": serializers.IntegerField(),
                        "at": serializers.DateTimeField(),
                        "kind": serializers.CharField(),
                        "description": serializers.CharField(),
                        "source": serializers.CharField(),
                        "url": serializers.CharField(allow_null=True),
                        "amount": serializers.CharField(),
                        "balance": serializers.CharField(),
                    },
                    many=True,
                ),
            },
        ),
    )
    def retrieve(self, request, pk=None):
        """Every entry of a person with what it came from and the running balance."""
        player = Player.objects.select_related("club").filter(pk=int(pk)).first()
        if player is None:
            raise exceptions.NotFound()
        if player.user_id != request.user.pk:  # a person always sees their own statement
            access = access_club(request.user, player.club, at_least=Role.MEMBER)
            if not access.sees_money(player):
                raise exceptions.PermissionDenied(
                    gettext("Only the admins see other people's money in this club.")
                )
        query = StatementQuerySerializer(data=query_data(request))
        query.is_valid(raise_exception=True)
        data = query.validated_data
        scope = services.scope_of_session(data["session"]) if "session" in data else None
        found = ledger_reads.statement(player=player, unit=data["unit"], scope=scope)
        return Response(
            {
                "player": player.pk,
                "name": player.display_name,
                "club": player.club.slug,
                "unit": found.unit,
                "balance": amount_json(found.balance_minor, found.unit),
                "entries": [
                    {
                        "transaction": line.transaction.pk,
                        "at": serializers.DateTimeField().to_representation(line.transaction.at),
                        "kind": line.transaction.kind,
                        "description": line.description,
                        "source": line.transaction.source,
                        "url": request.build_absolute_uri(line.url) if line.url else None,
                        "amount": amount_json(line.minor, found.unit),
                        "balance": amount_json(line.balance_minor, found.unit),
                    }
                    for line in found.lines
                ],
            }
        )


# --- Payments ------------------------------------------------------------------------------


class ClubPlayerField(serializers.PrimaryKeyRelatedField):
    """A player named by id, among the players the requesting user may see (one merged into
    another is gone: a 404, as in the players' API)."""

    def get_queryset(self):
        return Player.objects.visible_to(self.context["request"].user).active()


class PaymentSerializer(StrictModelSerializer):
    club = ClubSlugField()
    amount = AmountField()
    unit = serializers.ChoiceField(
        choices=UNITS, help_text=gettext_lazy('"points" or an ISO 4217 code.')
    )
    recorded_by = serializers.SlugRelatedField(
        slug_field="username",
        read_only=True,
        allow_null=True,
        help_text=gettext_lazy("The username of who recorded it (null: an account deleted since)."),
    )
    decided_by = serializers.SlugRelatedField(
        slug_field="username",
        read_only=True,
        allow_null=True,
        help_text=gettext_lazy(
            "The username of who confirmed or cancelled it (null while pending)."
        ),
    )

    class Meta:
        model = Payment
        fields = [
            "id",
            "club",
            "from",
            "to",
            "amount",
            "unit",
            "status",
            "recorded_by",
            "recorded_at",
            "decided_by",
            "decided_at",
            "transaction",
        ]
        read_only_fields = ["id", *fields[6:]]  # all but what is sent

    def to_representation(self, payment):
        data = super().to_representation(payment)
        data["amount"] = amount_json(payment.amount_minor, payment.unit)
        return data


# "from" is a Python keyword: the two people are declared here rather than as attributes.
PaymentSerializer._declared_fields["from"] = ClubPlayerField(
    source="payer", help_text=gettext_lazy("The id of the player who paid.")
)
PaymentSerializer._declared_fields["to"] = ClubPlayerField(
    source="payee", help_text=gettext_lazy("The id of the player who was paid.")
)


class PaymentFilter(filters.FilterSet):
    club = filters.CharFilter(field_name="club__slug", label=gettext_lazy("Club (slug)"))

    class Meta:
        model = Payment
        fields = ["club", "status", "unit"]


SERVICE_FIELDS = {"payer": "from", "payee": "to"}


def _api_error(error: DjangoValidationError) -> DjangoValidationError:
    """The service's refusal in the API's field names (``payer`` is ``from``), each message
    keeping its code: a player who is not the club's is a 404 (``plumbing.api``)."""
    if not hasattr(error, "error_dict"):
        return error
    return DjangoValidationError({SERVICE_FIELDS.get(k, k): v for k, v in error.error_dict.items()})


class PaymentViewSet(
    ClubAccessMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    viewsets.GenericViewSet,
):
    """Payments between people of your clubs: the payer records one, the payee (or an admin)
    confirms it and it counts in the ledger."""

    model = Payment
    queryset = Payment.objects.none()  # the schema's model; get_queryset filters
    serializer_class = PaymentSerializer
    permission_classes = [permissions.IsAuthenticated]
    filterset_class = PaymentFilter
    ordering_fields = ["recorded_at", "status"]
    # Decided already; an Idempotency-Key sent again with another body.
    api_errors = {"confirm": {409}, "cancel": {409}, "create": {422}}

    def get_queryset(self):
        return (
            super()
            .get_queryset()
            .select_related("club", "payer", "payee", "recorded_by", "decided_by")
        )

    def role_to_write(self, obj) -> str | None:
        return Role.MEMBER  # who exactly (payee, payer, admin) the services decide

    @recorded_once(
        PaymentSerializer, key=PAYMENT_KEY, already=gettext_lazy("A payment already recorded")
    )
    def create(self, request, *args, **kwargs):
        """The payer (or a scorer, an admin) records a payment: pending until the payee or
        an admin confirms it. An ``Idempotency-Key`` records it once."""
        key = once.api_key(request)
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        with once.api_sent_once(request, scope="ledger.payment", key=key) as sent:
            if not sent.before:
                self.perform_create(serializer)
                sent.keep(serializer.instance.pk)
        if sent.before:
            payment = self.get_queryset().filter(pk=sent.before).first()
            if payment is None:  # gone from what the user may see since
                raise exceptions.NotFound()
            return Response(self.get_serializer(payment).data)
        return Response(serializer.data, status=status.HTTP_201_CREATED)

    def perform_create(self, serializer):
        data = serializer.validated_data
        self.require(data["club"], Role.MEMBER)
        try:
            serializer.instance = services.record_payment(
                club=data["club"],
                payer=data["payer"],
                payee=data["payee"],
                amount=data["amount"],
                unit=data["unit"],
                by=self.request.user,
            )
        except DjangoPermissionDenied as denied:
            self.permission_denied(self.request, message=str(denied))
        except DjangoValidationError as error:
            raise _api_error(error) from error

    def _decide(self, request, decide):
        payment = self.get_object()
        try:
            payment = decide(payment=payment, by=request.user)  # AlreadyDecided: a 409
        except DjangoPermissionDenied as denied:
            self.permission_denied(request, message=str(denied))
        return Response(self.get_serializer(payment).data)

    @extend_schema(request=None, responses={200: PaymentSerializer})
    @action(detail=True, methods=["post"])
    def confirm(self, request, pk=None):
        """The payee (or an admin) confirms the payment: it posts to the ledger. 409 if it
        was already confirmed or cancelled."""
        return self._decide(request, services.confirm_payment)

    @extend_schema(request=None, responses={200: PaymentSerializer})
    @action(detail=True, methods=["post"])
    def cancel(self, request, pk=None):
        """Withdraw a pending payment (either person, whoever recorded it, or an admin)."""
        return self._decide(request, services.cancel_payment)
