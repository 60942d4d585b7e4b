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
- **Where**: ``make test`` runs it once, on PostgreSQL (the integration run: marked
  ``fuzz``, left out of the fast run); ``pytest -m fuzz`` runs it on the SQLite default.
- **Twice**: anonymously, and as ``ada``, admin of a club with a guest, a season and an
  invitation, authenticated by an API token in the ``Authorization`` header.

The coverage phase is skipped where it would try each of the 180 currencies: the club
writes, the ledger's reads (``unit``) and a payment's creation (fuzzing tries currencies
with the rest).

Rules the schema language cannot state are kept by the generator, so that a "valid" case
is valid; the server answers each broken one with a 400 (unit tests in ``tests/test_api.py``
and each game's ``tests/test_*_api.py``). Two hooks keep them:

- ``filter_case`` (:func:`cross_field_rule_broken`) leaves out a valid case that breaks
  one: a season's end is not before its start, an invitation expires in the future and
  claims a guest only with one use, a guest is not merged into themself, a payment is
  between two people and in whole points; a Sputo result (report, decide, correct,
  resolve) on a match that exists, which must fit its players, format and variant (the
  API makes those a 400) and a log the rules engine accepts;
- ``map_case`` (:func:`keep_rules_a_schema_cannot_state`) mends one where leaving such
  cases out would leave too few: a Spazz'u'mazz finishing order lists each of the game's
  players once (a turn log only the engine can judge becomes a finishing order), a
  decision upholds or gives a result, a table's first dealer and opponent are two of its
  seats or neither, a Sputo entry or check-in names a player of the tournament's club (a
  400 otherwise), and a Singapore hand at a table that exists is dealt by
  :func:`deal_a_valid_hand` (the pair in turn, RULES.md's worked example: no generator
  deals 20 cards that close).

Files (the Singapore import is the one upload) are drawn as UTF-8 text: the import reads
JSON lines, and other bytes are a 400 that ``format: binary`` cannot state.

