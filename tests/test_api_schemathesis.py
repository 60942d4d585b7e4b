"""The API against its own OpenAPI schema: schemathesis over every operation, with every check.

What runs: schemathesis' engine (the one behind ``st run``) on ``/api/schema/``, through a
real HTTP server in a thread of the test (a live server; the in-process WSGI transport
encodes empty multipart fields wrongly and cannot re-send requests without credentials).

- **Checks: all of them** -- ``not_a_server_error``, ``status_code_conformance`` (every
  status is documented), ``content_type_conformance``, ``response_headers_conformance``,
  ``response_schema_conformance``, ``negative_data_rejection`` (what the schema calls
  invalid is refused), ``positive_data_acceptance`` (what it calls valid is not a 400),
  ``missing_required_header``, ``unsupported_method``, ``allow_header_conformance``,
  ``use_after_free``, ``ensure_resource_availability``, ``ignored_auth``,
  ``object_level_authorization``.
- **Phases**: examples, coverage (boundary values of every parameter and field), fuzzing
  (``MAX_EXAMPLES`` generated cases per operation, valid and invalid) and stateful (chains
  of calls linked by their responses). Anonymously, the coverage phase skips the writes:
  every one of them is a 401, which fuzzing shows as well.
- **Reproducible**: a fixed seed and ``deterministic`` generation; a failure prints the
  ``curl`` command that reproduces it.
- **Twice**: anonymously, and as ``ada``, admin of a club with a guest, a season and an
  invitation, authenticated by a DRF token in the ``Authorization`` header.

Rules the schema language cannot state are kept by the generator (``CROSS_FIELD``), so
that a "valid" case is valid: a season's end is not before its start, an invitation
expires in the future and claims a guest only with one use, a guest is not merged into
themself. The server answers each with a 400 (unit tests in ``tests/test_api.py``).

The run prints its figures (operations, cases, failures, seconds); the test fails on any
failure or error, listing each with its ``curl`` command.
"""

import socket
import time
from datetime import date, datetime

import pytest
import schemathesis
from django.core.servers.basehttp import ThreadedWSGIServer, WSGIRequestHandler
from django.db import connections
from django.test.testcases import LiveServerThread, QuietWSGIRequestHandler
from rest_framework.authtoken.models import Token
from schemathesis.engine import events, from_schema
from schemathesis.engine.statistic import Statistic

from clubs import services

MAX_EXAMPLES = 10
SEED = 20_260_601


class NoDelayHandler(QuietWSGIRequestHandler):
    """Answers without waiting for the client's delayed ACK (Nagle's algorithm would add
    40 ms to every request that writes headers and body apart), one request a connection."""

    def setup(self):
        WSGIRequestHandler.setup(self)
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def handle(self):
        # One request per connection: no thread waits on a kept-alive connection, so the
        # server can wait for every request thread when it stops.
        self.close_connection = True
        self.handle_one_request()


class JoiningServer(ThreadedWSGIServer):
    """Waits for its request threads when it closes: they use the test's connection."""

    daemon_threads = False
    block_on_close = True


class ServerThread(LiveServerThread):
    server_class = JoiningServer

    def _create_server(self, connections_override=None):
        return self.server_class(
            (self.host, self.port),
            NoDelayHandler,
            allow_reuse_address=False,
            connections_override=connections_override,
        )


@pytest.fixture
def api_url(transactional_db):
    from django.contrib.staticfiles.handlers import StaticFilesHandler

    # SQLite in memory is shared with the server thread; other databases are reached anew.
    shared = {
        alias: connections[alias]
        for alias in connections
        if connections[alias].vendor == "sqlite" and connections[alias].is_in_memory_db()
    }
    for connection in shared.values():
        connection.inc_thread_sharing()
    thread = ServerThread("127.0.0.1", StaticFilesHandler, connections_override=shared)
    thread.daemon = True
    thread.start()
    thread.is_ready.wait()
    try:
        if thread.error:
            raise thread.error
        yield f"http://127.0.0.1:{thread.port}"
    finally:
        thread.terminate()
        for connection in shared.values():
            connection.dec_thread_sharing()


def _before(value, other) -> bool:
    try:
        return date.fromisoformat(value) < date.fromisoformat(other)
    except (TypeError, ValueError):
        return False


def _in_the_past(value) -> bool:
    try:
        return datetime.fromisoformat(value).timestamp() <= time.time()
    except (TypeError, ValueError):
        return False


