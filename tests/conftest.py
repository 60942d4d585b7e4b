import copy
import os

import pytest
from django.contrib.auth import get_user_model
from django.db import transaction
from rest_framework.test import APIClient

from clubs import services
from clubs.models import Role
from tests.services import reachable

PASSWORD = "a-Long-enough-password-42"


def pytest_configure(config):
    from django.conf import settings

    # Hashing is deliberately slow; tests create many users and need no real protection.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def pytest_collection_modifyitems(items):
    """The API fuzzing first: its two tests take minutes each, and started last they would
    leave one process working alone at the end of a parallel run. (Work stealing,
    ``--dist worksteal``, cost more than it saved: stolen tests rebuild their module's
    fixtures, such as the permission matrix's world.)"""
    items.sort(key=lambda item: item.get_closest_marker("fuzz") is None)


@pytest.fixture(scope="session", autouse=True)
def _sqlite_flush_past_the_ledgers_triggers():
    """After a transactional test the runner flushes the database: on PostgreSQL with
    TRUNCATE, which the ledger's triggers let pass; on SQLite, which has no TRUNCATE, with
    DELETE, which they refuse (erasures and check runs are kept for good). There the flush
    drops the ledger's triggers first and puts them back after, in its one transaction."""
    from django.db import connections

    from ledger.triggers import SQLITE_TRIGGERS

    sqlite = {type(c.ops) for c in connections.all() if c.vendor == "sqlite"}
    if not sqlite:
        yield
        return
    (DatabaseOperations,) = sqlite
    original = DatabaseOperations.sql_flush

    def sql_flush(self, style, tables, **options):
        sql = original(self, style, tables, **options)
        if not any(table.startswith("ledger_") for table in tables):
            return sql
        drop = [f"DROP TRIGGER IF EXISTS {name};" for name in SQLITE_TRIGGERS]
        return drop + sql + [f"{create.strip()};" for create in SQLITE_TRIGGERS.values()]

    DatabaseOperations.sql_flush = sql_flush
    yield
    DatabaseOperations.sql_flush = original


@pytest.fixture(scope="session", autouse=True)
def _a_cache_of_its_own(worker_id):
    """Tests clear the cache around each test (below): on Redis, a clear empties the whole
    database, so in a parallel run (pytest-xdist) each test process takes a Redis database
    of its own, the ones after ``REDIS_URL``'s (gw0 the next, gw1 the one after)."""
    from urllib.parse import urlsplit, urlunsplit

    from django.conf import settings
    from django.test import override_settings

    default = settings.CACHES["default"]
    if worker_id == "master" or "redis" not in default["BACKEND"].lower():
        yield
        return
    url = urlsplit(default["LOCATION"])
    base = int(url.path.strip("/") or 0)
    database = (base + 1 + int(worker_id.removeprefix("gw"))) % 16
    own = {**default, "LOCATION": urlunsplit(url._replace(path=f"/{database}"))}
    with override_settings(CACHES={"default": own}):
        yield


@pytest.fixture(autouse=True)
def _a_requests_page_versions_move_at_its_end(request, monkeypatch):
    """A test inside one transaction never commits, so what a write's services ask to run
    after the commit waits (the tests run the tasks when they mean to: ``committed``). The
    page versions a request's writes move (``plumbing.public_pages.changed``) move at the
    end of the request here, as they would once its transaction committed on a server: a
    page test reads its write on the next page. What rolled back asked for nothing."""
    marker = request.node.get_closest_marker("django_db")
    if marker is None or marker.kwargs.get("transaction"):
        return
    from django.db import connection
    from django.test import Client

    original = Client.request

    def committing(self, **kwargs):
        start = len(connection.run_on_commit)
        try:
            return original(self, **kwargs)
        finally:
            hooks = connection.run_on_commit
            moved = [hook for hook in hooks[start:] if _moves_page_versions(hook[1])]
            hooks[start:] = [hook for hook in hooks[start:] if hook not in moved]
            for _savepoints, callback, _robust in moved:
                callback()

    monkeypatch.setattr(Client, "request", committing)


def _moves_page_versions(callback) -> bool:
    return getattr(callback, "__module__", "") == "plumbing.public_pages"


@pytest.fixture(autouse=True)
def _english():
    """Messages raised outside a request read in English here (requests pick their own)."""
    from django.utils import translation

    with translation.override("en"):
        yield


@pytest.fixture(autouse=True)
def _fresh_cache():
    """The cache may be Redis (integration run): no test sees another's entries, nor the
    public pages this process keeps in memory."""
    from django.core.cache import cache

    from plumbing import public_pages

    cache.clear()
    public_pages.forget()
    yield
    cache.clear()
    public_pages.forget()


def need_service(url: str, port: int) -> None:
    """Skip when a service is down -- but under CI=true a missing service is a failure."""
    problem = reachable(url, port)
    if problem:
        if os.environ.get("CI"):
            pytest.fail(f"CI is set and {problem}")
        pytest.skip(f"{problem}; set CI=true to make this a failure")


@pytest.fixture
def make_user(db):
    def make(username: str, **fields):
        return get_user_model().objects.create_user(
            username=username, password=PASSWORD, email=f"{username}@example.org", **fields
        )

    return make


@pytest.fixture
def people(make_user):
    """A club with one user of each role, an outsider, and a guest."""
    admin = make_user("ada")
    club = services.create_club(name="Circolo Alfa", founder=admin, city="Roma")
    scorer, member, outsider = make_user("sam"), make_user("mia"), make_user("otto")
    services.add_member(club=club, user=scorer, role=Role.SCORER)
    services.add_member(club=club, user=member, role=Role.MEMBER)
    other = services.create_club(name="Circolo Beta", founder=outsider, is_public=False)
    guest = services.add_guest(club=club, display_name="Zio Pino")
    return {
        "club": club,
        "other": other,
        "admin": admin,
        "scorer": scorer,
        "member": member,
        "outsider": outsider,
        "guest": guest,
    }


@pytest.fixture
def committed(django_capture_on_commit_callbacks):
    """Run a call as a request would: its after-commit work (the outbox's tasks) runs."""

    def run(call):
        with django_capture_on_commit_callbacks(execute=True):
            return call()

    return run


@pytest.fixture
def api():
    return APIClient()


# --- The permission matrix's world (tests/permission_matrix.py) -------------------------------


@pytest.fixture(scope="module")
def world_once(django_db_setup, django_db_blocker, request):
    """The world, built once per module; a module may add its objects through a fixture
    function ``extend_world(world)`` of its own (called once, in the same transaction)."""
    from django.utils import translation

    with django_db_blocker.unblock(), translation.override("en"), transaction.atomic():
        from tests.permission_matrix import build_world

        world = build_world()
        extend = request.module.__dict__.get("extend_world")
        if extend is not None:
            extend(world)
        yield world
        transaction.set_rollback(True)


@pytest.fixture
def world(world_once, db):
    return copy.deepcopy(world_once)
