"""The outbox's own worker (``plumbing/outbox/worker.py``, ``manage.py outbox_worker``): with
``OUTBOX_WORKER`` on (``make run``), a write's tasks wait in the outbox, due at once, and
the worker runs them (never the request); at its start it runs again what a killed worker
had claimed; it runs the beat schedule's entries when they are due. The worker beside a
real server, killed and started again, is in tests/test_make_run.py."""

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone
from rest_framework.test import APIClient

from circolo.celery import app
from matches.models import SpazzumazzStats
from plumbing.outbox import worker
from plumbing.outbox.models import Message


@pytest.fixture
def outbox_worker_on(settings):
    settings.OUTBOX_WORKER = True


def record_a_game(people):
    api = APIClient()
    api.force_authenticate(people["scorer"])
    club = people["club"]
    players = [club.players.get(user=people["member"]).pk, people["guest"].pk]
    answer = api.post(
        "/api/v1/spazzumazz-games/",
        {"club": club.slug, "players": players, "finish_order": players},
        format="json",
    )
    assert answer.status_code == 201, answer.content


class UntilIdle:
    """The worker's ``stop``: set once no message waits (so the loop runs here, in the
    test's own thread and database connection)."""

    def is_set(self) -> bool:
        return not Message.objects.waiting().exists()

    def wait(self, seconds: float) -> None:
        pass


def run_worker_until_idle() -> None:
    worker.work(app, stop=UntilIdle(), idle=0)


@pytest.mark.django_db(transaction=True)
def test_with_the_worker_on_a_write_leaves_its_tasks_due_and_the_worker_runs_them(
    people, outbox_worker_on
):
    record_a_game(people)
    messages = Message.objects.waiting()
    assert messages.count() >= 2
    assert all(message.due_at <= timezone.now() for message in messages)
    assert not SpazzumazzStats.objects.exists()  # nothing ran on the request's thread

    run_worker_until_idle()

    assert not Message.objects.waiting().exists()
    assert SpazzumazzStats.objects.filter(club=people["club"]).count() >= 2


@pytest.mark.django_db(transaction=True)
def test_at_its_start_the_worker_runs_again_what_a_killed_worker_had_claimed(
    people, outbox_worker_on
):
    record_a_game(people)
    later = timezone.now() + timedelta(hours=1)  # claimed by a sweep that then died
    Message.objects.waiting().update(due_at=later, attempts=1)

    assert worker.release() == Message.objects.waiting().count()
    run_worker_until_idle()

    assert not Message.objects.waiting().exists()
    assert SpazzumazzStats.objects.filter(club=people["club"]).exists()


@pytest.mark.django_db
def test_the_worker_leaves_alone_what_was_given_up_on(settings):
    settings.OUTBOX_MAX_ATTEMPTS = 3
    given_up = Message.objects.create(task="circolo.ping", due_at=timezone.now(), attempts=3)
    assert worker.release() == 0
    given_up.refresh_from_db()
    assert given_up.done_at is None and given_up.attempts == 3


def test_the_beat_schedule_runs_each_entry_when_it_is_due_and_not_before(monkeypatch):
    ran = []
    from circolo.tasks import ping as task

    monkeypatch.setattr(task, "apply", lambda *args, **kwargs: ran.append(args))
    beat = worker.Beat(
        app,
        {
            "often": {"task": "circolo.ping", "schedule": 0.0},
            "daily": {"task": "circolo.ping", "schedule": 24 * 60 * 60},
            "outbox-relay": {"task": "outbox.relay", "schedule": 0.0},
        },
    )
    assert beat.tick() == ["often"]  # the relay is the worker's own loop
    assert beat.tick() == ["often"]
    assert len(ran) == 2


def test_with_a_broker_the_command_says_celery_runs_the_tasks(capsys):
    saved = app.conf.task_always_eager
    app.conf.task_always_eager = False
    try:
        call_command("outbox_worker")
    finally:
        app.conf.task_always_eager = saved
    assert "Celery's workers run the tasks" in capsys.readouterr().out
