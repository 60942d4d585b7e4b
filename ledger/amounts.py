"""Units and amounts: what the ledger counts in, and how an amount is stored exactly.

A unit is ``"points"`` or an ISO 4217 currency code (``"EUR"``). Points are integers; money
is ``Decimal`` with exactly two decimal places, whatever the currency (the club's point
value has two). Nothing is ever rounded: an amount with more places is refused.

**Storage**: every amount is stored as a whole number of *minor units* in a 64-bit integer
column (``amount_minor``): cents for money, points for points. Sums of integers are exact on
PostgreSQL and on SQLite alike (SQLite keeps a ``DecimalField`` as a floating-point REAL, so
``SUM`` of 0.10 ten times is not 1.00 there). The conversion happens here and nowhere else.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from decimal import Decimal, InvalidOperation

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

from clubs.models import validate_currency

POINTS = "points"
CENTS = 100
# The largest amount of one entry or payment, in minor units (ten billion euros, or points):
# sums of many stay far inside a 64-bit integer.
MAX_MINOR = 10**12

Amount = Decimal | int


def validate_unit(value: object) -> str:
    """``"points"`` or an ISO 4217 code; raises ``ValidationError`` naming ``unit``."""
    if value == POINTS:
        return POINTS
    try:
        validate_currency(value)
    except ValidationError as error:
        raise ValidationError(
            {
                "unit": _(
                    "%(value)s is neither “points” nor an ISO 4217 currency code (such as EUR)."
                )
                % {"value": str(value)[:20]}
            }
        ) from error
    return str(value)


def is_money(unit: str) -> bool:
    return unit != POINTS


def to_minor(amount: object, unit: str, *, field: str = "amount") -> int:
    """``amount`` in minor units (an int): cents for money, points for points.

    Money takes a ``Decimal``, an int or a numeric string with at most two decimal places;
    points take an int (or a string or ``Decimal`` holding a whole number). A float, a bool,
    NaN or an amount beyond :data:`MAX_MINOR` is refused with a ``ValidationError`` naming
    ``field``.
    """
    if isinstance(amount, bool | float) or amount is None:
        raise ValidationError({field: _("Give the amount as a decimal number, such as 12.50.")})
    try:
        value = Decimal(str(amount).strip()) if isinstance(amount, str) else Decimal(amount)
    except (InvalidOperation, TypeError, ValueError) as error:
        raise ValidationError(
            {field: _("Give the amount as a decimal number, such as 12.50.")}
        ) from error
    if not value.is_finite():
        raise ValidationError({field: _("Give the amount as a decimal number, such as 12.50.")})
    if abs(value) > MAX_MINOR:  # before any arithmetic: 1e999999 stays a clear error
        raise ValidationError({field: _("This amount is too large.")})
    # Bounded above, so quantizing cannot overflow; a value it changes had more places.
    places = Decimal("0.01") if is_money(unit) else Decimal(1)
    if value.quantize(places) != value:
        if is_money(unit):
            raise ValidationError({field: _("Money has at most two decimal places.")})
        raise ValidationError({field: _("Points are whole numbers.")})
    minor = int(value * CENTS if is_money(unit) else value)
    if abs(minor) > MAX_MINOR:
        raise ValidationError({field: _("This amount is too large.")})
    return minor


def from_minor(minor: int, unit: str) -> Amount:
    """The amount of ``minor`` minor units: a two-place ``Decimal`` for money, an int for points."""
    if is_money(unit):
        return (Decimal(minor) / CENTS).quantize(Decimal("0.01"))
    return int(minor)


# --- Legs as plain values ---------------------------------------------------------------------
#
# A posting's legs in minor units: netted pair by pair, and what they net to per person (its
# entries). Pure arithmetic, like the conversions above.

Legs = dict[tuple[int, int], int]  # (debtor id, creditor id) -> minor units, more than zero


def net_legs(legs: Iterable[tuple[int, int, int]]) -> Legs:
    """Legs netted pair by pair, in one direction each, zero pairs left out (sorted)."""
    per_pair: dict[tuple[int, int], int] = defaultdict(int)  # (low, high): low owes high
    for debtor, creditor, minor in legs:
        low, high = sorted((debtor, creditor))
        per_pair[(low, high)] += minor if debtor == low else -minor
    netted = {}
    for (low, high), minor in per_pair.items():
        if minor > 0:
            netted[(low, high)] = minor
        elif minor < 0:
            netted[(high, low)] = -minor
    return dict(sorted(netted.items()))


def nets_of(legs: Legs) -> dict[int, int]:
    """What ``legs`` net to for each person (the entries): creditors up, debtors down."""
    nets: dict[int, int] = defaultdict(int)
    for (debtor, creditor), minor in legs.items():
        nets[creditor] += minor
        nets[debtor] -= minor
    return {pk: minor for pk, minor in sorted(nets.items()) if minor}
