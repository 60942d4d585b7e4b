"""Demo data for the ledger, written only through its services.

The demo's debts come from the Singapore tables (``matches/singapore/demo.py``), which post
their hands; this part, run after them, settles some of what the club owes in its
currency, pair by pair (real debts, each between two people who bet against each other):
one debt paid in full, one in part (both confirmed by the payee) and one paid but not yet
confirmed, so that the ledger page shows every kind of payment. ``erase(club)``
removes a demo club's ledger so that the club itself can be deleted (``reset()``, the
part's reset, calls it first): a club with a ledger cannot be deleted otherwise.
"""

from __future__ import annotations

from decimal import Decimal

from django.db import transaction

from clubs.demo import DEMO_SLUG, PRIVATE_SLUG
from clubs.models import Club, Role
from ledger import reads as ledger_reads
from ledger import services
from ledger.models import Payment, Transaction
from ledger.services import erase_club_ledger

EVENINGS = 6


def _admin(club: Club):
    membership = club.memberships.filter(role=Role.ADMIN).select_related("user").first()
    return membership.user if membership else None


def build(demo) -> None:
    """The ledger's part of ``manage.py demo`` (the parts protocol: ``clubs/demo.py``)."""

    settle_some(demo.clubs[DEMO_SLUG])


def reset() -> None:
    """Before the demo clubs are deleted: their ledgers go first, on purpose."""

    for club in Club.objects.filter(slug__in=[DEMO_SLUG, PRIVATE_SLUG]):
        erase(club)


@transaction.atomic
def settle_some(club: Club) -> dict[str, int]:
    """Pay some of the club's debts in its currency, pair by pair (see the module)."""
    admin = _admin(club)
    if admin is None:
        return _counts(club)
    debts = ledger_reads.net_debts(club=club, unit=club.currency)
    for n, debt in enumerate(debts[:3]):
        amount = debt.amount if n != 1 else (debt.amount / 2).quantize(Decimal("0.01"))
        payment = services.record_payment(
            club=club,
            payer=debt.debtor,
            payee=debt.creditor,
            amount=amount,
            unit=club.currency,
            by=debt.debtor.user or admin,  # a guest's payment is recorded by the admin
        )
        if n < 2:
            services.confirm_payment(payment=payment, by=debt.creditor.user or admin)
    return _counts(club)


def _counts(club: Club) -> dict[str, int]:
    return {
        "transactions": Transaction.objects.filter(club=club).count(),
        "payments": Payment.objects.filter(club=club).count(),
    }


def erase(club: Club) -> None:
    """Remove the demo club's ledger (the deliberate path past the append-only triggers)."""
    if Transaction.objects.filter(club=club).exists() or Payment.objects.filter(club=club).exists():
        erase_club_ledger(club=club)
