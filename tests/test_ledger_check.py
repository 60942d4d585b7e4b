"""``manage.py ledger_check``, its periodic task and ``/health/``: a consistent ledger passes;
a mismatch (planted past the triggers) fails the command with exit 1, names what is wrong,
and turns the health page's ``ledger`` check down."""

from io import StringIO

import pytest
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import IntegrityError
from django.db.transaction import atomic
from django.utils import timezone

from ledger import check, services
from ledger.models import CheckRun, Entry, Erasure, Leg, Transaction
from ledger.tasks import check_ledger
from tests.ledger_helpers import players_of, triggers_off

pytestmark = pytest.mark.django_db


@pytest.fixture
def ledger(people):
    p = players_of(people)
    club = people["club"]
    hand = services.post_transaction(
        club=club, unit="EUR", key="h1", entries={p["ada"]: "5.00", p["mia"]: "-5.00"}
    )
    services.reverse_transaction(transaction=hand)
    services.post_transaction(
        club=club, unit="points", key="h2", entries={p["sam"]: 3, p["pino"]: -3}
    )
    payment = services.record_payment(
        club=club, payer=p["mia"], payee=p["ada"], amount=1, unit="EUR", by=people["member"]
    )
    services.confirm_payment(payment=payment, by=people["admin"])
    return hand


def run() -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command("ledger_check", stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_a_consistent_ledger_passes_and_the_health_page_says_so(ledger, client):
    out, _ = run()
    assert "consistent (4 transactions, 4 legs, 1 payments, 8 entries" in out
    assert CheckRun.objects.get().ok
    shown = client.get("/health/").json()["checks"]["ledger"]
    assert shown["status"] == "ok" and shown["detail"].startswith("consistent at")


def test_the_health_page_says_when_the_ledger_was_never_checked(db, client):
    assert client.get("/health/").json()["checks"]["ledger"] == {
        "status": "ok",
        "detail": "not checked yet",
    }


def test_an_entry_changed_behind_the_ledgers_back_is_found(ledger, client):
    with triggers_off():
        Entry.objects.filter(transaction=ledger, amount_minor=500).update(amount_minor=499)
    with pytest.raises(CommandError, match="mismatch"):
        run()
    last = CheckRun.objects.get()
    assert not last.ok
    assert "transaction h1: 2 of 2 entries, summing to -1 (not zero)" in last.problems
    assert any("does not exactly reverse h1" in problem for problem in last.problems)
    assert any("sum to -1, not zero" in problem for problem in last.problems)
    response = client.get("/health/")
    assert response.status_code == 503
    assert response.json()["checks"]["ledger"]["status"] == "down"
    assert "mismatch found" in response.json()["checks"]["ledger"]["detail"]


def test_a_missing_entry_a_stray_player_and_a_lying_payment_are_found(people, ledger):
    p = players_of(people)
    stranger = people["other"].players.first()
    payment_tx = Transaction.objects.get(kind="payment")
    with triggers_off():
        Entry.objects.filter(transaction__key="h2", player=p["pino"]).delete()
        Entry.objects.filter(transaction=payment_tx, player=p["ada"]).update(player=p["sam"])
        Entry.objects.filter(transaction=ledger, player=p["mia"]).update(player=stranger)
    problems = "\n".join(check.run().problems)
    assert "transaction h2: 1 of 2 entries" in problems
    assert f"transaction h1: player {stranger.pk} is not of the transaction's club" in problems
    assert "does not match its transaction" in problems


def test_missing_triggers_and_an_open_erasure_are_found(ledger):
    with triggers_off():
        problems = check.run().problems
    assert any("append-only trigger" in problem and "missing" in problem for problem in problems)
    Erasure.objects.create(club_id=0, club_name="Circolo Fantasma")
    assert any("erasure of Circolo Fantasma" in p for p in check.run().problems)


def test_the_periodic_task_records_its_result_and_is_safe_twice(ledger):
    assert check_ledger.delay().get() == {"ok": True, "problems": []}
    assert check_ledger.delay().get() == {"ok": True, "problems": []}
    assert CheckRun.objects.filter(ok=True).count() == 2
    assert settings.CELERY_BEAT_SCHEDULE["ledger-check"]["task"] == check_ledger.name


def test_transactions_without_legs_or_with_legs_that_do_not_net_are_found(people, ledger):
    p = players_of(people)
    with triggers_off():
        Leg.objects.filter(transaction__key="h2").update(amount_minor=2)
        Leg.objects.filter(transaction=ledger).delete()
        old = Transaction.objects.create(club=people["club"], unit="points", key="old", n_entries=2)
        Entry.objects.bulk_create(
            [
                Entry(transaction=old, player=p["ada"], amount_minor=4),
                Entry(transaction=old, player=p["mia"], amount_minor=-4),
            ]
        )
        idle = Transaction.objects.create(
            club=people["club"], unit="points", key="idle", n_entries=2, n_legs=1
        )
        Entry.objects.bulk_create(
            [
                Entry(transaction=idle, player=p["ada"], amount_minor=0),
                Entry(transaction=idle, player=p["mia"], amount_minor=0),
            ]
        )
    problems = check.run().problems
    assert (
        f"transaction h2: the legs of player {p['pino'].pk} do not net to the entry (off by -1)"
        in problems
    )
    assert "transaction h1: 0 of 1 legs" in problems
    assert "transaction old has no legs (posted before legs: run manage.py ledger_legs)" in problems
    assert "transaction idle moves nothing: its entries are all zero" in problems
    assert any("does not exactly reverse h1" in problem for problem in problems)


def test_check_runs_and_erasures_are_kept_as_written(ledger, make_user):
    run_ = check.record(check.run())
    erasure = Erasure.objects.create(club_id=0, club_name="Circolo Fantasma")
    refused = [
        lambda: CheckRun.objects.filter(pk=run_.pk).update(ok=False),
        lambda: CheckRun.objects.filter(pk=run_.pk).delete(),
        lambda: Erasure.objects.filter(pk=erasure.pk).update(club_name="Altro"),
        lambda: Erasure.objects.filter(pk=erasure.pk).delete(),
    ]
    for attempt in refused:
        with pytest.raises(IntegrityError, match="append-only|kept as written"), atomic():
            attempt()
    Erasure.objects.filter(pk=erasure.pk).update(finished_at=timezone.now(), transactions=3)
    for changes in ({"finished_at": None}, {"finished_at": timezone.now(), "payments": 9}):
        with pytest.raises(IntegrityError, match="kept as written"), atomic():
            Erasure.objects.filter(pk=erasure.pk).update(**changes)
    clerk = make_user("clerk")
    by_clerk = Erasure.objects.create(club_id=0, club_name="Circolo Beta", by=clerk)
    clerk.delete()  # a deleted user's erasures stay, anonymous
    by_clerk.refresh_from_db()
    assert by_clerk.by is None and by_clerk.club_name == "Circolo Beta"
    assert CheckRun.objects.get(pk=run_.pk).ok
