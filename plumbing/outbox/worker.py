"""The outbox's own worker: what runs a write's tasks on ``make run``, where there is no
broker, in a process beside the web server instead of on the request's thread.

Why a process of its own on the outbox, and not Celery on a SQLite transport or a thread
pool in the server: the outbox already holds every task a write queued, written in the
write's own transaction, so a process that reads it needs no broker at all and loses
nothing when either process is killed (the rows stay; the worker runs what is not done when
it starts again). A thread in the server would share its one process, its interpreter lock
and its memory with every page; a process of its own uses the machine's other core. A
Celery transport on SQLite (kombu's SQLAlchemy one) would add a second queue beside the
outbox, and a second copy of every message to keep in step with it.

How it runs (``manage.py outbox_worker``, which ``circolo/gunicorn.conf.py`` starts beside
the server and starts again if it dies):

- At start it makes every message not done due at once: what a killed worker had claimed
  and not finished runs again (a task's work is its own transaction, so a task cut off
  midway left nothing, and tasks are idempotent anyway).
- Then it sweeps (:func:`plumbing.outbox.relay.sweep`, in-process as tasks are without a
  broker) every :data:`IDLE_SECONDS` while nothing is due, at once again after a sweep that
  ran something. A task that fails is recorded and runs again when due, as with Celery.
- It also runs the beat schedule (``CELERY_BEAT_SCHEDULE``: housekeeping, the ledger's
  check, the digests, the night reports), each entry when it is due, as beat would.
- SIGTERM or SIGINT stops it after the task in hand.

The web server and this worker share the cache (``CACHE_DIR``, a directory of files that
``make run`` makes afresh at each start), so that what a task changes (a board's version,
the tonight screen's) shows on the pages and the live screens at once.
"""

from __future__ import annotations

import logging
import os
import threading
import time

from celery import Celery
from django.conf import settings
from django.db import close_old_connections
from django.utils import timezone

from plumbing.outbox.models import Message
from plumbing.outbox.relay import sweep

log = logging.getLogger(__name__)

IDLE_SECONDS = 0.2  # how often an idle worker looks for a due message
BATCH = 20  # messages run by one sweep at most (then it looks again at once)
SKIPPED = frozenset({"outbox-relay"})  # the sweep beat runs: here it runs all the time


def release() -> int:
    """Make every message not done and not given up on due now (at the worker's start)."""
    waiting = Message.objects.waiting().filter(attempts__lt=settings.OUTBOX_MAX_ATTEMPTS)
    return waiting.update(due_at=timezone.now())


class Beat:
    """The beat schedule, run in this process: each entry's task when it is due."""

    def __init__(self, app: Celery, schedule: dict) -> None:
        self.app = app
        self.entries = {name: entry for name, entry in schedule.items() if name not in SKIPPED}
        started = self.app.now()
        self.last_run = dict.fromkeys(self.entries, started)

    def _schedule(self, entry: dict):
        from celery.schedules import schedule as every

        run_every = entry["schedule"]
        return run_every if hasattr(run_every, "is_due") else every(run_every, app=self.app)

    def tick(self) -> list[str]:
        """Run the entries that are due; their names."""
        ran = []
        for name, entry in self.entries.items():
            due, _next = self._schedule(entry).is_due(self.last_run[name])
            if not due:
                continue
            self.last_run[name] = self.app.now()
            task = self.app.tasks.get(entry["task"])
            if task is None:
                self.app.loader.import_default_modules()
                task = self.app.tasks.get(entry["task"])
            if task is None:
                log.error("outbox worker: no task named %r (beat entry %s)", entry["task"], name)
                continue
            try:
                task.apply(entry.get("args", ()), entry.get("kwargs", {}), throw=True)
            except Exception:  # noqa: BLE001 - a failed entry runs again when next due
                log.exception("outbox worker: beat entry %s failed", name)
            ran.append(name)
        return ran


def work(
    app: Celery, *, stop: threading.Event, idle: float = IDLE_SECONDS, parent: int | None = None
) -> None:
    """Run the outbox's due messages and the beat schedule until ``stop`` is set (or, with
    ``parent``, until that process is gone: a server killed outright leaves no worker)."""
    released = release()
    log.info("outbox worker: started, %s message(s) waiting", released)
    beat = Beat(app, settings.CELERY_BEAT_SCHEDULE)
    while not stop.is_set():
        if parent is not None and os.getppid() != parent:
            log.warning("outbox worker: the server (pid %s) is gone: stopping", parent)
            break
        close_old_connections()
        try:
            counts = sweep(app, limit=BATCH)
            beat.tick()
        except Exception:  # noqa: BLE001 - the database was busy or gone: look again soon
            log.exception("outbox worker: the sweep failed")
            counts = {"sent": 0, "failed": 0}
        if not (counts["sent"] or counts["failed"]):
            stop.wait(idle)
    log.info("outbox worker: stopped")


def wait_until_done(*, timeout: float = 10.0) -> bool:
    """For the tests and the benchmarks: True once no message waits (within ``timeout``)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not Message.objects.waiting().exists():
            return True
        time.sleep(0.05)
    return False
