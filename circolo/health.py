"""``/health/``: is the database, the cache and the broker reachable, and did the last
ledger check find the ledger consistent? 200 if all are, else 503 naming what is down."""

import time
from collections.abc import Callable

from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.http import JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from circolo.celery import app
from ledger import check as ledger_check


def _database() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()
    return connection.vendor


def _cache() -> str:
    key = "health:probe"
    value = str(time.monotonic())
    cache.set(key, value, 10)
    if cache.get(key) != value:
        raise RuntimeError("the cache did not return what was stored")
    return settings.CACHES["default"]["BACKEND"].rsplit(".", 1)[-1]


def _broker() -> str:
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return "in-process (eager)"
    with app.connection_for_write() as conn:
        conn.ensure_connection(max_retries=1, timeout=2)
        return conn.transport_cls if isinstance(conn.transport_cls, str) else "connected"


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
    "ledger": _ledger,
}


@never_cache
@require_GET
def health(request):
    report: dict[str, dict[str, str]] = {}
    healthy = True
    for name, check in CHECKS.items():
        try:
            report[name] = {"status": "ok", "detail": check()}
        except Exception as error:  # noqa: BLE001 - any failure is "down", reported by name
            healthy = False
            report[name] = {"status": "down", "detail": f"{type(error).__name__}: {error}"[:300]}
    return JsonResponse(
        {"status": "ok" if healthy else "down", "checks": report}, status=200 if healthy else 503
    )
