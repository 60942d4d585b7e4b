"""The ledger's demo data (``ledger.demo``): built through the services, once, consistent."""

from io import StringIO

import pytest
from django.core.management import call_command

from clubs.demo import DEMO_SLUG
from clubs.models import Club
from ledger import check, demo, services
from ledger import reads as ledger_reads
from ledger.models import Kind, Payment, PaymentStatus, Transaction
from tests.ledger_helpers import players_of

pytestmark = pytest.mark.django_db


def test_the_demo_settles_some_of_the_tables_debts_and_keeps_the_ledger_consistent():
    call_command("demo", stdout=StringIO())
    club = Club.objects.get(slug=DEMO_SLUG)
    kinds = set(Transaction.objects.filter(club=club).values_list("kind", flat=True))
    assert {Kind.POSTING, Kind.REVERSAL, Kind.PAYMENT} <= kinds
    assert {"EUR", "points"} <= set(ledger_reads.units_of(club))
    statuses = Payment.objects.filter(club=club).values_list("status", flat=True)
    assert PaymentStatus.PENDING in statuses and PaymentStatus.CONFIRMED in statuses
    assert ledger_reads.settle_up_plan(club=club, unit="EUR")
    assert check.run().ok

    demo.erase(club)  # what `demo --reset` does before deleting the club
    club.delete()
    assert not Transaction.objects.exists()


def test_the_demo_pays_real_debts_pair_by_pair(people):
    p = players_of(people)
    club = people["club"]
    legs = [(p["sam"], p["ada"], 30), (p["mia"], p["sam"], 20), (p["pino"], p["mia"], 10)]
    services.post_transaction(club=club, unit=club.currency, key="h1", legs=legs)
    debts = ledger_reads.net_debts(club=club, unit=club.currency)
    before = [(d.debtor, d.creditor, d.minor) for d in debts]
    demo.settle_some(club)
    paid = [(x.payer, x.payee, x.amount_minor, x.status) for x in Payment.objects.order_by("pk")]
    (a, b, ab), (c, d, cd), (e, f, ef) = before
    assert paid == [
        (a, b, ab, PaymentStatus.CONFIRMED),  # in full
        (c, d, cd // 2, PaymentStatus.CONFIRMED),  # in part
        (e, f, ef, PaymentStatus.PENDING),
    ]
