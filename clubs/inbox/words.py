"""A notification in words, in the language of whoever reads it."""

from __future__ import annotations

from decimal import Decimal

from django.utils import formats
from django.utils.translation import gettext as _

from clubs.inbox.models import Kind, Notification

SENTENCES = {
    Kind.CONFIRM_RESULT: lambda d: _("Confirm the result of %(what)s, reported by %(who)s.") % d,
    Kind.DECIDE_DISPUTE: lambda d: _("Decide the dispute on %(what)s.") % d,
    Kind.MATCH_READY: lambda d: (
        (
            _("Table %(table)s: you against %(opponent)s (%(what)s).")
            if d.get("table")
            else _("Your match against %(opponent)s is ready: %(what)s.")
        )
        % d
    ),
    Kind.CHECK_IN: lambda d: _("Check-in is open for %(what)s.") % d,
    Kind.CONFIRM_PAYMENT: lambda d: (
        _("Confirm that %(who)s paid you %(amount)s.") % {**d, "amount": _amount(d)}
    ),
    Kind.INVITATION: lambda d: _("You are invited to %(what)s.") % d,
    Kind.OFF_WAITING_LIST: lambda d: _("A place freed up in %(what)s: you are in.") % d,
    Kind.NIGHT_RSVP: lambda d: _("Club night on %(when)s: will you come?") % d,
}


def _amount(data: dict) -> str:
    """A payment's amount in the reader's language ("5,00 EUR", "12 points"): ``minor`` and
    ``unit`` as the ledger keeps them (points are whole, a currency's cents are hundredths)."""
    if "minor" not in data:
        return data["amount"]
    points = data["unit"] == "points"
    value = Decimal(data["minor"]) if points else Decimal(data["minor"]) / 100
    number = formats.number_format(value, 0 if points else 2, use_l10n=True)
    return f"{number} {_('points') if points else data['unit']}"


def sentence(notification: Notification) -> str:
    """The notification in words, in the current language."""
    try:
        return SENTENCES[notification.kind](notification.data)
    except (KeyError, TypeError):  # names missing from an older row: the kind alone
        return str(Kind(notification.kind).label)
