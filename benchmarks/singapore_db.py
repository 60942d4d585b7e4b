"""A throwaway database for the Singapore tables' benchmarks.

The database is the one ``DATABASE_URL`` names (SQLite by default), created fresh as Django's
test database, named ``<name>_bench`` (so a PostgreSQL URL of ``circolo_sing`` benchmarks in
``circolo_sing_bench``), migrated, and dropped at the end. Celery runs tasks in-process.
"""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


@contextmanager
def bench_database():
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "circolo.settings")
    os.environ.pop("REDIS_URL", None)
    import django

    django.setup()
    from django.conf import settings
    from django.db import connection
    from django.test.utils import setup_test_environment, teardown_test_environment

    database = settings.DATABASES["default"]
    if database["ENGINE"].endswith("sqlite3"):
        database.setdefault("TEST", {})["NAME"] = ""  # in memory
    else:
        database.setdefault("TEST", {})["NAME"] = f"{database['NAME']}_bench"
    setup_test_environment()
    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        yield connection
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)
        teardown_test_environment()


def vendor() -> str:
    from django.db import connection

    return connection.vendor
