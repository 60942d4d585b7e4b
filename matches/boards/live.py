"""The tonight screen, live: every write that changes what it shows queues
:func:`publish` through the outbox (``matches.boards.tasks.tonight_changed``, after commit),
which moves the club's *tonight version*; the page's event stream
(``/clubs/<slug>/tonight/events/``, Server-Sent Events) watches that version and tells the
screen, which fetches its panes again.

The version lives in the cache: Redis in production (the worker that runs the task and the
web processes that hold the streams share it), the process's memory on the SQLite default
(tasks run in-process). With the cache down the stream only sends its keep-alives and the
screen falls back to reloading its panes every minute.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

from celery import shared_task
from django.core.cache import cache

# How often a stream looks at the version, and how long one stream lasts before the browser
# opens the next (EventSource reconnects by itself, after ``retry``).
LOOK_EVERY = 0.5
STREAM_SECONDS = 55
KEEP_ALIVE_SECONDS = 15
RETRY_MS = 1000


def _key(club_id: int) -> str:
    return f"tonight:version:{club_id}"


def version(club_id: int) -> int:
    return int(cache.get(_key(club_id)) or 0)


def publish(club_id: int) -> int:
    """Something on the club's tonight screen changed (called after the write committed)."""
    key = _key(club_id)
    cache.add(key, 0, timeout=None)
    try:
        return int(cache.incr(key))
    except ValueError:  # gone between add and incr (evicted): start again
        cache.set(key, 1, timeout=None)
        return 1


@shared_task(name="matches.boards.tonight_changed", acks_late=True)
def tonight_changed(club_id: int) -> int:
    """The outbox's way to :func:`publish` (``tonight_changed.delay_on_commit(club_id=...)``)."""
    return publish(club_id)


def stream(club_id: int, *, since: int | None, seconds: float = STREAM_SECONDS) -> Iterator[str]:
    """The event stream's text: a ``changed`` event (its id the new version) whenever the
    version moves past ``since``, comments to keep the connection open, then the end (the
    browser reconnects after ``retry`` with the last id it saw)."""
    yield f"retry: {RETRY_MS}\n\n"
    seen = version(club_id) if since is None else since
    if seen != version(club_id):
        seen = version(club_id)
        yield f"id: {seen}\nevent: changed\ndata: {seen}\n\n"
    started = quiet = time.monotonic()
    while time.monotonic() - started < seconds:
        time.sleep(LOOK_EVERY)
        now = version(club_id)
        if now != seen:
            seen = quiet = now
            yield f"id: {now}\nevent: changed\ndata: {now}\n\n"
            quiet = time.monotonic()
        elif time.monotonic() - quiet >= KEEP_ALIVE_SECONDS:
            quiet = time.monotonic()
            yield ": still here\n\n"
