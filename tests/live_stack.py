"""A live stack of the test run's own (benchmarks/chaos.py ``Stack``): Redis on a free port,
gunicorn, a Celery worker and beat, on the test database (PostgreSQL: the integration run).
Without PostgreSQL or redis-server the tests that use it skip, except under CI=true."""

import os
import shutil
from contextlib import contextmanager

import pytest
from django.conf import settings
from django.db import connection

from benchmarks.chaos import Stack


def database_url() -> str:
    db = settings.DATABASES["default"]
    host, port = db["HOST"] or "127.0.0.1", db["PORT"] or 5432
    return f"postgres://{db['USER']}@{host}:{port}/{db['NAME']}"


@contextmanager
def live_stack(workdir, **options):
    if connection.vendor != "postgresql":
        pytest.skip("the live stack shares the test database only on PostgreSQL")
    if not shutil.which("redis-server"):
        if os.environ.get("CI"):
            pytest.fail("CI is set and redis-server is missing")
        pytest.skip("redis-server is missing (apt-get install redis-server)")
    stack = Stack(database_url=database_url(), workdir=workdir, **options)
    with stack:
        yield stack


def show_logs(stack: Stack) -> None:
    """What the stack's processes said last (shown with a failed test's output)."""
    for name in ("web", "worker", "beat"):
        print(f"--- {name} log (last lines)\n{stack.log(name)}")
