"""The reliability run: faults under load against a live stack, counted.

    make chaos                                   (or: .venv/bin/python benchmarks/chaos.py)
    .venv/bin/python benchmarks/chaos.py --seconds 30 --clients 8 --only broker

It creates a PostgreSQL database (``--database-url``; dropped at the end unless
``--keep-db``), migrates it and fills it with a public club (Singapore tables, players for
Spazz'u'mazz, a scorer), then starts a stack of its own: a Redis server on a free port
(broker and cache; no persistence, so a restarted Redis has lost its queue), gunicorn (2
sync workers), a Celery worker and Celery beat, with the production defaults except the
outbox's waits, made short so that a run ends in minutes (``OUTBOX_RELAY_SECONDS`` 1,
``OUTBOX_REDELIVER_SECONDS`` 5). Client threads record Singapore hands through the API,
one thread per table (each hand with its ``Idempotency-Key``, sent again with the same key
when the connection is cut, as a phone would), Spazz'u'mazz games (each at a ``played_at``
of its own, with its ``Idempotency-Key``, sent again the same way), and one reads the
public club page and the leaderboards, while each scenario does its harm:

- ``baseline``: none;
- ``broker``: Redis stopped from a third of the run to two thirds, then started again;
- ``web``: a gunicorn worker killed (SIGKILL) every few seconds, mid-request;
- ``database``: every database connection of the stack terminated (``pg_terminate_backend``)
  every few seconds.

After each scenario it waits for the outbox to empty and prints: requests, 5xx, connections
cut (the client got no answer), requests the server ran again after a lost database
connection (``circolo/db_retry.py``), writes lost (answered 2xx, not in the database),
duplicates (one key or one ``played_at`` recorded twice), tasks queued, tasks the sweep
sent again, tasks lost (never run), whether the statistics equal a rebuild from scratch
(``recompute_stats``) and the slowest request. The target is 0 for 5xx, lost writes,
duplicates and lost tasks; exit status 1 if one is missed. ``CHAOS_VERBOSE=1`` also prints
the slowest request and each 5xx; ``--logs DIR`` keeps the processes' logs.

The same pieces drive the integration run's short version (tests/test_reliability.py), on
the test database.
"""

from __future__ import annotations

