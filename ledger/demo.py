"""Demo data for the ledger, written only through its services.

``build_ledger(club, rng=random.Random(...))`` posts a few evenings of points and of money between
the club's regulars, one correction, and payments (two confirmed, one waiting for the
payee). Safe to call twice: the second call finds the first one's postings and does
nothing. ``erase(club)`` removes a demo club's ledger so that the club itself can be deleted
(``reset()``, the part's reset, calls it first): a club with a ledger cannot be deleted otherwise.

The Singapore feature will add real hands later; these postings say what they are in their
memo.
"""

from __future__ import annotations

import random
from datetime import timedelta
from decimal import Decimal

from django.db import transaction
from django.utils import timezone

from clubs.models import Club, Role
from ledger import services
from ledger.amounts import POINTS
from ledger.models import Payment, Transaction

EVENINGS = 6


def _admin(club: Club):
    membership = club.memberships.filter(role=Role.ADMIN).select_related("user").first()
    return membership.user if membership else None


def build(demo) -> None:
    """The ledger's part of ``manage.py demo`` (the parts protocol: ``clubs/demo.py``)."""
    from clubs.demo import DEMO_SLUG

    build_ledger(demo.clubs[DEMO_SLUG], rng=demo.rng("ledger"))


def reset() -> None:
    """Before the demo clubs are deleted: their ledgers go first, on purpose."""
    from clubs.demo import DEMO_SLUG, PRIVATE_SLUG

    for club in Club.objects.filter(slug__in=[DEMO_SLUG, PRIVATE_SLUG]):
        erase(club)


@transaction.atomic
def build_ledger(club: Club, *, rng: random.Random) -> dict[str, int]:
    """Postings, a correction and payments among the club's members (see the module)."""
    admin = _admin(club)
    members = list(club.players.active().filter(user__isnull=False).order_by("pk"))
    if len(members) < 4 or admin is None:
        return {"transactions": 0, "payments": 0}
    key = f"demo:{club.pk}"
    if Transaction.objects.filter(key__startswith=f"{key}:").exists():
        return _counts(club)  # built already
    regulars = rng.sample(members, min(6, len(members)))
    now = timezone.now()
    last = None
    for evening in range(EVENINGS):
        at = now - timedelta(days=7 * (EVENINGS - evening))
        table = rng.sample(regulars, 4)
        points = [rng.randrange(-60, 61, 5) for _ in table[:-1]]
        services.post_transaction(
            club=club,
            unit=POINTS,
            key=f"{key}:points:{evening}",
            memo="Serata a punti (demo)",
            entries=dict(zip(table, [*points, -sum(points)], strict=True)),
            at=at,
            by=admin,
        )
        cents = [rng.randrange(-2000, 2001, 50) for _ in table[:-1]]
        last = services.post_transaction(
            club=club,
            unit=club.currency,
            key=f"{key}:money:{evening}",
            memo="Serata a soldi (demo)",
            entries={
                p: Decimal(c) / 100 for p, c in zip(table, [*cents, -sum(cents)], strict=True)
            },
            at=at + timedelta(hours=2),
            by=admin,
        )
    # The last evening was recorded wrong: corrected (reversed and posted again).
    entries = {e.player: e.amount for e in last.entries.select_related("player", "transaction")}
    first, second = list(entries)[:2]
    entries[first] += Decimal("1.00")
    entries[second] -= Decimal("1.00")
    services.correct_transaction(
        transaction=last, key=f"{key}:money:{EVENINGS - 1}:v2", entries=entries, by=admin
    )
    # Settling up: one debt paid in full, one in part, one paid but not confirmed yet.
    plan = services.settle_up_plan(club=club, unit=club.currency)
    for n, debt in enumerate(plan[:3]):
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
        services.erase_club_ledger(club=club)
