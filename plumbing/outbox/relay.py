"""Writing, sending and sending again the outbox's messages (see the app's docstring).

The hazards, and what answers each:

- *The broker is down when a write commits.* The write answers as usual: the send fails
  fast (``CELERY_BROKER_*`` timeouts, one publish retry), the message is made due at once
  and the sweep sends it once the broker is back. After a failed send this process skips
  the broker for ``BROKER_PAUSE`` seconds, so that the next writes don't each wait for it.
- *The process dies between the commit and the send*, or *the broker loses the message*
  (a Redis restarted without persistence): the message is not done by its ``due_at``, so
  the sweep sends it again.
- *Two sweeps at once* (beat's and ``manage.py outbox_relay``): each claims a message by
  moving its ``due_at`` forward where it still has the value read; the one that updated no
  row leaves it to the other.
- *A task that fails* is recorded (``last_error``) and sent again when due, each time
  waiting twice as long, ``OUTBOX_MAX_ATTEMPTS`` times at most.
"""

from __future__ import annotations

import logging
import time
from datetime import timedelta
from functools import partial

from celery import Celery, Task
from django.conf import settings
from django.db import DatabaseError, transaction
from django.db.models import F
from django.utils import timezone

from plumbing.outbox.models import Message

log = logging.getLogger(__name__)

BROKER_PAUSE = 5.0  # seconds this process leaves the broker alone after a failed send
ERROR_LENGTH = 1000

_broker_down_until = 0.0  # on the monotonic clock
_next_eager_sweep = 0.0


def enqueue(task: Task, args: tuple | list, kwargs: dict) -> Message:
    """Write ``task(*args, **kwargs)`` in the current transaction; send it once it commits
    (at once outside a transaction). With ``OUTBOX_WORKER`` (``make run``) nothing is sent:
    the message is due at once, and the outbox's own worker (:mod:`plumbing.outbox.worker`)
    runs it as soon as the commit shows it."""
    if settings.OUTBOX_WORKER:
        return Message.objects.create(
            task=task.name, args=list(args), kwargs=dict(kwargs), due_at=timezone.now()
        )
    message = Message.objects.create(
        task=task.name,
        args=list(args),
        kwargs=dict(kwargs),
        due_at=timezone.now() + timedelta(seconds=settings.OUTBOX_REDELIVER_SECONDS),
    )
    transaction.on_commit(partial(send, task, message))
    return message


def _error(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"[:ERROR_LENGTH]


def _update(pk: int, **fields) -> None:
    """Best effort: a database that fails here leaves the message as it was, which at worst
    sends it once more."""
    try:
        Message.objects.filter(pk=pk).update(**fields)
    except DatabaseError:
        log.warning("outbox: could not update message %s", pk, exc_info=True)


def send(task: Task, message: Message) -> bool:
    """Send ``message`` right after the commit that wrote it. Never raises: what is not sent
    here is sent by the sweep. True if sent (or, in-process, run)."""
    global _broker_down_until
    eager = task.app.conf.task_always_eager
    try:
        if not eager and time.monotonic() < _broker_down_until:
            _update(message.pk, due_at=timezone.now(), last_error="not sent: broker down")
            return False
        try:
            task.apply_async(message.args, message.kwargs, task_id=message.task_id)
        except Exception as error:  # noqa: BLE001 - whatever it is, the sweep sends it again
            if eager:  # the task ran here, and failed: it runs again when due
                log.exception("outbox: task %s (%s) failed", message.task, message.task_id)
                _update(message.pk, last_error=_error(error))
            else:
                _broker_down_until = time.monotonic() + BROKER_PAUSE
                log.warning("outbox: %s not sent, the sweep will: %s", message, _error(error))
                _update(message.pk, due_at=timezone.now(), last_error=_error(error))
            return False
        return True
    finally:
        if eager:
            _sweep_now_and_then(task.app)


def _sweep_now_and_then(app: Celery) -> None:
    """In-process tasks have no beat: the relay sweeps every ``OUTBOX_RELAY_SECONDS``."""
    global _next_eager_sweep
    now = time.monotonic()
    if now < _next_eager_sweep:
        return
    _next_eager_sweep = now + settings.OUTBOX_RELAY_SECONDS
    try:
        sweep(app, limit=50)
    except Exception:  # noqa: BLE001 - a sweep never fails the request that ran it
        log.exception("outbox: the sweep failed")


def _task(app: Celery, name: str) -> Task | None:
    if name not in app.tasks:
        app.loader.import_default_modules()  # a web process imports tasks as it uses them
    return app.tasks.get(name)


def claim(message: Message, *, now) -> bool:
    """Make ``message`` due again later (twice as late as the last time), if it is still as
    it was read: False if another sweep changed it meanwhile (it sends it, not this one)."""
    wait = settings.OUTBOX_REDELIVER_SECONDS * 2 ** min(message.attempts, 6)
    claimed = Message.objects.filter(
        pk=message.pk, due_at=message.due_at, done_at__isnull=True
    ).update(due_at=now + timedelta(seconds=wait), attempts=F("attempts") + 1)
    return claimed == 1


def sweep(app: Celery, *, at=None, limit: int = 500) -> dict[str, int]:
    """Send every message that is due (up to ``limit``); stop at the first failed send (the
    broker is down: the next sweep goes on). Returns the counts."""
    now = at or timezone.now()
    eager = app.conf.task_always_eager
    counts = {"sent": 0, "failed": 0, "skipped": 0}
    for message in Message.objects.due(at=now).order_by("due_at", "pk")[:limit]:
        if not claim(message, now=now):  # another sweep got there first
            counts["skipped"] += 1
            continue
        task = _task(app, message.task)
        if task is None:
            _update(message.pk, last_error=f"no task named {message.task!r}")
            counts["failed"] += 1
            continue
        try:
            task.apply_async(message.args, message.kwargs, task_id=message.task_id)
        except Exception as error:  # noqa: BLE001 - see below
            counts["failed"] += 1
            if eager:  # the task ran here and failed: again when due
                log.exception("outbox: task %s (%s) failed", message.task, message.task_id)
                _update(message.pk, last_error=_error(error))
                continue
            # The broker is down: this message is due again at once, as it was.
            _update(message.pk, due_at=now, attempts=message.attempts, last_error=_error(error))
            log.warning("outbox: the sweep stopped, the broker is down: %s", _error(error))
            break
        counts["sent"] += 1
    return counts


def mark_done(task_id: str | None) -> None:
    """A worker (or this process) ran the task of ``task_id``."""
    pk = Message.pk_from_task_id(task_id)
    if pk is not None:
        try:
            Message.objects.filter(pk=pk, done_at__isnull=True).update(done_at=timezone.now())
        except DatabaseError:
            log.warning("outbox: could not mark %s done (it may run again)", task_id)


def mark_failed(task_id: str | None, error: BaseException) -> None:
    """The task of ``task_id`` failed for good (its own retries spent): the sweep sends it
    again when it is due."""
    pk = Message.pk_from_task_id(task_id)
    if pk is not None:
        _update(pk, last_error=_error(error))


def purge(*, older_than: timedelta) -> int:
    """Delete the messages done more than ``older_than`` ago."""
    deleted, _ = Message.objects.filter(done_at__lt=timezone.now() - older_than).delete()
    return deleted
