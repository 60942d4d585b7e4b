"""The ledger's REST API (``/api/v1/ledger/``): balances, who owes whom, the settle-up plan,
payments and statements. The paths and fields are a contract others script against.

- ``GET balances/?club=<slug>&unit=points|<currency>[&session=<id>]`` ->
  ``[{"player": id, "name": ..., "balance": ...}]``
- ``GET settle-up/?...same...`` -> ``{"payments": [{"from": id, "to": id, "amount": ...}]}``
- ``GET debts/?...same...`` -> ``{"debts": [{"from": id, "to": id, "amount": ...}]}``
  (``from`` owes ``to``)
- ``payments/``: list (filters ``club``, ``status``, ``unit``), create
  ``{"club", "from", "to", "amount", "unit"}``, ``POST payments/{id}/confirm/`` (409 once
  decided), ``POST payments/{id}/cancel/``
- ``GET statements/{player_id}/?unit=...[&session=<id>]``

Money amounts are strings with two decimals (``"12.50"``), points integers. Who may: the
members of the club see its ledger (an outsider of a public club gets 403, of a private one
404, like the pages, through ``clubs.access``); a person always sees their own statement.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.utils.translation import gettext_lazy
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

from clubs.access import access_club
from clubs.api import ClubAccessMixin, ClubSlugField
from clubs.models import Player, Role
from ledger import services
from ledger.amounts import POINTS, from_minor, validate_unit
from ledger.models import Payment


def amount_json(minor: int, unit: str):
    """Money as a two-decimal string (exact), points as an integer."""
    amount = from_minor(minor, unit)
    return str(amount) if unit != POINTS else amount


@extend_schema_field(
    {
        "oneOf": [{"type": "string", "example": "12.50"}, {"type": "number"}],
        "description": "Money with at most two decimals (a string keeps it exact), "
        "points a whole number.",
    }
)
class AmountField(serializers.Field):
    """An amount as a string or a JSON number; its unit decides what is allowed
    (``ledger.amounts.to_minor``, in the service)."""

    default_error_messages = {"invalid": gettext_lazy("Give the amount as a decimal number.")}

    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, str | int | float):
            self.fail("invalid")
        if isinstance(data, str) and len(data) > 40:
            self.fail("invalid")
        try:
            # A JSON number arrives as a float: its shortest repr is what the client wrote.
            return Decimal(repr(data)) if isinstance(data, float) else Decimal(str(data).strip())
        except InvalidOperation:
            self.fail("invalid")

    def to_representation(self, value):
        return value


# --- Balances, debts, the settle-up plan ------------------------------------------------------


class LedgerQuerySerializer(serializers.Serializer):
    club = serializers.SlugField(max_length=60)
    unit = serializers.CharField(max_length=10)
    session = serializers.IntegerField(min_value=1, max_value=2**63 - 1, required=False)

    def validate_unit(self, value: str) -> str:
        try:
            return validate_unit(value.strip())
        except DjangoValidationError as error:
            raise serializers.ValidationError(error.message_dict["unit"]) from error


QUERY_PARAMETERS = [
    OpenApiParameter("club", str, required=True, description="The club's slug."),
    OpenApiParameter("unit", str, required=True, description='"points" or an ISO 4217 code.'),
    OpenApiParameter("session", int, description="Only the postings of this session."),
]


class LedgerQueryMixin:
    permission_classes = [permissions.IsAuthenticated]

    def ledger_query(self, request):
        """(club, unit, scope) from the query string: 400 naming a bad parameter, then the
        club's access check: 404 if the user may not see it, 403 if not a member."""
        query = LedgerQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        data = query.validated_data
        access = access_club(request.user, data["club"], at_least=Role.MEMBER)
        scope = services.scope_of_session(data["session"]) if "session" in data else None
        return access.club, data["unit"], scope


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
        club, unit, scope = self.ledger_query(request)
        return Response(
            [
                {
                    "player": b.player.pk,
                    "name": b.player.display_name,
                    "balance": amount_json(b.minor, unit),
                }
                for b in services.balances(club=club, unit=unit, scope=scope)
            ]
        )


class SettleUpViewSet(LedgerQueryMixin, viewsets.ViewSet):
    @extend_schema(
        parameters=QUERY_PARAMETERS,
        responses=inline_serializer(
            "LedgerSettleUp",
            {"payments": inline_serializer("LedgerPlannedPayment", TRANSFER, many=True)},
        ),
    )
    def list(self, request):
        """The fewest payments that clear every balance: ``from`` pays ``to``."""
        club, unit, scope = self.ledger_query(request)
        return Response(
            {"payments": _transfers(services.settle_up_plan(club=club, unit=unit, scope=scope))}
        )


class DebtViewSet(LedgerQueryMixin, viewsets.ViewSet):
    @extend_schema(
        parameters=QUERY_PARAMETERS,
        responses=inline_serializer(
            "LedgerDebts", {"debts": inline_serializer("LedgerDebt", TRANSFER, many=True)}
        ),
    )
    def list(self, request):
        """Who owes whom, pair by pair (netted): ``from`` owes ``to``."""
        club, unit, scope = self.ledger_query(request)
        return Response(
            {"debts": _transfers(services.net_debts(club=club, unit=unit, scope=scope))}
        )


# --- Statements ------------------------------------------------------------------------------


class StatementQuerySerializer(serializers.Serializer):
    unit = serializers.CharField(max_length=10)
    session = serializers.IntegerField(min_value=1, max_value=2**63 - 1, required=False)

    validate_unit = LedgerQuerySerializer.validate_unit


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
            access_club(request.user, player.club, at_least=Role.MEMBER)
        query = StatementQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        data = query.validated_data
        scope = services.scope_of_session(data["session"]) if "session" in data else None
        found = services.statement(player=player, unit=data["unit"], scope=scope)
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
    """A player named by id, among the players the requesting user may see."""

    def get_queryset(self):
        return Player.objects.visible_to(self.context["request"].user)


class PaymentSerializer(serializers.ModelSerializer):
    club = ClubSlugField()
    amount = AmountField()
    recorded_by = serializers.SlugRelatedField(slug_field="username", read_only=True)
    decided_by = serializers.SlugRelatedField(slug_field="username", read_only=True)

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
        read_only_fields = [
            "id",
            "status",
            "recorded_by",
            "recorded_at",
            "decided_by",
            "decided_at",
            "transaction",
        ]
        extra_kwargs = {"unit": {"help_text": gettext_lazy('"points" or an ISO 4217 code.')}}

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


def _api_error(error: DjangoValidationError) -> serializers.ValidationError:
    if hasattr(error, "error_dict"):
        return serializers.ValidationError(
            {SERVICE_FIELDS.get(k, k): v for k, v in error.message_dict.items()}
        )
    return serializers.ValidationError({"non_field_errors": error.messages})


class Conflict(exceptions.APIException):
    status_code = status.HTTP_409_CONFLICT
    default_code = "conflict"


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

    def get_queryset(self):
        return (
            super()
            .get_queryset()
            .select_related("club", "payer", "payee", "recorded_by", "decided_by")
        )

    def role_to_write(self, obj) -> str | None:
        return Role.MEMBER  # who exactly (payee, payer, admin) the services decide

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
            payment = decide(payment=payment, by=request.user)
        except services.AlreadyDecided as error:
            raise Conflict(error.messages[0]) from error
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