import argparse
import http.client
import itertools
import json
import os
import random
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PASSWORD = "chaos-Long-enough-password-42"
CLOSING = "AS 2S 3S QH QD QC 7D 8D 9D 10D".split()
SEVENTY = "KH KD KC 9C 8C 7C 6H 5H 2H 3C".split()
CUT = (
    ConnectionError,
    http.client.RemoteDisconnected,
    http.client.IncompleteRead,
    urllib.error.URLError,
    TimeoutError,
    socket.timeout,
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (read from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            # pid (comm) state ppid ...: comm may hold spaces, so split after its ")".
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


# --- The stack ---------------------------------------------------------------------------


class Stack:
    """Redis, gunicorn, a Celery worker and beat on ``database_url``, each a process of its
    own, logging into ``workdir``. Use as a context manager."""

    def __init__(
        self,
        *,
        database_url: str,
        workdir: Path,
        web_workers: int = 2,
        threads: int = 1,
        relay_seconds: float = 1.0,
        redeliver_seconds: float = 5.0,
    ):
        self.database_url = database_url
        self.workdir = workdir
        self.web_workers, self.threads = web_workers, threads
        self.redis_port, self.web_port = free_port(), free_port()
        self.redis_url = f"redis://127.0.0.1:{self.redis_port}/0"
        self.url = f"http://127.0.0.1:{self.web_port}"
        self.outbox = {
            "OUTBOX_RELAY_SECONDS": str(relay_seconds),
            "OUTBOX_REDELIVER_SECONDS": str(redeliver_seconds),
        }
        self.processes: dict[str, subprocess.Popen] = {}

    def env(self) -> dict[str, str]:
        keep = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "VIRTUAL_ENV", "CI")
        env = {k: v for k, v in os.environ.items() if k in keep}
        env.update(
            DJANGO_SETTINGS_MODULE="circolo.settings",
            PYTHONPATH=str(ROOT),
            DATABASE_URL=self.database_url,
            REDIS_URL=self.redis_url,
            CELERY_TASK_ALWAYS_EAGER="false",
            DEBUG="false",
            SECRET_KEY="chaos-" + "x" * 50,
            ALLOWED_HOSTS="127.0.0.1",
            EMAIL_URL=f"filemail://{self.workdir / 'mail'}",
            LOG_LEVEL="WARNING",
            **self.outbox,
        )
        return env

    def _start(self, name: str, argv: list[str]) -> subprocess.Popen:
        log = open(self.workdir / f"{name}.log", "ab")  # noqa: SIM115 - closed with the process
        process = subprocess.Popen(
            argv, cwd=ROOT, env=self.env(), stdout=log, stderr=subprocess.STDOUT
        )
        log.close()
        self.processes[name] = process
        return process

    def start_redis(self) -> None:
        """Redis without persistence: started again, it has lost its queue."""
        argv = f"redis-server --port {self.redis_port} --bind 127.0.0.1 --appendonly no"
        self._start("redis", [*argv.split(), "--save", "", "--dir", str(self.workdir)])
        _wait_for(lambda: _redis_ping(self.redis_port), "redis", 10)

    def stop_redis(self) -> None:
        self._stop("redis", signal.SIGTERM)

    def start(self) -> Stack:
        (self.workdir / "mail").mkdir(parents=True, exist_ok=True)
        self.start_redis()
        python = sys.executable
        web = (
            f"-m gunicorn circolo.wsgi --bind 127.0.0.1:{self.web_port}"
            f" --workers {self.web_workers} --threads {self.threads} --timeout 30"
            " --graceful-timeout 5 --no-control-socket"  # several stacks may run side by side
        )
        self._start("web", [python, *web.split()])
        worker = (
            "-m celery -A circolo worker --pool=solo --without-gossip --without-mingle"
            f" --loglevel=WARNING -n chaos-{self.redis_port}@%h"
        )
        self._start("worker", [python, *worker.split()])
        beat = "-m celery -A circolo beat --loglevel=WARNING -s"
        self._start("beat", [python, *beat.split(), str(self.workdir / "beat-schedule")])
        _wait_for(lambda: _answers(self.url + "/health/"), "gunicorn", 30)
        _wait_for(self._worker_ready, "the Celery worker", 30)
        return self

    def _worker_ready(self) -> bool:
        from celery import Celery

        control = Celery(broker=self.redis_url, set_as_current=False)
        try:
            return bool(control.control.ping(timeout=0.5))
        finally:
            control.close()

    def kill_web_worker(self) -> int | None:
        """SIGKILL one gunicorn worker (the master starts another); its pid, or None."""
        pids = children(self.processes["web"].pid)
        if not pids:
            return None
        pid = random.choice(pids)
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            return None
        return pid

    def _stop(self, name: str, how: int) -> None:
        process = self.processes.pop(name, None)
        if process is None or process.poll() is not None:
            return
        process.send_signal(how)
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)

    def close(self) -> None:
        """Stop everything at once (each its own way of stopping soon), Redis last."""
        stopping = [(name, self.processes.pop(name, None)) for name in ("beat", "worker", "web")]
        for _name, process in stopping:
            if process is not None and process.poll() is None:
                process.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + 10
        for _name, process in stopping:
            if process is not None:
                try:
                    process.wait(max(0.1, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait(5)
        self._stop("redis", signal.SIGTERM)

    def retried(self) -> int:
        """Requests the web server ran again after a lost database connection, so far."""
        path = self.workdir / "web.log"
        return path.read_text(errors="replace").count("running it again") if path.exists() else 0

    def log(self, name: str, lines: int = 30) -> str:
        path = self.workdir / f"{name}.log"
        if not path.exists():
            return ""
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])

    def __enter__(self) -> Stack:
        try:
            return self.start()
        except BaseException:
            self.close()
            raise

    def __exit__(self, *exc) -> None:
        self.close()


