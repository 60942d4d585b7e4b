"""A request whose database connection was lost before it committed anything is run again,
once, on a new connection, instead of answering 500.

The database may drop a connection at any moment: a restart, a failover, an administrator's
``pg_terminate_backend``. A connection lost while idle costs nothing (``CONN_HEALTH_CHECKS``
replaces it before the next request uses it); one lost in the middle of a request made it
fail with a 500. Whether that request may simply run again depends on one thing: did it
commit anything before the loss? If not, the database has rolled back whatever it had begun
(its tasks with it: they are rows of the outbox), and running it again is as if it had just
arrived. If it did, running it again could record twice, so the error stands (an API client
then sends it again with its ``Idempotency-Key``).

What counts as committing, watched on every query of the request (``execute_wrapper``): a
transaction that commits (an ``on_commit`` hook of ours fires), and any statement but a
``SELECT`` outside a transaction (autocommit). A loss at ``COMMIT`` itself is left alone:
the commit may have happened (that error is not raised by a query, so it is never retried).
Lost means closed under us, or ended by the server's own word (``_LOST_STATES``, class 08):
the error often arrives before libpq has seen the socket close.

A write that honours an ``Idempotency-Key`` (its path is in ``IDEMPOTENT_WRITE_PATHS``) and
was sent with one runs again whatever it had committed: the key answers the write recorded
the first time (a 200 with it), as it would answer the client sending it again.

Only requests whose body can be read again are run again: no multipart upload (those are
streamed), nothing larger than ``DATA_UPLOAD_MAX_MEMORY_SIZE``.
"""

from __future__ import annotations

import logging
import re
from io import BytesIO

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, InterfaceError, OperationalError, connections, transaction
from django.http import HttpResponse

log = logging.getLogger(__name__)

READS = ("SELECT", "DECLARE", "FETCH", "CLOSE")  # DECLARE...: a server-side cursor's reads


# The server's word that it ended the session (an administrator's pg_terminate_backend, a
# shutdown, a crash; SQLSTATE class 08, a connection exception): lost, whether or not libpq
# has seen the socket close yet when the error is raised (it often has not, at COMMIT).
_LOST_STATES = ("57P01", "57P02", "57P03")


def _closed(connection, error: BaseException | None = None) -> bool:
    """Whether ``connection`` is lost: closed under us, or ended by the server (``error``,
    the error that a query or the commit raised)."""
    raw = connection.connection
    if raw is not None and getattr(raw, "closed", False):
        return True
    state = getattr(getattr(error, "__cause__", None), "sqlstate", None) or ""
    return state in _LOST_STATES or state.startswith("08")


class _Watch:
    """An ``execute_wrapper``: did a query find the connection lost; did anything commit?"""

    def __init__(self):
        self.lost = False
        self.committed = False

    def _mark_committed(self) -> None:
        self.committed = True

    def __call__(self, execute, sql, params, many, context):
        connection = context["connection"]
        if connection.in_atomic_block:
            # One hook per transaction: a rollback drops it, the next query adds it again.
            hooks = connection.run_on_commit
            if not any(hook is self._mark_committed for _sids, hook, _robust in hooks):
                transaction.on_commit(self._mark_committed, using=connection.alias)
        try:
            result = execute(sql, params, many, context)
        except (OperationalError, InterfaceError) as error:
            if _closed(connection, error):
                self.lost = True
            raise
        if not connection.in_atomic_block and not str(sql).lstrip()[:8].upper().startswith(READS):
            self.committed = True  # a write in autocommit
        return result


def _replayable(request) -> bool:
    """Keep the body in memory so that it can be read again; False if it may not be."""
    if request.META.get("CONTENT_TYPE", "").startswith("multipart/"):
        return False
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return False
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    if limit is not None and length > limit:
        return False
    request.body  # noqa: B018 - read now, kept in request._body
    return True


def _keyed(request) -> bool:
    """A write sent with an ``Idempotency-Key`` to a path that honours it: the same key
    answers what was recorded the first time, so running it again records nothing twice."""
    return bool(request.headers.get("Idempotency-Key")) and any(
        re.match(pattern, request.path_info) for pattern in settings.IDEMPOTENT_WRITE_PATHS
    )


class RetryOnLostConnection:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        connection = connections[DEFAULT_DB_ALIAS]
        request._db_watch = watch = _Watch()
        request._db_replayable = _replayable(request)
        with connection.execute_wrapper(watch):
            response = self.get_response(request)
        if not getattr(request, "_db_run_again", False) and not (
            request._db_replayable and self._may_run_again(request, watch, connection)
        ):
            return response
        log.warning(
            "the database connection was lost during %s %s (%s): running it again",
            request.method,
            request.path,
            "after its commit, with its idempotency key" if watch.committed else "uncommitted",
        )
        connection.close()
        request._stream = BytesIO(request._body)
        return self.get_response(request)

    @staticmethod
    def _may_run_again(request, watch: _Watch, connection, error=None) -> bool:
        if _keyed(request):  # lost anywhere, even at COMMIT: the key makes it safe
            return watch.lost or _closed(connection, error)
        return watch.lost and not watch.committed

    def process_exception(self, request, exception):
        """A view that will run again: no 500 is logged for its first run."""
        if (
            isinstance(exception, OperationalError | InterfaceError)
            and getattr(request, "_db_replayable", False)
            and self._may_run_again(
                request, request._db_watch, connections[DEFAULT_DB_ALIAS], exception
            )
        ):
            request._db_run_again = True
            return HttpResponse(status=503)  # replaced by the second run's answer
        return None
