"""Amounts on the ledger's pages: localized, two places for money, whole points."""

from django import template
from django.utils import formats
from django.utils.translation import gettext as _

from ledger.amounts import POINTS, from_minor

register = template.Library()


@register.filter
def amount(minor: int, unit: str) -> str:
    """``1250|amount:"EUR"`` -> ``12,50`` in Italian, ``12.50`` in English; points as integers."""
    value = from_minor(minor, unit)
    places = 0 if unit == POINTS else 2
    return formats.number_format(value, places, use_l10n=True, force_grouping=True)


@register.filter
def signed(minor: int, unit: str) -> str:
    """Like ``amount``, with a sign: ``+12,50``, ``−3,00``, ``0,00``."""
    text = amount(abs(minor), unit)
    return f"+{text}" if minor > 0 else f"−{text}" if minor < 0 else text


@register.filter
def negated(minor: int) -> int:
    return -minor


@register.filter
def unit_label(unit: str) -> str:
    return _("points") if unit == POINTS else unit
