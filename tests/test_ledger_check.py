"""``manage.py ledger_check``, its periodic task and ``/health/``: a consistent ledger passes;
a mismatch (planted past the triggers) fails the command with exit 1, names what is wrong,
and turns the health page's ``ledger`` check down."""

from io import StringIO

import pytest
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError

from ledger import check, services
from ledger.models import CheckRun, Entry, Erasure, Transaction
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
    assert "consistent (4 transactions, 1 payments, 8 entries" in out
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


def test_only_the_latest_runs_are_kept(db):
    for _ in range(check.KEEP_RUNS + 5):
        check.record(check.Result())
    assert CheckRun.objects.count() == check.KEEP_RUNS
