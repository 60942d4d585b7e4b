"""The task outbox (``plumbing/outbox/``): a write's tasks are rows of its own transaction,
run after the commit (in-process on the default), sent again by the sweep until a worker has run
them; a failing task or a broker that is down never turns a committed write into an error.
The cache down is a miss, never a 500.

The real broker, worker and beat, with a Redis stopped and started again, are in
tests/test_outbox_integration.py (the integration run)."""

import re
import socket
import time
from datetime import timedelta
from pathlib import Path

import pytest
import redis
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import transaction
from django.utils import timezone
from rest_framework.test import APIClient

from circolo.celery import app
from circolo.tasks import ping
from matches.models import SpazzumazzGame, SpazzumazzStats
from plumbing.outbox import relay
from plumbing.outbox.models import Message

ROOT = Path(__file__).resolve().parent.parent


def closed_port() -> int:
    """A local port nothing listens on (a service that is down)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def game_body(people):
    club = people["club"]
    players = [club.players.get(user=people["member"]).pk, people["guest"].pk]
    return {"club": club.slug, "players": players, "finish_order": players}


def scorer_api(people) -> APIClient:
    api = APIClient()
    api.force_authenticate(people["scorer"])
    return api


@pytest.fixture
def silent_port():
    """A local port that accepts connections and never answers (a Redis hung, or behind a
    firewall that drops its packets)."""
    with socket.socket() as listening:
        listening.bind(("127.0.0.1", 0))
        listening.listen(50)
        yield listening.getsockname()[1]


def _use_broker(url: str, eager: bool) -> None:
    app.conf.update(broker_url=url, task_always_eager=eager)
    app._pool = None  # the connection pools were made for the other broker
    app.amqp._producer_pool = None


@pytest.fixture
def broker_at(settings):
    """``broker_at(port)``: tasks go to a Redis broker on that local port."""
    saved = app.conf.broker_url, app.conf.task_always_eager

    def use(port: int) -> None:
        _use_broker(f"redis://127.0.0.1:{port}/0", False)
        settings.CELERY_TASK_ALWAYS_EAGER = False  # /health/ reads the setting
        relay._broker_down_until = 0.0

    yield use
    _use_broker(*saved)
    relay._broker_down_until = 0.0


@pytest.fixture
def broker_down(broker_at):
    """Tasks go to a Redis broker that is down (nothing listens on its port)."""
    broker_at(closed_port())


@pytest.fixture
def stats_fail(monkeypatch):
    """Spazz'u'mazz's statistics task fails (a bug, a database that said no)."""
    from matches.spazzumazz import stats

    def refuse(club_id):
        raise RuntimeError("the statistics are broken")

    monkeypatch.setattr(stats, "refresh", refuse)
    return monkeypatch


# --- In the transaction, or not at all -------------------------------------------------------


