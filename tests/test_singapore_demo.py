"""The demo's Singapore tables: built through the services, the same at every build."""

import random

import pytest
from django.utils import timezone

from clubs import services as clubs
from clubs.models import Role
from ledger import check
from ledger.models import Payment
from matches.models import Hand, OutcomeStatus, TableSession
from matches.singapore.demo import build_tables
from matches.singapore.sheet import build_sheet

pytestmark = pytest.mark.django_db


@pytest.fixture
def club(make_user):
    admin = make_user("demo-admin")
    club = clubs.create_club(name="Circolo Demo", founder=admin)
    for n in range(8):
        clubs.add_member(club=club, user=make_user(f"demo-player{n:02d}"), role=Role.MEMBER)
    for name in ("Zio Pino", "Nonna Rina"):
        clubs.add_guest(club=club, display_name=name)
    scorer = make_user("demo-scorer")
    clubs.add_member(club=club, user=scorer, role=Role.SCORER)
    return club, scorer


def test_two_finished_tables_and_one_running_with_a_void_and_a_correction(club):
    club, scorer = club
    sessions = build_tables(club=club, scorer=scorer, now=timezone.now(), rng=random.Random(1))
    assert [s.is_open for s in sessions] == [False, False, True]
    statuses = [
        o.status for h in Hand.objects.filter(session=sessions[0]) for o in h.outcomes.all()
    ]
    assert statuses.count(OutcomeStatus.VOIDED) == 1
    assert statuses.count(OutcomeStatus.SUPERSEDED) == 1
    running = sessions[2]
    assert running.hands.count() in (7, 8)
    sheet = build_sheet(sessions[0])
    assert sum(t.points for t in sheet.totals) == 0 and sheet.hands_counted == 23
    assert TableSession.objects.filter(club=club).count() == 3
    (payment,) = Payment.objects.filter(club=club)
    assert payment.status == "confirmed" and payment.unit == "EUR"
    assert check.run().ok
