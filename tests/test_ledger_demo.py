"""The ledger's demo data (``ledger.demo``): built through the services, once, consistent."""

import random
from io import StringIO

import pytest
from django.core.management import call_command

from clubs.demo import DEMO_SLUG
from clubs.models import Club
from ledger import check, demo, services
from ledger.models import Kind, Payment, PaymentStatus, Transaction

pytestmark = pytest.mark.django_db


def test_the_demo_ledger_has_points_money_a_correction_and_payments_and_is_built_once():
    call_command("demo", stdout=StringIO())
    club = Club.objects.get(slug=DEMO_SLUG)
    built = demo.build_ledger(club, rng=random.Random(1))
    assert demo.build_ledger(club, rng=random.Random(2)) == built
    kinds = set(Transaction.objects.filter(club=club).values_list("kind", flat=True))
    assert kinds == {Kind.POSTING, Kind.REVERSAL, Kind.PAYMENT}
    assert {"EUR", "points"} <= set(services.units_of(club))
    statuses = sorted(Payment.objects.filter(club=club).values_list("status", flat=True))
    # The ledger's own three, and the Singapore tables' demo settles one debt of its own.
    assert statuses.count(PaymentStatus.PENDING) == 1
    assert statuses.count(PaymentStatus.CONFIRMED) == 3
    assert services.settle_up_plan(club=club, unit="EUR")
    assert check.run().ok

    demo.erase(club)  # what `demo --reset` must do before deleting the club
    club.delete()
    assert not Transaction.objects.exists()
