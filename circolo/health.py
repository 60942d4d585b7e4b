"""``/health/``: is the database, the cache and the broker reachable, are the tasks of the
outbox being run, and did the last ledger check find the ledger consistent? 200 if all
are, else 503 naming what is down. Each check fails fast (a service that does not answer
costs about a second at most), so the whole answers within 3 seconds."""

import time
import uuid
from collections.abc import Callable
from concurrent import futures
from concurrent.futures import ThreadPoolExecutor

from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.db.models import Count, Min, Q
from django.http import JsonResponse
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from circolo.celery import app
from ledger import check as ledger_check
from plumbing.outbox.models import Message


def _database() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()
    return connection.vendor


def _cache() -> str:
    check = getattr(cache, "check", None)
    if check is not None:  # our Redis cache takes errors for misses: ask Redis itself
        check()
    # A key of this check's own: two checks at once (two probes, a load balancer and a
    # bench) must not read each other's value and call a healthy cache down.
    key = f"health:probe:{uuid.uuid4().hex}"
    value = str(time.monotonic())
    cache.set(key, value, 10)
    try:
        if cache.get(key) != value:
            raise RuntimeError("the cache did not return what was stored")
    finally:
        cache.delete(key)
    return settings.CACHES["default"]["BACKEND"].rsplit(".", 1)[-1]


def _broker() -> str:
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return "in-process (eager)"
    # One try, a second at most to connect and a second to be answered.
    with app.connection_for_write(
        connect_timeout=1, transport_options={"socket_timeout": 1, "socket_connect_timeout": 1}
    ) as conn:
        conn.ensure_connection(max_retries=0, timeout=2)
        return conn.transport_cls if isinstance(conn.transport_cls, str) else "connected"


def _outbox() -> str:
    """Are the tasks of the writes being run? Down if a message has waited longer than
    ``OUTBOX_ALERT_SECONDS`` (no worker, or the broker down that long) or was given up on."""
    found = Message.objects.waiting().aggregate(
        waiting=Count("pk"),
        oldest=Min("created_at"),
        given_up=Count("pk", filter=Q(attempts__gte=settings.OUTBOX_MAX_ATTEMPTS)),
    )
    if found["given_up"]:
        raise RuntimeError(f"{found['given_up']} given up on (manage.py outbox_relay --all)")
    if found["oldest"] is None:
        return "nothing waiting"
    age = int((timezone.now() - found["oldest"]).total_seconds())
    if age > settings.OUTBOX_ALERT_SECONDS:
        raise RuntimeError(f"{found['waiting']} waiting, the oldest for {age} s")
    return f"{found['waiting']} waiting, the oldest for {age} s"


def _ledger() -> str:
    """The last ``ledger_check`` (hourly on beat): down if it found a mismatch. Cheap: one
    indexed read, never a recomputation."""
    last = ledger_check.latest()
    if last is None:
        return "not checked yet"
    if not last.ok:
        first = last.problems[0] if last.problems else "?"
        raise RuntimeError(f"mismatch found at {last.at.isoformat()}: {first}")
    return f"consistent at {last.at.isoformat()}"


CHECKS: dict[str, Callable[[], str]] = {
    "database": _database,
    "cache": _cache,
    "broker": _broker,
    "outbox": _outbox,
    "ledger": _ledger,
}


# The checks of services across the network run side by side, each given AWAY_SECONDS: a
# service that accepts connections but never answers costs its socket timeouts (a second
# or two each), and one after the other they made the answer late.
AWAY = ("cache", "broker")
AWAY_SECONDS = 2.0
_away = ThreadPoolExecutor(max_workers=len(AWAY), thread_name_prefix="health")


def _run(check: Callable[[], str]) -> dict[str, str]:
    try:
        return {"status": "ok", "detail": check()}
    except Exception as error:  # noqa: BLE001 - any failure is "down", reported by name
        return {"status": "down", "detail": f"{type(error).__name__}: {error}"[:300]}


@never_cache
@require_GET
def health(request):
    away = {name: _away.submit(_run, CHECKS[name]) for name in AWAY if name in CHECKS}
    report: dict[str, dict[str, str]] = {
        name: _run(check) for name, check in CHECKS.items() if name not in away
    }
    futures.wait(away.values(), timeout=AWAY_SECONDS)
    for name, future in away.items():
        report[name] = (
            future.result()
            if future.done()
            else {"status": "down", "detail": f"no answer within {AWAY_SECONDS:g} s"}
        )
    report = {name: report[name] for name in CHECKS}
    healthy = all(check["status"] == "ok" for check in report.values())
    return JsonResponse(
        {"status": "ok" if healthy else "down", "checks": report}, status=200 if healthy else 503
    )