def cross_field_rule_broken(case) -> bool:
    """Whether a generated valid case breaks a rule its schema cannot state."""
    body = case.body if isinstance(case.body, dict) else {}
    path = case.operation.path
    if path.startswith("/api/v1/seasons/"):
        return _before(body.get("end"), body.get("start"))
    if path == "/api/v1/invitations/" and case.method == "POST":
        claims = body.get("player") not in (None, "", "null")
        return _in_the_past(body.get("expires_at")) or (
            claims and str(body.get("max_uses", 1)) != "1"
        )
    if path == "/api/v1/players/{id}/merge/":
        return str(body.get("into")) == str((case.path_parameters or {}).get("id"))
    return False


def run_schemathesis(url: str, *, headers: dict, skip_coverage_of_writes: bool):
    config = {
        "seed": SEED,
        "workers": 1,
        "headers": headers,
        "checks": {"enabled": True},
        "generation": {"max-examples": MAX_EXAMPLES, "deterministic": True},
    }
    # The coverage phase would try each of the 180 ISO 4217 currencies in three encodings:
    # 2,000 cases for the club writes alone. Fuzzing tries them with the rest.
    no_coverage = {"phases": {"coverage": {"enabled": False}}}
    config["operations"] = [
        {"include-name-regex": "^(POST|PUT|PATCH) /api/v1/clubs/(\\{slug\\}/)?$", **no_coverage}
    ]
    if skip_coverage_of_writes:
        config["operations"] = [
            {"include-method-regex": "^(POST|PUT|PATCH|DELETE)$", **no_coverage}
        ]
    schema = schemathesis.openapi.from_url(
        f"{url}/api/schema/?format=json", config=schemathesis.Config.from_dict(config)
    )

    @schema.hook
    def filter_case(context, case):
        meta = case.meta
        negative = meta is not None and meta.generation.mode.is_negative
        return negative or not cross_field_rule_broken(case)

    statistic, errors = Statistic(), []
    started = time.monotonic()
    for event in from_schema(schema).execute():
        if isinstance(event, events.ScenarioFinished):
            statistic.on_scenario_finished(event.recorder)
        elif isinstance(event, events.NonFatalError | events.FatalError):
            errors.append(event)
    return statistic, errors, time.monotonic() - started


def report(who: str, statistic: Statistic, errors: list, seconds: float) -> str:
    lines = [
        f"schemathesis {who}: {len(statistic.tested_operations)} operations, "
        f"{statistic.total_cases} cases, {len(statistic.unique_failures_map)} unique failures, "
        f"{len(errors)} errors, {seconds:.1f} s"
    ]
    for failure in sorted(statistic.unique_failures_map, key=lambda f: (f.operation, f.code)):
        lines.append(f"  {failure.code} {failure.operation}: {failure.title}: {failure.message}")
    for label, groups in statistic.failures.items():
        for group in groups.values():
            lines.append(f"  {label}: {group.code_sample}")
            if group.response is not None:
                answer = group.response.content[:300]
                lines.append(f"    -> {group.response.status_code} {answer!r}")
    for error in errors:
        lines.append(f"  error: {getattr(error, 'label', '')} {getattr(error, 'value', error)!r}")
    return "\n".join(lines)


def test_the_api_keeps_its_schema_for_anonymous_callers(api_url):
    statistic, errors, seconds = run_schemathesis(api_url, headers={}, skip_coverage_of_writes=True)
    summary = report("anonymous", statistic, errors, seconds)
    print(summary)
    assert len(statistic.tested_operations) >= 30, summary
    assert not statistic.unique_failures_map and not errors, summary


def test_the_api_keeps_its_schema_for_a_club_admin(api_url, make_user):
    ada = make_user("ada")
    club = services.create_club(name="Circolo Alfa", founder=ada)
    services.add_guest(club=club, display_name="Zio Pino")
    services.create_season(club=club, name="Inverno", start=date(2025, 1, 1), end=date(2025, 3, 31))
    services.create_invitation(club=club, by=ada, max_uses=5)
    token = Token.objects.create(user=ada).key
    statistic, errors, seconds = run_schemathesis(
        api_url, headers={"Authorization": f"Token {token}"}, skip_coverage_of_writes=False
    )
    summary = report("admin", statistic, errors, seconds)
    print(summary)
    assert len(statistic.tested_operations) >= 30, summary
    assert not statistic.unique_failures_map and not errors, summary
