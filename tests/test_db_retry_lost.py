"""When a connection counts as lost (``circolo.db_retry._closed``): closed under us, or
ended by the server by its own word, even before libpq has seen the socket close. The
chaos run met the second at a hand's COMMIT (a deferred key check cut short by
``pg_terminate_backend``): the request was keyed and must run again, not answer 500."""

from types import SimpleNamespace

import psycopg
import pytest
from django.db import OperationalError

from circolo.db_retry import _closed


def raised_by_django(cause: Exception) -> OperationalError:
    """What Django raises for a driver's error: its own class, the driver's as the cause."""
    error = OperationalError(str(cause))
    error.__cause__ = cause
    return error


OPEN = SimpleNamespace(connection=SimpleNamespace(closed=False))
CLOSED = SimpleNamespace(connection=SimpleNamespace(closed=True))


@pytest.mark.parametrize(
    "cause",
    [
        psycopg.errors.AdminShutdown("terminating connection due to administrator command"),
        psycopg.errors.CrashShutdown("the server crashed"),
        psycopg.errors.CannotConnectNow("the database system is starting up"),
        psycopg.errors.ConnectionFailure("connection failure"),
    ],
)
def test_the_servers_word_that_it_ended_the_session_is_a_lost_connection(cause):
    assert _closed(OPEN, raised_by_django(cause))


@pytest.mark.parametrize(
    "cause",
    [
        psycopg.errors.SerializationFailure("could not serialize access"),
        psycopg.errors.DeadlockDetected("deadlock detected"),
        psycopg.errors.QueryCanceled("canceling statement due to statement timeout"),
    ],
)
def test_other_errors_on_an_open_connection_are_not(cause):
    assert not _closed(OPEN, raised_by_django(cause))
    assert not _closed(OPEN, None)


def test_a_closed_connection_is_lost_whatever_was_raised():
    assert _closed(CLOSED, None)
    assert _closed(CLOSED, raised_by_django(psycopg.errors.DeadlockDetected("x")))
    assert not _closed(SimpleNamespace(connection=None), None)