The run prints its figures (operations, cases, failures, seconds); the test fails on any
failure or error, listing each with its ``curl`` command.
"""

import socket
import time
from datetime import date, datetime

import pytest
import schemathesis
from django.core.servers.basehttp import WSGIRequestHandler, WSGIServer
from django.db import connections
from django.test.testcases import LiveServerThread, QuietWSGIRequestHandler
from hypothesis import strategies as st
from schemathesis.engine import events, from_schema
from schemathesis.engine.statistic import Statistic
from schemathesis.specs.openapi.formats import unregister_string_format

from clubs import services
from clubs.tokens import issue_token
from matches.models import TableSession, Tournament, TournamentMatch
from matches.singapore import turns
from tests.singapore_helpers import CLOSING, SEVENTY

MAX_EXAMPLES = 10
SEED = 20_260_601

# Some three minutes of CPU each run: `make test` runs it once, in the integration run, on
# PostgreSQL (the production database); `pytest -m fuzz` runs it on the SQLite default.
pytestmark = pytest.mark.fuzz


class NoDelayHandler(QuietWSGIRequestHandler):
    """Answers without waiting for the client's delayed ACK (Nagle's algorithm would add
    40 ms to every request that writes headers and body apart), one request a connection."""

    def setup(self):
        WSGIRequestHandler.setup(self)
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def handle(self):
        # One request per connection: a kept-alive connection would hold the one server
        # thread while the next request waits to be accepted.
        self.close_connection = True
        self.handle_one_request()


class ServerThread(LiveServerThread):
    """A live server that answers every request in its one thread, one after the other
    (schemathesis sends them one at a time): its database connection is kept from request
    to request, as a production worker's is (``CONN_MAX_AGE``), where a thread per request
    would connect to PostgreSQL anew for each of the thousands of cases."""

    server_class = WSGIServer

    def _create_server(self, connections_override=None):
        return self.server_class((self.host, self.port), NoDelayHandler, allow_reuse_address=False)


@pytest.fixture
def api_url(transactional_db, settings):
    from django.contrib.staticfiles.handlers import StaticFilesHandler

    # The fuzzing mails an invitation in many of its cases: the rate limits (whose 429 is no
    # answer to valid data) have tests of their own, tests/test_throttles.py.
    settings.MAIL_RATE_PER_ADDRESS = settings.MAIL_RATE_PER_RECIPIENT = "1000000/h"

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


def _int(value) -> int:
    try:
        return min(int(value), 2**62)
    except (TypeError, ValueError):
        return 0


def _exists(model, pk) -> bool:
    return model.objects.filter(pk=_int(pk)).exists()


def cross_field_rule_broken(case) -> bool:
    """Whether a generated valid case breaks a rule its schema cannot state."""
    body = case.body if isinstance(case.body, dict) else {}
    path = case.operation.path
    ids = case.path_parameters or {}
    if path.startswith("/api/v1/seasons/"):
        return _before(body.get("end"), body.get("start"))
    if path == "/api/v1/invitations/" and case.method == "POST":
        claims = body.get("player") not in (None, "", "null")
        return _in_the_past(body.get("expires_at")) or (
            claims and str(body.get("max_uses", 1)) != "1"
        )
    if path == "/api/v1/players/{id}/merge/":
        return str(body.get("into")) == str(ids.get("id"))
    if path == "/api/v1/ledger/payments/" and case.method == "POST":
        # Two different people; points are whole numbers.
        whole = not (body.get("unit") == "points" and "." in str(body.get("amount")))
        return body.get("from") == body.get("to") or not whole
    if path.startswith("/api/v1/tournament-matches/{id}/") and path.endswith(
        ("/report/", "/decide/", "/correct/", "/resolve/")
    ):
        # A result fits its match (its two players, its format, the variant's cards, a log
        # the rules engine accepts), which the generator cannot know; no match, a 404.
        return _exists(TournamentMatch, ids.get("id"))
    return False


def deal_a_valid_hand(result: dict, session: TableSession, dealer=None, opponent=None) -> None:
    """``result`` (a generated hand's result) made one the rules engine accepts at
    ``session``: the pair in turn (or the hand's own), a closing hand of RULES.md's worked
    example, the opponent covering one quota. The generator keeps the quotas, ``preview``,
    ``reason`` and the rest."""
    if dealer is None:
        state = turns.table_state(session)
        pair = state.next or tuple(s.player_id for s in state.seats if s.plays)[:2]
        if len(pair) < 2:
            return
        dealer, opponent = pair
        result.update(dealer=dealer, opponent=opponent)
    result.update(
        winner="dealer",
        winner_cards=list(CLOSING),
        loser_cards=list(SEVENTY),
        covers={str(opponent): 1},
        side_bets=[],
    )
    result.pop("melds", None)


def keep_the_format_s_rules(body: dict, tournament) -> None:
    """A tournament's fields that fit its format (each other one is a 400 naming it:
    tests/test_sputo_stages.py): those of another format left out, what the format needs
    given, a capacity not below the places taken, forbidden pairs of nobody."""
    from matches.sputo.services import FORMAT_FIELDS

    chosen = body.get("format") or (tournament.format if tournament else "single_elimination")
    for name, formats in FORMAT_FIELDS.items():
        if name in body and chosen not in formats:
            body.pop(name)
    if chosen == "groups_then_knockout":
        body["groups"], body["advance"] = body.get("groups") or 2, body.get("advance") or 1
        knockout = body.get("knockout_format") or (
            tournament.knockout_format if tournament else "single_elimination"
        )
        if knockout != "double_elimination":
            body.pop("grand_final_reset", None)
    if chosen == "swiss":
        body["swiss_rounds"] = body.get("swiss_rounds") or 3
    if "forbidden_pairs" in body:
        body["forbidden_pairs"] = []
    if tournament is not None and body.get("capacity") is not None:
        body["capacity"] = max(body["capacity"], tournament.places_taken())


def keep_rules_a_schema_cannot_state(case):
    """A generated valid case made to keep the rules its schema cannot state, where leaving
    such cases out would leave too few: the server answers each broken rule with a 400
    (unit tests in each game's ``test_*_api.py``)."""
    body = case.body if isinstance(case.body, dict) else None
    path, ids = case.operation.path, case.path_parameters or {}
    if body is None:
        return case
    players = body.get("players")
    if path == "/api/v1/spazzumazz-games/" and isinstance(players, list):
        # A turn log only the rules engine can judge: the finishing order instead, each
        # player of the game once.
        body.pop("record", None)
        if sorted(body.get("finish_order") or []) != sorted(players):
            body["finish_order"] = players[::-1]
    elif path == "/api/v1/spazzumazz-games/batch/" and isinstance(players, list):
        orders = body.get("finish_orders") or []
        body["finish_orders"] = [o if sorted(o) == sorted(players) else players for o in orders]
    elif path in (
        "/api/v1/spazzumazz-games/{id}/correct/",
        "/api/v1/spazzumazz-games/{id}/decide/",
    ):
        if "record" in body:  # a log only the engine can judge: a finishing order instead
            body.pop("record")
            body["finish_order"] = [1, 2]
        if body.get("uphold") is True:  # uphold the report, or give a result: not both
            body.pop("finish_order", None)
    elif path == "/api/v1/table-sessions/" and isinstance(body.get("seats"), list):
        # The first dealer and opponent: two of the seats, or neither (a draw).
        seats = body["seats"]
        if body.get("first_dealer") is not None or body.get("first_opponent") is not None:
            body["first_dealer"], body["first_opponent"] = seats[0], seats[1]
        else:
            body.pop("first_dealer", None)
            body.pop("first_opponent", None)
    elif path == "/api/v1/table-sessions/import/" and isinstance(body.get("file"), bytes):
        try:
            body["file"].decode("utf-8")
        except UnicodeDecodeError:  # the file is UTF-8 text
            body["file"] = b""
    elif path.startswith("/api/v1/table-sessions/{id}/hands/") and case.method == "POST":
        # A hand is valid when the rules engine says so (its 20 cards close, the stake
        # holds) and the two play at the table: no generator deals one. At a table that
        # exists the hook deals it (no table, no hand: a 404 either way).
        session = TableSession.objects.filter(pk=_int(ids.get("id"))).first()
        hand = None
        if session is not None and "hand_id" in ids:
            hand = session.hands.filter(pk=_int(ids["hand_id"])).first()
        if path == "/api/v1/table-sessions/{id}/hands/" and session is not None:
            deal_a_valid_hand(body, session)
        elif path.endswith("/correct/") and hand is not None:
            deal_a_valid_hand(body, session, hand.dealer_id, hand.opponent_id)
        elif path.endswith("/decide/") and hand is not None:
            if body.get("uphold") is True:  # uphold the hand, or enter its result: not both
                body.pop("result", None)
            elif isinstance(body.get("result"), dict):
                deal_a_valid_hand(body["result"], session, hand.dealer_id, hand.opponent_id)
    elif path == "/api/v1/webhooks/" and case.method == "POST":
        # An address a webhook may use (others are a 400 naming url: tests/test_webhooks.py):
        # here a closed local port (see _webhooks_stay_on_this_machine), so that the events
        # the run causes go nowhere, at once.
        body["url"] = WEBHOOK_URL
    elif path in ("/api/v1/tournaments/", "/api/v1/tournaments/{id}/") and case.method in (
        "POST",
        "PUT",
        "PATCH",
    ):
        keep_the_format_s_rules(body, Tournament.objects.filter(pk=_int(ids.get("id"))).first())
    elif path in ("/api/v1/tournaments/{id}/entrants/", "/api/v1/tournaments/{id}/check-in/"):
        # A player of the tournament's club (another is a 400).
        tournament = Tournament.objects.filter(pk=_int(ids.get("id"))).first()
        if tournament is not None and body.get("player") is not None:
            player = tournament.club.players.active().order_by("pk").first()
            body["player"] = player.pk if player else body["player"]
    return case


def run_schemathesis(url: str, *, headers: dict, skip_coverage_of_writes: bool):
    config = {
        "seed": SEED,
        "workers": 1,
        "headers": headers,
        "checks": {"enabled": True},
        "generation": {"max-examples": MAX_EXAMPLES, "deterministic": True},
    }
    # The coverage phase would try each of the 180 ISO 4217 currencies in three encodings:
    # 2,000 cases for the club writes alone; the ledger's reads and its payments take a
    # unit ("points" or a currency), 220 cases each. Fuzzing tries them with the rest.
    no_coverage = {"phases": {"coverage": {"enabled": False}}}
    config["operations"] = [
        {"include-name-regex": "^(POST|PUT|PATCH) /api/v1/clubs/(\\{slug\\}/)?$", **no_coverage},
        {
            "include-name-regex": "^GET /api/v1/ledger/(balances|debts|settle-up|statements)/",
            **no_coverage,
        },
        {"include-name-regex": "^POST /api/v1/ledger/payments/$", **no_coverage},
    ]
    if skip_coverage_of_writes:
        config["operations"] = [
            {"include-method-regex": "^(POST|PUT|PATCH|DELETE)$", **no_coverage},
            *config["operations"][1:],
        ]
    # The one upload (a Singapore import) reads UTF-8 text, JSON lines; other bytes are a 400
    # the schema (``format: binary``) cannot state: files are drawn as text.
    schemathesis.openapi.format("binary", st.text(max_size=200).map(str.encode))
    schema = schemathesis.openapi.from_url(
        f"{url}/api/schema/?format=json", config=schemathesis.Config.from_dict(config)
    )

    def negative(case) -> bool:
        meta = case.meta
        return meta is not None and meta.generation.mode.is_negative

    @schema.hook
    def map_case(context, case):
        return case if negative(case) else keep_rules_a_schema_cannot_state(case)

    @schema.hook
    def filter_case(context, case):
        return negative(case) or not cross_field_rule_broken(case)

    statistic, errors = Statistic(), []
    started = time.monotonic()
    try:
        for event in from_schema(schema).execute():
            if isinstance(event, events.ScenarioFinished):
                statistic.on_scenario_finished(event.recorder)
            elif isinstance(event, events.NonFatalError | events.FatalError):
                errors.append(event)
    finally:
        unregister_string_format("binary")
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


WEBHOOK_URL = "http://127.0.0.1:9/circolo"  # the discard port: nobody listens


@pytest.fixture(autouse=True)
def _webhooks_stay_on_this_machine(settings):
    settings.WEBHOOK_ALLOW_PRIVATE = True


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
    token = issue_token(user=ada)[1]
    statistic, errors, seconds = run_schemathesis(
        api_url, headers={"Authorization": f"Token {token}"}, skip_coverage_of_writes=False
    )
    summary = report("admin", statistic, errors, seconds)
    print(summary)
    assert len(statistic.tested_operations) >= 30, summary
    assert not statistic.unique_failures_map and not errors, summary