@pytest.mark.django_db
def test_a_task_queued_by_a_write_is_a_row_of_the_same_transaction(
    people, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks() as sends:
        ping.delay_on_commit()
        (message,) = Message.objects.all()
    assert (message.task, message.args, message.kwargs) == ("circolo.ping", [], {})
    assert message.done_at is None and len(sends) == 1


@pytest.mark.django_db
def test_a_write_rolled_back_leaves_no_task(people):
    with pytest.raises(RuntimeError), transaction.atomic():
        ping.delay_on_commit()
        raise RuntimeError("the write failed")
    assert not Message.objects.exists()


@pytest.mark.django_db
def test_sending_options_are_refused_not_dropped():
    with pytest.raises(TypeError, match="countdown"):
        ping.apply_async_on_commit(countdown=5)


# --- In-process, the zero-setup default ------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_after_the_commit_the_task_runs_in_process_and_its_message_is_done(people):
    response = scorer_api(people).post(
        "/api/v1/spazzumazz-games/", game_body(people), format="json"
    )
    assert response.status_code == 201, response.json()
    (message,) = Message.objects.filter(task__endswith="update_spazzumazz_stats")
    assert message.done_at is not None and message.attempts == 0
    assert SpazzumazzStats.objects.filter(club=people["club"]).exists()


@pytest.mark.django_db(transaction=True)
def test_a_task_that_fails_never_fails_the_committed_write(people, stats_fail):
    response = scorer_api(people).post(
        "/api/v1/spazzumazz-games/", game_body(people), format="json"
    )
    assert response.status_code == 201, response.json()
    assert SpazzumazzGame.objects.count() == 1
    (message,) = Message.objects.filter(task__endswith="update_spazzumazz_stats")
    assert message.done_at is None
    assert message.last_error == "RuntimeError: the statistics are broken"
    assert not SpazzumazzStats.objects.exists()

    stats_fail.undo()  # mended: the sweep runs it once it is due
    assert relay.sweep(app)["sent"] == 0  # not due yet
    later = message.due_at + timedelta(seconds=1)
    assert relay.sweep(app, at=later) == {"sent": 1, "failed": 0, "skipped": 0}
    message.refresh_from_db()
    assert message.done_at is not None and message.attempts == 1
    assert SpazzumazzStats.objects.filter(club=people["club"]).exists()


# --- The sweep -------------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_sweep_sends_again_what_is_not_done_waiting_twice_as_long_each_time(settings):
    settings.OUTBOX_REDELIVER_SECONDS = 60
    now = timezone.now()
    message = Message.objects.create(task="no.such.task", due_at=now)
    waits = []
    for _ in range(3):
        relay.sweep(app, at=now)
        message.refresh_from_db()
        waits.append((message.due_at - now).total_seconds())
        now = message.due_at
    assert waits == [60, 120, 240]
    assert message.attempts == 3
    assert message.last_error == "no task named 'no.such.task'"


@pytest.mark.django_db
def test_the_sweep_gives_up_after_the_last_attempt_and_health_says_so(client, settings):
    settings.OUTBOX_MAX_ATTEMPTS = 2
    message = Message.objects.create(task="no.such.task", due_at=timezone.now())
    for _ in range(3):
        message.refresh_from_db()
        relay.sweep(app, at=message.due_at)
    message.refresh_from_db()
    assert message.attempts == 2 and message.done_at is None
    assert list(Message.objects.given_up()) == [message]
    response = client.get("/health/")
    assert response.status_code == 503
    assert response.json()["checks"]["outbox"] == {
        "status": "down",
        "detail": "RuntimeError: 1 given up on (manage.py outbox_relay --all)",
    }


@pytest.mark.django_db
def test_of_two_sweeps_that_read_a_message_one_sends_it():
    Message.objects.create(task="circolo.ping", due_at=timezone.now())
    now = timezone.now()
    mine, theirs = Message.objects.get(), Message.objects.get()  # both read it as due
    assert relay.claim(theirs, now=now) is True
    assert relay.claim(mine, now=now) is False
    assert Message.objects.get().attempts == 1


@pytest.mark.django_db
def test_health_counts_what_waits_and_is_down_when_a_task_waited_too_long(client, settings):
    Message.objects.create(task="circolo.ping", due_at=timezone.now())
    assert (
        client.get("/health/")
        .json()["checks"]["outbox"]["detail"]
        .startswith("1 waiting, the oldest for ")
    )
    Message.objects.update(created_at=timezone.now() - timedelta(hours=1))
    response = client.get("/health/")
    assert response.status_code == 503
    assert response.json()["checks"]["outbox"]["detail"] == (
        "RuntimeError: 1 waiting, the oldest for 3600 s"
    )


@pytest.mark.django_db
def test_the_relay_command_sends_what_is_due_and_with_all_every_waiting_one(capsys):
    later = timezone.now() + timedelta(hours=1)
    Message.objects.create(task="circolo.ping", due_at=timezone.now())
    Message.objects.create(task="circolo.ping", due_at=later)
    call_command("outbox_relay")
    assert capsys.readouterr().out.startswith("sent 1, failed 0; waiting 1, given up 0")
    call_command("outbox_relay", "--all")
    assert capsys.readouterr().out == "sent 1, failed 0; waiting 0, given up 0\n"
    assert not Message.objects.waiting().exists()


@pytest.mark.django_db
def test_the_relay_command_fails_naming_what_it_could_not_send():
    Message.objects.create(task="no.such.task", due_at=timezone.now())
    with pytest.raises(CommandError, match="1 not sent or failed"):
        call_command("outbox_relay")


@pytest.mark.django_db
def test_done_messages_are_purged_after_a_week():
    now = timezone.now()
    old = Message.objects.create(task="circolo.ping", due_at=now, done_at=now - timedelta(8))
    Message.objects.create(task="circolo.ping", due_at=now, done_at=now - timedelta(6))
    Message.objects.create(task="circolo.ping", due_at=now - timedelta(30))  # never run
    assert relay.purge(older_than=timedelta(days=7)) == 1
    assert not Message.objects.filter(pk=old.pk).exists() and Message.objects.count() == 2


# --- The broker down -------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_with_the_broker_down_writes_answer_at_once_and_their_tasks_wait(people, broker_down):
    api = scorer_api(people)
    seconds = []
    for _ in range(3):
        started = time.monotonic()
        response = api.post("/api/v1/spazzumazz-games/", game_body(people), format="json")
        seconds.append(time.monotonic() - started)
        assert response.status_code == 201, response.json()
    # A bound, not a speed target: the broker's retries held each write 15-39 s.
    assert max(seconds) < 5, seconds
    assert SpazzumazzGame.objects.count() == 3
    first, *others = Message.objects.waiting().order_by("pk")
    # Each write queues the same tasks (its statistics, what the step leaves waiting).
    assert (len(others) + 1) % 3 == 0 and len(others) >= 2
    assert all(m.due_at <= timezone.now() for m in [first, *others])
    assert "Connection refused" in first.last_error
    # After a failed send the process leaves the broker alone a moment: no wait at all.
    assert [m.last_error for m in others] == ["not sent: broker down"] * len(others)


@pytest.mark.django_db
def test_with_the_broker_down_health_is_503_naming_it_within_3_seconds(client, broker_down):
    started = time.monotonic()
    response = client.get("/health/")
    assert time.monotonic() - started < 3
    assert response.status_code == 503
    broker = response.json()["checks"]["broker"]
    assert broker["status"] == "down" and "Connection refused" in broker["detail"]


@pytest.mark.django_db
def test_with_the_broker_and_cache_hung_health_still_answers_within_3_seconds(
    client, broker_at, cache_at, silent_port
):
    broker_at(silent_port)
    cache_at(silent_port)
    client.get("/health/")  # the first request of a process loads the URLconf and the rest
    started = time.monotonic()
    response = client.get("/health/")
    assert time.monotonic() - started < 3
    assert response.status_code == 503
    checks = response.json()["checks"]
    assert checks["broker"]["status"] == checks["cache"]["status"] == "down"
    assert checks["database"]["status"] == "ok"


# --- The cache down --------------------------------------------------------------------------


@pytest.fixture
def cache_at(settings):
    """``cache_at(port)``: the cache is a Redis on that local port, as configured for
    production (``REDIS_URL``)."""
    from circolo import cache

    def use(port: int) -> None:
        settings.CACHES = {
            "default": {
                **settings.CACHES["default"],
                "BACKEND": "circolo.cache.RedisCache",
                "LOCATION": f"redis://127.0.0.1:{port}/0",
                "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 1.0},
            }
        }
        cache._down_until.clear()

    yield use
    cache._down_until.clear()


@pytest.fixture
def cache_down(cache_at):
    cache_at(closed_port())


@pytest.mark.django_db(transaction=True)
def test_with_the_cache_down_pages_are_built_and_writes_answer(client, people, cache_down):
    slug = people["club"].slug
    response = scorer_api(people).post(
        "/api/v1/spazzumazz-games/", game_body(people), format="json"
    )
    assert response.status_code == 201, response.json()  # its boards' bump is a miss
    for path in (f"/clubs/{slug}/", f"/clubs/{slug}/leaderboards/", "/clubs/"):
        assert client.get(path).status_code == 200, path
    health = client.get("/health/")
    assert health.status_code == 503
    assert "Connection refused" in health.json()["checks"]["cache"]["detail"]


def test_a_cache_down_answers_as_a_miss_and_is_left_alone_a_moment(cache_down):
    from django.core.cache import cache

    from circolo import cache as backend

    assert cache.get("k", "default") == "default"
    assert cache.add("k", 1) is False and cache.get_many(["k"]) == {}
    assert cache.set("k", 1) is None and cache.delete("k") is False
    assert backend._down_until  # paused: the next calls don't even try
    with pytest.raises(redis.exceptions.ConnectionError):
        cache.check()


# --- Every task goes through the outbox ------------------------------------------------------

SENT_DIRECTLY = re.compile(r"\.(delay|apply_async|send_task)\(")


def test_no_code_sends_a_task_but_through_the_outbox():
    """``delay_on_commit`` writes to the outbox; ``delay``, ``apply_async`` and
    ``send_task`` go to the broker, where a broker down loses the task (or fails the
    write). Only the outbox's relay sends directly."""
    found = [
        f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
        for floor in ("plumbing", "clubs", "ledger", "matches", "circolo", "rules")
        for path in sorted((ROOT / floor).rglob("*.py"))
        if "outbox" not in path.relative_to(ROOT).parts  # the relay itself
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if SENT_DIRECTLY.search(line)
    ]
    assert found == []