def _redis_ping(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as s:
            s.sendall(b"PING\r\n")
            return s.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def _answers(url: str) -> bool:
    try:
        # A worker's first request loads the URLconf and the rest: seconds on a busy machine.
        with urllib.request.urlopen(url, timeout=30):
            return True
    except urllib.error.HTTPError:
        return True  # an answer (the health check may be 503 while the worker starts)
    except CUT:
        return False


def _wait_for(ready, what: str, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if ready():
            return
        time.sleep(0.2)
    raise RuntimeError(f"{what} did not start within {seconds} s")


# --- The club ----------------------------------------------------------------------------


@dataclass
class World:
    slug: str
    username: str
    tables: list[int]  # Singapore table sessions, one per Singapore client
    players: list[int]  # guests for Spazz'u'mazz games


def seed(*, tables: int, name: str = "Circolo del Caos") -> World:
    """A public club with a scorer, ``tables`` open Singapore tables of three guests each,
    and six guests for Spazz'u'mazz (Django must be set up)."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.hashers import PBKDF2PasswordHasher

    from clubs import services as clubs
    from clubs.models import Role
    from matches.singapore import services as singapore

    admin = get_user_model().objects.create_user("chaos-admin", password=PASSWORD)
    scorer = get_user_model().objects.create_user("chaos-scorer")
    # Hashed as the servers hash (a test run's settings may hash with a faster hasher).
    hasher = PBKDF2PasswordHasher()
    scorer.password = hasher.encode(PASSWORD, hasher.salt())
    scorer.save(update_fields=["password"])
    club = clubs.create_club(name=name, founder=admin, city="Napoli", is_public=True)
    clubs.add_member(club=club, user=scorer, role=Role.SCORER)
    sessions = []
    for t in range(tables):
        seats = [clubs.add_guest(club=club, display_name=f"T{t} {n}") for n in "ABC"]
        session = singapore.open_session(
            club=club,
            by=scorer,
            name=f"Tavolo {t + 1}",
            seats=seats,
            first_dealer=seats[0],
            first_opponent=seats[1],
        )
        sessions.append(session.pk)
    players = [clubs.add_guest(club=club, display_name=f"Spazz {n}").pk for n in range(6)]
    return World(club.slug, scorer.username, sessions, players)


# --- The clients -------------------------------------------------------------------------


@dataclass
class Tally:
    requests: int = 0
    statuses: Counter = field(default_factory=Counter)
    cut: int = 0  # requests that got no answer (the connection was cut or refused)
    slowest: float = 0.0
    slowest_request: str = ""
    failures: list[str] = field(default_factory=list)  # the 5xx requests
    hands: dict[str, int] = field(default_factory=dict)  # key -> last status
    games: dict[str, int] = field(default_factory=dict)  # played_at -> status (0: none)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def record(self, status: int | None, seconds: float, what: str = "") -> None:
        with self.lock:
            self.requests += 1
            if seconds > self.slowest:
                self.slowest, self.slowest_request = seconds, f"{what} -> {status}"
            if status is None:
                self.cut += 1
            else:
                self.statuses[status] += 1
                if status >= 500:
                    self.failures.append(f"{what} -> {status}")

    def merge(self, other: Tally) -> None:
        with self.lock:
            self.requests += other.requests
            self.statuses.update(other.statuses)
            self.cut += other.cut
            self.failures += other.failures
            self.hands.update(other.hands)
            self.games.update(other.games)
            if other.slowest > self.slowest:
                self.slowest, self.slowest_request = other.slowest, other.slowest_request

    @property
    def server_errors(self) -> int:
        return sum(n for status, n in self.statuses.items() if status >= 500)


class Client:
    def __init__(self, url: str, tally: Tally, token: str | None = None):
        self.url, self.tally, self.token = url, tally, token

    def call(self, method: str, path: str, body=None, *, key: str | None = None):
        """``(status, data)``; ``(None, None)`` when no answer came (counted as cut)."""
        headers = {"Accept-Language": "en", "Content-Type": "application/json"}
        if self.token:
            headers["Authorization"] = f"Token {self.token}"
        if key:
            headers["Idempotency-Key"] = key
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.url + path, data=data, headers=headers, method=method)
        started = time.monotonic()
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                status, raw = answer.status, answer.read()
        except urllib.error.HTTPError as error:
            status, raw = error.code, error.read()
        except CUT:
            self.tally.record(None, time.monotonic() - started, f"{method} {path}")
            return None, None
        self.tally.record(status, time.monotonic() - started, f"{method} {path}")
        try:
            return status, json.loads(raw or b"{}")
        except ValueError:
            return status, {"raw": raw[:200].decode(errors="replace")}

    def call_until_answered(self, method: str, path: str, body=None, *, key=None, tries=20):
        for attempt in range(tries):
            status, data = self.call(method, path, body, key=key)
            if status is not None:
                return status, data
            time.sleep(min(0.1 * (attempt + 1), 1.0))
        return None, None


def log_in(url: str, username: str, tally: Tally) -> str:
    status, data = Client(url, tally).call_until_answered(
        "POST", "/api/v1/auth/token/", {"username": username, "password": PASSWORD}
    )
    if status != 200:
        raise RuntimeError(f"no token: {status} {data}")
    return data["token"]


def singapore_client(client: Client, world: World, table: int, run: str, stop: threading.Event):
    """Hand after hand at one table: the dealer always wins; a cut connection is sent again
    with the same ``Idempotency-Key``."""
    n = 0
    while not stop.is_set():
        status, state = client.call_until_answered("GET", f"/api/v1/table-sessions/{table}/")
        if status != 200 or not state.get("next"):
            time.sleep(0.2)
            continue
        dealer, opponent = state["next"]["dealer"], state["next"]["opponent"]
        body = {
            "dealer": dealer,
            "opponent": opponent,
            "winner": "dealer",
            "winner_cards": CLOSING,
            "loser_cards": SEVENTY,
            "dealer_quotas": 1,
            "covers": {str(opponent): 1},
            "side_bets": [],
        }
        key = f"{run}:{table}:{n}"
        status, _data = client.call_until_answered(
            "POST", f"/api/v1/table-sessions/{table}/hands/", body, key=key
        )
        with client.tally.lock:
            client.tally.hands[key] = status or 0
        n += 1


def spazzumazz_client(client: Client, world: World, number: int, stop: threading.Event):
    """Games of four of the six players, each played at a moment of its own (a day of this
    client's in this run, a minute each); a cut connection is sent again with the same
    ``Idempotency-Key``."""
    rng = random.Random()
    day = next(_days)
    base = datetime(2020, 1, 1, 20, tzinfo=UTC) + timedelta(days=day)
    n = 0
    while not stop.is_set():
        players = rng.sample(world.players, 4)
        played_at = (base + timedelta(minutes=n)).isoformat()
        body = {
            "club": world.slug,
            "players": players,
            "finish_order": rng.sample(players, 4),
            "played_at": played_at,
        }
        status, _data = client.call_until_answered(
            "POST", "/api/v1/spazzumazz-games/", body, key=f"game:{played_at}"
        )
        with client.tally.lock:
            client.tally.games[played_at] = status or 0
        n += 1


_days = itertools.count()


def reader(client: Client, world: World, stop: threading.Event):
    """A visitor: the public club page and the leaderboards, anonymously."""
    anonymous = Client(client.url, client.tally)
    while not stop.is_set():
        for path in (f"/clubs/{world.slug}/", f"/clubs/{world.slug}/leaderboards/"):
            anonymous.call("GET", path)
        time.sleep(0.05)


def run_load(
    stack_url: str, world: World, *, clients: int, seconds: float, harm=None, tally=None
) -> Tally:
    """``clients`` threads (one per table, then Spazz'u'mazz players, the last a reader) for
    ``seconds``; ``harm(elapsed)`` is called about ten times a second meanwhile. Counts go
    to ``tally`` (a new one by default)."""
    tally = tally if tally is not None else Tally()
    token = log_in(stack_url, world.username, tally)
    stop = threading.Event()
    run = secrets.token_hex(3)
    threads = []
    tables = len(world.tables)
    for i in range(clients):
        client = Client(stack_url, tally, token)
        if i < tables:
            target, args = singapore_client, (client, world, world.tables[i], run, stop)
        elif i == clients - 1:
            target, args = reader, (client, world, stop)
        else:
            target, args = spazzumazz_client, (client, world, i, stop)
        threads.append(threading.Thread(target=target, args=args, daemon=True))
    started = time.monotonic()
    for thread in threads:
        thread.start()
    while (elapsed := time.monotonic() - started) < seconds:
        if harm is not None:
            harm(elapsed)
        time.sleep(0.1)
    stop.set()
    for thread in threads:
        thread.join(60)
    if os.environ.get("CHAOS_VERBOSE"):
        print(f"    slowest: {tally.slowest:.2f} s {tally.slowest_request}", flush=True)
        for failure in tally.failures:
            print(f"    5xx: {failure}", flush=True)
    return tally


# --- The checks --------------------------------------------------------------------------


def wait_for_outbox(seconds: float) -> int:
    """Wait until every outbox message has been run; the number still waiting."""
    from plumbing.outbox.models import Message

    deadline = time.monotonic() + seconds
    while True:
        waiting = Message.objects.waiting().count()
        if not waiting or time.monotonic() > deadline:
            return waiting
        time.sleep(0.5)


DERIVED = [
    "matches.SingaporeStats",
    "matches.SpazzumazzStats",
    "matches.SpazzumazzHeadToHead",
    "matches.SpazzumazzTitle",
    "matches.PlayerRating",
    "matches.RatingChange",
]


def _fields(model) -> list[str]:
    return [
        f.attname
        for f in model._meta.concrete_fields
        if not f.primary_key and f.name not in ("updated_at",)
    ]


def derived_rows() -> dict[str, list[tuple]]:
    """Every statistics and rating row, without ids and update times (floats rounded to
    nine places: a sum taken in another order may differ in its last digits)."""
    from django.apps import apps

    rows = {}
    for label in DERIVED:
        model = apps.get_model(label)
        names = _fields(model)
        rows[label] = sorted(
            tuple(round(v, 9) if isinstance(v, float) else json.dumps(v, default=str) for v in row)
            for row in model.objects.values_list(*names)
        )
    return rows


def differences_from_rebuild() -> list[str]:
    """Rebuild every statistic from scratch (``recompute_stats``) and name the tables whose
    rows differ from what the tasks left."""
    from django.apps import apps
    from django.core.management import call_command

    before = derived_rows()
    call_command("recompute_stats", stdout=open(os.devnull, "w"))  # noqa: SIM115
    after = derived_rows()
    found = []
    for label in DERIVED:
        if before[label] != after[label]:
            first = next(
                (a, b) for a, b in itertools.zip_longest(before[label], after[label]) if a != b
            )
            names = _fields(apps.get_model(label))
            differ = {
                name: (a, b)
                for name, a, b in zip(names, first[0] or (), first[1] or (), strict=False)
                if a != b
            }
            found.append(
                f"{label}: {len(before[label])} rows by the tasks, {len(after[label])} rebuilt;"
                f" first difference (by the tasks, rebuilt): {differ or first}"
            )
    return found


@dataclass
class Figures:
    scenario: str
    requests: int
    server_errors: int
    cut: int
    lost_writes: int
    duplicates: int
    tasks: int
    lost_tasks: int
    stats_differ: list[str]
    slowest: float
    faults: int
    resent: int = 0  # tasks the sweep sent again (their first send lost, or failed)
    retried: int = 0  # requests run again after a lost database connection

    @property
    def ok(self) -> bool:
        return not (
            self.server_errors
            or self.lost_writes
            or self.duplicates
            or self.lost_tasks
            or self.stats_differ
        )


def last_message() -> int:
    """The outbox's last message id: a run's tasks are those after it."""
    from plumbing.outbox.models import Message

    return Message.objects.order_by("-pk").values_list("pk", flat=True).first() or 0


def count(
    scenario: str,
    tally: Tally,
    *,
    faults: int,
    since: int = 0,
    retried: int = 0,
    drain_seconds: float = 60,
) -> Figures:
    """After a run: wait for the outbox, then count what was lost or doubled (the tasks:
    the outbox's messages after ``since``)."""
    from django.db.models import Count

    from matches.models import Hand, SpazzumazzGame
    from plumbing.outbox.models import Message

    lost_tasks = wait_for_outbox(drain_seconds)
    keys = Counter(
        dict(
            Hand.objects.filter(client_key__in=list(tally.hands))
            .values("client_key")
            .annotate(n=Count("pk"))
            .values_list("client_key", "n")
        )
    )
    played = Counter(
        game.played_at.isoformat()
        for game in SpazzumazzGame.objects.only("played_at")
        if game.played_at.isoformat() in tally.games
    )
    lost = sum(1 for k, s in tally.hands.items() if 200 <= s < 300 and not keys[k])
    lost += sum(1 for t, s in tally.games.items() if 200 <= s < 300 and not played[t])
    duplicates = sum(n - 1 for n in keys.values() if n > 1)
    duplicates += sum(n - 1 for n in played.values() if n > 1)
    return Figures(
        scenario=scenario,
        requests=tally.requests,
        server_errors=tally.server_errors,
        cut=tally.cut,
        lost_writes=lost,
        duplicates=duplicates,
        tasks=Message.objects.filter(pk__gt=since).count(),
        lost_tasks=lost_tasks,
        stats_differ=differences_from_rebuild(),
        slowest=tally.slowest,
        faults=faults,
        resent=Message.objects.filter(pk__gt=since, attempts__gt=0).count(),
        retried=retried,
    )


# --- The scenarios -----------------------------------------------------------------------


def broker_down(stack: Stack, seconds: float, every: float = 0):
    """Redis stopped from a third of the run to two thirds, then started again (empty)."""
    state = {"faults": 0}

    def harm(elapsed: float) -> None:
        if state["faults"] == 0 and elapsed > seconds / 3:
            stack.stop_redis()
            state["faults"] = 1
        elif state["faults"] == 1 and elapsed > 2 * seconds / 3:
            stack.start_redis()
            state["faults"] = 2

    return harm, state


def web_worker_killed(stack: Stack, seconds: float, every: float = 6.0):
    """A gunicorn worker killed every ``every`` seconds (a crash, the OOM killer): the
    master starts another, which takes seconds to load the site."""
    state = {"faults": 0, "next": 1.0}

    def harm(elapsed: float) -> None:
        if elapsed >= state["next"] and elapsed < seconds - 1:
            if stack.kill_web_worker():
                state["faults"] += 1
            state["next"] = elapsed + every

    return harm, state


def database_connections_terminated(stack: Stack, seconds: float, every: float = 3.0):
    """Every connection to the database but this process's own terminated every ``every``
    seconds (a failover, a restart, an administrator)."""
    from django.db import connection

    state = {"faults": 0, "next": 1.0, "terminated": 0}

    def harm(elapsed: float) -> None:
        if elapsed >= state["next"] and elapsed < seconds - 1:
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
                    " WHERE datname = current_database() AND pid <> pg_backend_pid()"
                )
                state["terminated"] += cursor.fetchone()[0]
            state["faults"] += 1
            state["next"] = elapsed + every

    return harm, state


def nothing(stack: Stack, seconds: float, every: float = 0):
    """The same load, no harm: the baseline."""
    return None, {"faults": 0}


SCENARIOS = {
    "baseline": nothing,
    "broker": broker_down,
    "web": web_worker_killed,
    "database": database_connections_terminated,
}


def run_scenario(
    name: str,
    stack: Stack,
    world: World,
    *,
    clients: int,
    seconds: float,
    every: float | None = None,
) -> Figures:
    """Run the load with the scenario's harm (every ``every`` seconds where it repeats; by
    default the scenario's own), then count."""
    make = SCENARIOS[name]
    harm, state = make(stack, seconds) if every is None else make(stack, seconds, every)
    since, retried = last_message(), stack.retried()
    tally = run_load(stack.url, world, clients=clients, seconds=seconds, harm=harm)
    if name == "broker" and "redis" not in stack.processes:
        stack.start_redis()
    figures = count(name, tally, faults=state["faults"], since=since)
    figures.retried = stack.retried() - retried
    return figures


HEADER = (
    f"{'scenario':<10} {'faults':>6} {'requests':>8} {'5xx':>4} {'cut':>4} {'retried':>7}"
    f" {'lost writes':>11} {'duplicates':>10} {'tasks':>6} {'resent':>6} {'lost tasks':>10}"
    f" {'stats = rebuild':>15} {'slowest s':>9}"
)


def row(f: Figures) -> str:
    return (
        f"{f.scenario:<10} {f.faults:>6} {f.requests:>8} {f.server_errors:>4} {f.cut:>4}"
        f" {f.retried:>7} {f.lost_writes:>11} {f.duplicates:>10} {f.tasks:>6} {f.resent:>6}"
        f" {f.lost_tasks:>10} {'yes' if not f.stats_differ else 'NO':>15} {f.slowest:>9.2f}"
    )


# --- The command -------------------------------------------------------------------------


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--database-url",
        default="postgres://postgres@127.0.0.1:5432/circolo_chaos",
        help="the PostgreSQL database to create (default: %(default)s)",
    )
    parser.add_argument("--keep-db", action="store_true", help="keep the database at the end")
    parser.add_argument("--seconds", type=float, default=30, help="load per scenario (30)")
    parser.add_argument("--clients", type=int, default=8, help="client threads (8)")
    parser.add_argument("--web-workers", type=int, default=2, help="gunicorn workers (2)")
    parser.add_argument(
        "--only", choices=sorted(SCENARIOS), action="append", help="only these scenarios"
    )
    parser.add_argument(
        "--every",
        type=float,
        help="seconds between harms (default: web 6, database 3)",
    )
    parser.add_argument("--logs", type=Path, help="keep the processes' logs in this folder")
    return parser.parse_args(argv)


def prepare_database(database_url: str) -> None:
    import psycopg

    name = database_url.rsplit("/", 1)[1]
    admin_url = database_url.rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin_url, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        connection.execute(f'CREATE DATABASE "{name}"')
    env = {**os.environ, "DATABASE_URL": database_url}
    env.pop("REDIS_URL", None)
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
        cwd=ROOT,
        env=env,
        check=True,
    )


def drop_database(database_url: str) -> None:
    import psycopg

    name = database_url.rsplit("/", 1)[1]
    admin_url = database_url.rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin_url, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    if not shutil.which("redis-server"):
        print("redis-server is missing: apt-get install -y redis-server", file=sys.stderr)
        return 2
    prepare_database(args.database_url)
    # This process seeds and counts, on the same database, with tasks run in-process.
    os.environ.update(DATABASE_URL=args.database_url, CELERY_TASK_ALWAYS_EAGER="true")
    os.environ.pop("REDIS_URL", None)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "circolo.settings")
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    tables = max(1, args.clients // 2)
    world = seed(tables=tables)
    figures = []
    with tempfile.TemporaryDirectory(prefix="chaos-") as workdir:
        if args.logs:
            args.logs.mkdir(parents=True, exist_ok=True)
            workdir = args.logs
        stack = Stack(
            database_url=args.database_url, workdir=Path(workdir), web_workers=args.web_workers
        )
        try:
            with stack:
                print(
                    f"{args.clients} clients ({tables} at Singapore tables), "
                    f"{args.seconds:g} s per scenario, gunicorn {args.web_workers} workers",
                    flush=True,
                )
                print(HEADER, flush=True)
                for name in args.only or list(SCENARIOS):
                    found = run_scenario(
                        name,
                        stack,
                        world,
                        clients=args.clients,
                        seconds=args.seconds,
                        every=args.every,
                    )
                    figures.append(found)
                    print(row(found), flush=True)
                    for line in found.stats_differ:
                        print(f"    differs: {line}", flush=True)
        finally:
            if not all(f.ok for f in figures):
                for name in ("web", "worker", "beat"):
                    print(f"--- {name} log (last lines)\n{stack.log(name)}", file=sys.stderr)
            if not args.keep_db:
                from django.db import connections

                connections.close_all()
                drop_database(args.database_url)
    return 0 if figures and all(f.ok for f in figures) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
