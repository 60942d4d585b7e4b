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

import threading
import time
from collections.abc import Iterator

from celery import shared_task
from django.core.cache import cache

# How often the watcher looks at the versions, and how long one stream lasts before the browser
# opens the next (EventSource reconnects by itself, after ``retry``).
LOOK_EVERY = 0.25
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


class Watcher:
    """One thread per process looks at the versions of the clubs that have screens open, in
    one cache read every :data:`LOOK_EVERY`, and wakes the streams of a club whose version
    moved: 200 open streams cost one read, not 200 (each stream only waits on a condition)."""

    def __init__(self) -> None:
        self._lock = threading.Condition()
        self._watched: dict[int, int] = {}  # club id -> streams open
        self._versions: dict[int, int] = {}
        self._thread: threading.Thread | None = None

    def current(self, club_id: int) -> int:
        with self._lock:
            if club_id not in self._versions:
                self._versions[club_id] = version(club_id)
            return self._versions[club_id]

    def watch(self, club_id: int) -> None:
        with self._lock:
            self._watched[club_id] = self._watched.get(club_id, 0) + 1
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="tonight", daemon=True)
                self._thread.start()

    def unwatch(self, club_id: int) -> None:
        with self._lock:
            self._watched[club_id] -= 1
            if not self._watched[club_id]:
                del self._watched[club_id]
                self._versions.pop(club_id, None)

    def wait(self, club_id: int, seen: int, timeout: float) -> int:
        """The club's version once it is not ``seen`` any more, or after ``timeout``."""
        with self._lock:
            self._lock.wait_for(lambda: self._versions.get(club_id, seen) != seen, timeout)
            return self._versions.get(club_id, seen)

    def _run(self) -> None:
        while True:
            time.sleep(LOOK_EVERY)
            with self._lock:
                clubs = list(self._watched)
            if not clubs:
                continue
            try:
                found = cache.get_many([_key(pk) for pk in clubs])
            except Exception:  # noqa: BLE001 - the cache down: the screens wait, then poll
                continue
            with self._lock:
                moved = False
                for pk in clubs:
                    now = int(found.get(_key(pk)) or 0)
                    if pk in self._watched and self._versions.get(pk) != now:
                        self._versions[pk] = now
                        moved = True
                if moved:
                    self._lock.notify_all()


WATCHER = Watcher()


def stream(club_id: int, *, since: int | None, seconds: float = STREAM_SECONDS) -> Iterator[str]:
    """The event stream's text: a ``changed`` event (its id the new version) whenever the
    version moves past ``since``, comments to keep the connection open, then the end (the
    browser reconnects after ``retry`` with the last id it saw)."""
    WATCHER.watch(club_id)
    try:
        yield f"retry: {RETRY_MS}\n\n"
        now = WATCHER.current(club_id)
        seen = now if since is None else since
        if seen != now:
            seen = now
            yield f"id: {seen}\nevent: changed\ndata: {seen}\n\n"
        started = time.monotonic()
        while (left := seconds - (time.monotonic() - started)) > 0:
            now = WATCHER.wait(club_id, seen, min(KEEP_ALIVE_SECONDS, left))
            if now != seen:
                seen = now
                yield f"id: {now}\nevent: changed\ndata: {now}\n\n"
            else:
                yield ": still here\n\n"
    finally:
        WATCHER.unwatch(club_id)
