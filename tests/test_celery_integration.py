"""Tasks through the real broker to a real worker process (the integration run: PostgreSQL,
Redis). Without those services the tests skip, except under CI=true where they fail."""

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from circolo.celery import app
from circolo.tasks import ping
from clubs import services
from plumbing.outbox.models import Message
from tests.conftest import need_service

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parent.parent
REDIS_URL = os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/15"
QUEUE = f"test-{os.getpid()}"


def _database_url() -> str:
    db = settings.DATABASES["default"]
    return f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


@pytest.fixture
def broker():
    """The app sends tasks to the real Redis broker for this test instead of running them inline."""
    need_service(REDIS_URL, 6379)
    if not settings.CELERY_BROKER_URL.startswith("redis"):
        pytest.skip("set REDIS_URL (as `make test-integration` does) to use the real broker")
    # A queue of this test run's own, so that no other run's worker takes its tasks.
    app.conf.update(task_always_eager=False, task_default_queue=QUEUE)
    yield
    app.conf.update(
        task_always_eager=settings.CELERY_TASK_ALWAYS_EAGER, task_default_queue="celery"
    )


@pytest.fixture
def worker(broker, tmp_path):
    """A real ``celery worker`` process on the test database, mailing into ``tmp_path``."""
    env = {
        **os.environ,
        # On PostgreSQL the worker works on the test database; SQLite's is in memory.
        "DATABASE_URL": _database_url() if connection.vendor == "postgresql" else "",
        "REDIS_URL": REDIS_URL,
        "CELERY_TASK_ALWAYS_EAGER": "false",
        "EMAIL_URL": f"filemail://{tmp_path}",
    }
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "circolo",
            "worker",
            "--pool=solo",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
            "--loglevel=WARNING",
            "-Q",
            QUEUE,
            "-n",
            f"{QUEUE}@%h",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        yield tmp_path
    finally:
        process.terminate()
        try:
            output, _ = process.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            output, _ = process.communicate()
        if "Traceback" in (output or ""):
            print(output)


@pytest.mark.django_db(transaction=True)
def test_a_task_round_trips_through_the_real_broker_and_the_worker_marks_it_done(worker):
    """No result backend (no code reads a result): the worker marks the outbox's message."""
    if connection.vendor != "postgresql":
        pytest.skip("the worker shares the test database only on PostgreSQL")
    ping.delay_on_commit()  # outside a transaction: written, then sent at once
    message = Message.objects.get()
    deadline = time.monotonic() + 60
    while message.done_at is None and time.monotonic() < deadline:
        time.sleep(0.2)
        message.refresh_from_db()
    assert message.done_at is not None and message.last_error == ""


@pytest.mark.django_db(transaction=True)
def test_an_invitation_is_mailed_by_the_worker_after_commit(worker, people):
    if connection.vendor != "postgresql":
        pytest.skip("the worker shares the test database only on PostgreSQL")
    invitation = services.create_invitation(
        club=people["club"], by=people["admin"], email="nuovo@example.org"
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        invitation.refresh_from_db()
        if invitation.emailed_at:
            break
        time.sleep(0.2)
    assert invitation.emailed_at is not None
    mails = "".join(path.read_text() for path in worker.iterdir())
    assert invitation.get_absolute_url() in mails
    assert "To: nuovo@example.org" in mails


@pytest.mark.django_db(transaction=True)
def test_running_the_invitation_task_twice_mails_once(people, settings, mailoutbox):
    from clubs.tasks import send_invitation_email

    invitation = services.create_invitation(
        club=people["club"], by=people["admin"], email="a@example.org"
    )
    assert len(mailoutbox) == 1  # eager in this run: sent on commit
    assert send_invitation_email(invitation.pk) == "nothing to send"
    assert len(mailoutbox) == 1


def test_health_sees_the_real_broker(client, broker, settings, db):
    settings.CELERY_TASK_ALWAYS_EAGER = False  # the health view reads the setting
    body = client.get("/health/").json()
    assert body["checks"]["broker"]["status"] == "ok"
    assert body["checks"]["broker"]["detail"] != "in-process (eager)"
