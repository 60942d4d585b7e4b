"""A club night on a live server: members' phones reading pages while tables post hands and
Spazz'u'mazz games are recorded, each page's and each write's p50/p99 reads-only and under
the writes, beside a floor measured in the same run.

    .venv/bin/python benchmarks/clubnight_bench.py                     (make run's server, 30 s)
    .venv/bin/python benchmarks/clubnight_bench.py --scale 4           (4x the phones and tables)
    .venv/bin/python benchmarks/clubnight_bench.py --stack production  (PostgreSQL, Redis, Celery)

The stacks:

- ``--stack zero`` (the default) is ``make run``'s own: its recipe is read from the
  Makefile and run as it stands, on a fresh SQLite file in a temporary folder (``migrate``,
  ``demo``, ``collectstatic``, then the server line, gunicorn with ``--config
  circolo/gunicorn.conf.py``, with only ``--bind`` added for a free port). Whatever that
  line starts (a task worker beside the server, say) the bench gets too; without a broker
  the tasks run in-process, after each write's commit.
- ``--stack production`` is docs/operations.md's: PostgreSQL (the database
  ``circolo_night_bench``, dropped and made again), Redis db 13 (flushed) as broker and
  cache, ``DEBUG=false``, ``STATIC_MANIFEST=true``, a real ``celery -A circolo worker`` and
  ``celery -A circolo beat`` (the outbox's relay sweeps on beat), and gunicorn with the
  project's config and ``--workers 4 --threads 8`` (``--workers``, ``--threads``), as the
  operations page advises with a shared cache. ``SECURE`` stays off: there is no TLS here.

The load, at ``--scale 1`` (``--scale N`` multiplies each):

- 16 readers: each a member's phone (demo-player01 to demo-player20, round the list again
  past 20), logged in through the login form, with its own keep-alive connection. Each
  loops over its pages, in an order of its own, waiting 0.5 to 1 s between them
  (``--think``): the club page, tonight, a table (one of the tables being played), the
  ledger, the leaderboards, its own player page, and the floor (``--floor``, default
  ``/health/``: the database, the cache, the broker and the outbox asked, no page built),
  so that the floor is sampled as often as a page, by the same phones.
- 4 tables, each a scorer's phone (demo-scorer's API token, one per phone) that every 2 s
  reads its table (``GET /api/v1/table-sessions/<id>/``: the rotation's next pair, as a
  phone shows it) and posts the next hand (``POST .../hands/`` with an ``Idempotency-Key``,
  cards dealt beforehand by the rules engine's bot, the dealer's quota covered by the
  opponent). The demo's open table is one of them; the others are opened through the API
  before the run (4 seats each, a point value of 0.10).
- 2 Spazz'u'mazz phones, each posting a game of 4 of the club's people every 4 s
  (``POST /api/v1/spazzumazz-games/`` with an ``Idempotency-Key``).

The run: a warm-up (``--warmup`` s, readers only, not counted), then the reads-only phase
(the readers, ``--duration`` s), then the same readers with the writers (``--duration``
s). Each row is a page or a write, with its p50 and p99 in each phase as the phones
timed them (the whole request, on this machine: the client shares the two cores with the
server), its p99 over the floor's p99 in the same phase, and its p99 under writes over its
own reads-only p99; then the same from the server's access log (gunicorn's ``%(M)s``, the
server's own milliseconds), where the config's log format gives it. Errors are any answer
that is not 2xx (a refused connection counts, as status 0), and every traceback in the
server's (and the worker's) log, by phase. A write refused as out of turn or invalid is a
bug of this bench, not of the server: the first few such answers are printed.

After the run it says how many messages the task outbox still holds (with a worker: how
long it took to empty). Readers fetch the HTML alone: no static files, no tonight event
stream (each of those would hold one of the server's threads). Every process started here
is stopped (its process group) before the end; ``--keep`` keeps the temporary folder
(database, logs).
"""

from __future__ import annotations

import argparse
import http.client
import http.cookies
import json
import os
import random
import re
import secrets
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import uuid
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the rules engine's bot deals the hands
SLUG = "la-matta"  # clubs/demo.py
PASSWORD = "carte-in-tavola-2026"
SCORER = "demo-scorer"
MEMBERS = 20  # demo-player01 .. demo-player20
NIGHT_DB = "postgres://postgres@127.0.0.1:5432/circolo_night_bench"
NIGHT_REDIS = "redis://127.0.0.1:6379/13"
# What the server must not inherit from this shell (tests/test_settings.py's list).
SERVICE_VARS = (
    "DATABASE_URL",
    "REDIS_URL",
    "CELERY_TASK_ALWAYS_EAGER",
    "DEBUG",
    "SECRET_KEY",
    "ALLOWED_HOSTS",
    "SECURE",
    "EMAIL_URL",
    "CELERY_BROKER_URL",
    "CELERY_RESULT_BACKEND",
    "DJANGO_ALLOW_ASYNC_UNSAFE",
    "CONN_MAX_AGE",
    "CONN_HEALTH_CHECKS",
    "DJANGO_SETTINGS_MODULE",
    "STATIC_ROOT",
    "STATIC_MANIFEST",
)
TRACEBACK = "Traceback (most recent call last)"
# gunicorn's access log as circolo/gunicorn.conf.py writes it: '%(h)s "%(r)s" %(s)s %(b)s %(M)sms'
ACCESS = re.compile(
    r'"(?P<method>[A-Z]+) (?P<path>\S+) HTTP/[\d.]+" (?P<status>\d{3}) \S+ (?P<ms>\d+)ms'
)

PAGE_ROWS = ["club page", "tonight", "a table", "ledger", "leaderboards", "own page"]
WRITE_ROWS = ["table read (API)", "hand POST", "Spazz'u'mazz game POST"]
FLOOR = "floor"


# --- the stack -----------------------------------------------------------------------


def clean_env(**overrides: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in SERVICE_VARS}
    env["PYTHONUNBUFFERED"] = "1"
    env.update(overrides)
    return env


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def make_recipe(target: str) -> list[str]:
    """The shell lines of a Makefile target, ``$(PY)`` as this interpreter."""
    text = (ROOT / "Makefile").read_text()
    body = text.split(f"\n{target}:", 1)[1].split("\n\n", 1)[0]
    lines = []
    for line in body.splitlines()[1:]:
        if not line.startswith("\t"):
            continue
        line = line.strip().lstrip("@-").strip()
        line = line.replace("$(PY)", shlex.quote(sys.executable))
        line = line.replace("$(VENV)", shlex.quote(str(Path(sys.executable).parent.parent)))
        lines.append(line)
    return lines


@dataclass
class Stack:
    kind: str
    work: Path
    workers: int
    threads: int
    env: dict[str, str] = field(default_factory=dict)
    processes: list[tuple[str, subprocess.Popen, Path]] = field(default_factory=list)
    described: str = ""

    def prepare(self) -> None:
        if self.kind == "zero":
            self._prepare_zero()
        else:
            self._prepare_production()

    def _run(self, command: str | list[str], what: str) -> None:
        started = time.perf_counter()
        shell = isinstance(command, str)
        run = subprocess.run(
            command, shell=shell, cwd=ROOT, env=self.env, capture_output=True, text=True
        )
        if run.returncode:
            sys.exit(f"{what} failed ({run.returncode}):\n{run.stdout[-3000:]}{run.stderr[-3000:]}")
        print(f"  {what}: {time.perf_counter() - started:.1f} s", flush=True)

    def _prepare_zero(self) -> None:
        self.env = clean_env(
            DATABASE_URL=f"sqlite:///{self.work / 'db.sqlite3'}",
            STATIC_ROOT=str(self.work / "static"),
        )
        lines = make_recipe("run")
        if not lines or "gunicorn" not in lines[-1]:
            sys.exit(f"make run's recipe does not end with gunicorn: {lines}")
        self.serve_line = lines[-1]
        for line in lines[:-1]:
            self._run(line, line.replace(sys.executable, "python"))
        self.described = (
            "zero: make run's recipe (SQLite in a temp folder, in-process tasks unless the "
            f"recipe starts a worker); server: {self.serve_line.replace(sys.executable, 'python')}"
            " --bind <free port>"
        )

    def _prepare_production(self) -> None:
        import psycopg
        import redis

        parts = urllib.parse.urlsplit(NIGHT_DB)
        admin = urllib.parse.urlunsplit(parts._replace(path="/postgres"))
        name = parts.path.lstrip("/")
        with psycopg.connect(admin, autocommit=True) as connection:
            connection.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
            connection.execute(f"CREATE DATABASE {name}")
        redis.Redis.from_url(NIGHT_REDIS).flushdb()
        self.env = clean_env(
            DJANGO_SETTINGS_MODULE="circolo.settings",
            DATABASE_URL=NIGHT_DB,
            REDIS_URL=NIGHT_REDIS,
            DEBUG="false",
            SECRET_KEY=secrets.token_urlsafe(50),
            ALLOWED_HOSTS="127.0.0.1,localhost",
            STATIC_MANIFEST="true",
            STATIC_ROOT=str(self.work / "static"),
        )
        py = shlex.quote(sys.executable)
        for command in ("migrate --noinput", "demo", "collectstatic --noinput -v0"):
            self._run(f"{py} manage.py {command}", f"manage.py {command}")
        self.described = (
            f"production: PostgreSQL {name}, Redis db 13 (broker and cache), DEBUG off, "
            f"celery worker and beat, gunicorn --config circolo/gunicorn.conf.py "
            f"--workers {self.workers} --threads {self.threads}"
        )

    def _start(self, name: str, command: str) -> None:
        log = self.work / f"{name}.log"
        process = subprocess.Popen(
            command,
            shell=True,
            cwd=ROOT,
            env=self.env,
            stdout=log.open("w"),
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: stopped whole at the end
        )
        self.processes.append((name, process, log))

    def start(self, port: int) -> None:
        py = shlex.quote(sys.executable)
        if self.kind == "zero":
            self._start("server", f"{self.serve_line} --bind 127.0.0.1:{port}")
        else:
            self._start(
                "worker",
                f"{py} -m celery -A circolo worker --loglevel=INFO -n night-bench@%h",
            )
            beat = shlex.quote(str(self.work / "celerybeat-schedule"))
            self._start("beat", f"{py} -m celery -A circolo beat --loglevel=INFO -s {beat}")
            self._start(
                "server",
                f"{py} -m gunicorn circolo.wsgi --config circolo/gunicorn.conf.py "
                f"--workers {self.workers} --threads {self.threads} --bind 127.0.0.1:{port}",
            )
        deadline = time.monotonic() + 90
        while True:
            status = Client(port).get("/health/")[0]
            if status == 200:
                return
            for name, process, log in self.processes:
                if process.poll() is not None:
                    sys.exit(f"{name} stopped at start:\n{log.read_text()[-3000:]}")
            if time.monotonic() > deadline:
                sys.exit(f"the stack did not answer /health/ 200 (last: {status})")
            time.sleep(0.3)

    def log(self, name: str) -> Path | None:
        return next((log for n, process, log in self.processes if n == name), None)

    def sizes(self) -> dict[str, int]:
        return {name: log.stat().st_size for name, _, log in self.processes}

    def stop(self) -> None:
        for _, process, _ in self.processes:
            if process.poll() is None:
                try:
                    os.killpg(process.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        for _, process, _ in self.processes:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(process.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                process.wait(timeout=10)

    def outbox_waiting(self) -> int | None:
        script = (
            "from plumbing.outbox.models import Message;"
            "print('WAITING', Message.objects.waiting().count())"
        )
        run = subprocess.run(
            [sys.executable, "manage.py", "shell", "-c", script],
            cwd=ROOT,
            env=self.env,
            capture_output=True,
            text=True,
        )
        found = re.search(r"WAITING (\d+)", run.stdout)
        return int(found.group(1)) if found else None


# --- the phones ----------------------------------------------------------------------


class Client:
    """One keep-alive connection with its cookies (a phone's browser) or its API token."""

    STALE = (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError)

    def __init__(self, port: int, token: str | None = None):
        self.port, self.token = port, token
        self.cookies: dict[str, str] = {}
        self.connection: http.client.HTTPConnection | None = None
        self.reconnects = 0

    def _headers(self, extra: dict[str, str] | None) -> dict[str, str]:
        headers = {"Accept-Language": "it", "User-Agent": "clubnight-bench"}
        if self.token:
            headers["Authorization"] = f"Token {self.token}"
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        headers.update(extra or {})
        return headers

    def request(
        self, method: str, path: str, body: bytes | None = None, headers: dict | None = None
    ) -> tuple[int, bytes, float]:
        """(status, body, milliseconds); status 0 for a connection that failed."""
        start = time.perf_counter()
        for attempt in (1, 2):
            reused = self.connection is not None
            if self.connection is None:
                self.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
            try:
                self.connection.request(method, path, body=body, headers=self._headers(headers))
                response = self.connection.getresponse()
                data = response.read()
            except self.STALE as error:
                self.close()
                if reused and attempt == 1:  # the server closed a kept-alive connection
                    self.reconnects += 1
                    continue
                return 0, repr(error).encode(), (time.perf_counter() - start) * 1000
            except OSError as error:
                self.close()
                return 0, repr(error).encode(), (time.perf_counter() - start) * 1000
            for header in response.headers.get_all("Set-Cookie") or []:
                for name, morsel in http.cookies.SimpleCookie(header).items():
                    self.cookies[name] = morsel.value
            if response.getheader("Connection", "").lower() == "close":
                self.close()
            return response.status, data, (time.perf_counter() - start) * 1000
        raise AssertionError("unreachable")

    def get(self, path: str) -> tuple[int, bytes, float]:
        return self.request("GET", path, headers={"Accept": "text/html,application/json"})

    def post_json(self, path: str, payload: dict, key: str | None = None):
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if key:
            headers["Idempotency-Key"] = key
        return self.request("POST", path, json.dumps(payload).encode(), headers)

    def close(self) -> None:
        if self.connection is not None:
            self.connection.close()
            self.connection = None

    def log_in(self, username: str) -> None:
        """Through the login form, as a phone's browser does."""
        status, form, _ = self.get("/accounts/login/")
        token = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', form)
        if status != 200 or token is None:
            sys.exit(f"the login page answered {status}")
        data = urllib.parse.urlencode(
            {"username": username, "password": PASSWORD, "csrfmiddlewaretoken": token.group(1)}
        ).encode()
        headers = {"Content-Type": "application/x-www-form-urlencoded"}
        status, _, _ = self.request("POST", "/accounts/login/", data, headers)
        if status != 302 or "sessionid" not in self.cookies:
            sys.exit(f"could not log in as {username} (status {status})")

    def api_token(self, username: str, device: str) -> None:
        body = {"username": username, "password": PASSWORD, "device": device}
        status, data, _ = self.post_json("/api/v1/auth/token/", body)
        if status != 200:
            sys.exit(f"no API token for {username}: {status} {data[:300]!r}")
        self.token = json.loads(data)["token"]


@dataclass
class Sample:
    phase: str
    row: str
    status: int
    ms: float


class Night:
    """The phones of one run and what they timed."""

    def __init__(self, port: int, args: argparse.Namespace):
        self.port, self.args = port, args
        self.phase = "setup"
        self.samples: list[Sample] = []
        self.refused: list[str] = []  # the first few writes refused (a bench bug)
        self.stop_writers = threading.Event()
        self.stop_readers = threading.Event()
        self.rng = random.Random(2026)
        low, high = (float(x) for x in args.think.split(","))
        self.think = (low, high)

    def note(self, row: str, status: int, ms: float, phase: str, body: bytes = b"") -> None:
        self.samples.append(Sample(phase, row, status, ms))
        if not 200 <= status < 300 and len(self.refused) < 8:
            self.refused.append(f"{phase} {row}: {status} {body[:400].decode(errors='replace')}")

    # The club as the API shows it to the scorer.
    def setup(self, readers: int, tables: int, spazz: int) -> None:
        scorer = Client(self.port)
        scorer.api_token(SCORER, "clubnight-bench-setup")
        players = []
        page = 1
        while True:
            status, data, _ = scorer.get(f"/api/v1/players/?club__slug={SLUG}&page={page}")
            found = json.loads(data)
            players += found["results"]
            if not found.get("next"):
                break
            page += 1
        players = [p for p in players if p["merged_into"] is None]
        self.player_ids = [p["id"] for p in players]
        self.player_of = {p["username"]: p["id"] for p in players if p["username"]}
        status, data, _ = scorer.get(f"/api/v1/table-sessions/?club__slug={SLUG}&open=true")
        self.tables = [t["id"] for t in json.loads(data)["results"]][:tables]
        opened = 0
        while len(self.tables) < tables:
            seats = self.rng.sample(self.player_ids, 4)
            body = {"club": SLUG, "name": f"Tavolo {len(self.tables) + 1} (bench)"}
            body |= {"point_value": "0.10", "seats": seats}
            status, data, _ = scorer.post_json("/api/v1/table-sessions/", body)
            if status != 201:
                sys.exit(f"could not open a table: {status} {data[:300]!r}")
            self.tables.append(json.loads(data)["id"])
            opened += 1
        print(f"  tables: {len(self.tables)} ({tables - opened} of the demo's, {opened} opened)")
        self.reader_clients = []
        for n in range(readers):
            username = f"demo-player{n % MEMBERS + 1:02d}"
            client = Client(self.port)
            client.log_in(username)
            own = self.player_of[username]
            pages = [
                ("club page", f"/clubs/{SLUG}/"),
                ("tonight", f"/clubs/{SLUG}/tonight/"),
                ("a table", f"/clubs/{SLUG}/tables/{self.tables[n % len(self.tables)]}/"),
                ("ledger", f"/clubs/{SLUG}/ledger/"),
                ("leaderboards", f"/clubs/{SLUG}/leaderboards/"),
                ("own page", f"/clubs/{SLUG}/players/{own}/"),
                (FLOOR, self.args.floor),
            ]
            self.reader_clients.append((client, pages))
        for name, path in self.reader_clients[0][1]:
            status = self.reader_clients[0][0].get(path)[0]
            if status != 200:
                sys.exit(f"{name} ({path}) answers {status} to a member, not 200")
        print(f"  readers: {readers} logged in through the login form", flush=True)
        self.table_clients = []
        for n, table in enumerate(self.tables):
            client = Client(self.port)
            client.api_token(SCORER, f"table-phone-{n}")
            self.table_clients.append((client, table))
        self.spazz_clients = []
        for n in range(spazz):
            client = Client(self.port)
            client.api_token(SCORER, f"spazz-phone-{n}")
            self.spazz_clients.append(client)
        self.paths = {path: name for _, pages in self.reader_clients for name, path in pages}
        hands = int(self.args.duration / 2 * len(self.tables)) + 20
        self.deals = [_deal(self.rng.randrange(10**9)) for _ in range(min(hands, 400))]

    def reader(self, n: int, client: Client, pages: list[tuple[str, str]]) -> None:
        rng = random.Random(n)
        order = pages[:]
        rng.shuffle(order)
        i = rng.randrange(len(order))
        while not self.stop_readers.is_set():
            name, path = order[i % len(order)]
            i += 1
            phase = self.phase
            status, body, ms = client.get(path)
            self.note(name, status, ms, phase, body)
            self.stop_readers.wait(rng.uniform(*self.think))

    def _paced(self, interval: float, offset: float, step) -> None:
        due = time.monotonic() + offset
        while not self.stop_writers.wait(max(0.0, due - time.monotonic())):
            step()
            due += interval
            due = max(due, time.monotonic())  # late: the next one at once, not a burst

    def table_phone(self, n: int, client: Client, table: int, offset: float) -> None:
        rng = random.Random(1000 + n)
        count = [0]

        def step() -> None:
            phase = self.phase
            status, data, ms = client.get(f"/api/v1/table-sessions/{table}/")
            self.note("table read (API)", status, ms, phase, data)
            pair = json.loads(data).get("next") if status == 200 else None
            if not pair:
                self.note("hand POST", 0, 0.0, phase, b"no next pair on the table")
                return
            count[0] += 1
            deal = self.deals[(n * 7919 + count[0]) % len(self.deals)]
            dealer, opponent = pair["dealer"], pair["opponent"]
            body = {
                "dealer": dealer,
                "opponent": opponent,
                "winner": rng.choice(["dealer", "opponent"]),
                "winner_cards": deal["winner"],
                "loser_cards": deal["loser"],
                "dealer_quotas": 1,
                "covers": {str(opponent): 1},
                "side_bets": [],
            }
            key = f"clubnight-{table}-{count[0]}-{uuid.uuid4().hex[:8]}"
            path = f"/api/v1/table-sessions/{table}/hands/"
            status, data, ms = client.post_json(path, body, key)
            self.note("hand POST", status, ms, phase, data)

        self._paced(2.0, offset, step)

    def spazz_phone(self, n: int, client: Client, offset: float) -> None:
        rng = random.Random(2000 + n)

        def step() -> None:
            phase = self.phase
            players = rng.sample(self.player_ids, 4)
            order = players[:]
            rng.shuffle(order)
            body = {"club": SLUG, "players": players, "finish_order": order}
            key = f"clubnight-spazz-{n}-{uuid.uuid4().hex}"
            status, data, ms = client.post_json("/api/v1/spazzumazz-games/", body, key)
            self.note("Spazz'u'mazz game POST", status, ms, phase, data)

        self._paced(4.0, offset, step)

    def run(self, stack: Stack) -> dict[str, tuple[dict[str, int], dict[str, int]]]:
        """Warm-up, reads-only, under writes; the logs' sizes at each phase's bounds."""
        bounds = {}
        readers = [
            threading.Thread(target=self.reader, args=(n, c, p), daemon=True)
            for n, (c, p) in enumerate(self.reader_clients)
        ]
        self.phase = "warm-up"
        for thread in readers:
            thread.start()
        time.sleep(self.args.warmup)
        for phase in ("reads-only", "under writes"):
            start = stack.sizes()
            self.phase = phase
            self.stop_writers = threading.Event()
            writers = []
            if phase == "under writes":
                tables = len(self.table_clients)
                writers += [
                    threading.Thread(
                        target=self.table_phone, args=(n, c, t, 2.0 * n / tables), daemon=True
                    )
                    for n, (c, t) in enumerate(self.table_clients)
                ]
                phones = max(1, len(self.spazz_clients))
                writers += [
                    threading.Thread(
                        target=self.spazz_phone, args=(n, c, 0.3 + 4.0 * n / phones), daemon=True
                    )
                    for n, c in enumerate(self.spazz_clients)
                ]
                for thread in writers:
                    thread.start()
            print(f"  {phase}: {self.args.duration} s", flush=True)
            time.sleep(self.args.duration)
            self.phase = "after"
            self.stop_writers.set()
            for thread in writers:
                thread.join(timeout=90)
            bounds[phase] = (start, stack.sizes())
        self.stop_readers.set()
        for thread in readers:
            thread.join(timeout=90)
        return bounds


def _deal(seed: int) -> dict:
    from rules.bots import singapore as bot

    return bot.random_record(seed)


# --- the figures ---------------------------------------------------------------------


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def ratio(a: float, b: float) -> str:
    if a != a or b != b or not b:  # nan
        return "-"
    return f"{a / b:.1f}x"


def figures(samples: list[Sample]) -> dict[tuple[str, str], dict]:
    out: dict[tuple[str, str], dict] = {}
    for sample in samples:
        row = out.setdefault(
            (sample.phase, sample.row), {"ms": [], "errors": 0, "n": 0, "statuses": {}}
        )
        row["n"] += 1
        if 200 <= sample.status < 300:
            row["ms"].append(sample.ms)
        else:
            row["errors"] += 1
            row["statuses"][sample.status] = row["statuses"].get(sample.status, 0) + 1
    return out


def print_table(title: str, rows: list[str], found: dict, phases=("reads-only", "under writes")):
    ro, uw = phases
    print(f"\n{title}")
    print(
        f"{'row':<24} {'n':>5} {'p50':>7} {'p99':>7} {'err':>4}   {'n':>5} {'p50':>7} {'p99':>7}"
        f" {'err':>4}  {'ro p99/floor':>12} {'w p99/floor':>11} {'w p99/ro p99':>12}"
    )
    print(f"{'':<24} {'--- reads-only (ms) ---':^26}   {'--- under writes (ms) ---':^26}")
    floor = {phase: pct(found.get((phase, FLOOR), {}).get("ms", []), 0.99) for phase in phases}
    for row in [FLOOR, *rows]:
        cells = []
        p99s = {}
        for phase in phases:
            f = found.get((phase, row))
            if not f:
                cells.append(f"{'-':>5} {'-':>7} {'-':>7} {'-':>4}")
                p99s[phase] = float("nan")
                continue
            p50, p99 = pct(f["ms"], 0.5), pct(f["ms"], 0.99)
            p99s[phase] = p99
            cells.append(f"{f['n']:>5} {p50:>7.1f} {p99:>7.1f} {f['errors']:>4}")
        print(
            f"{row:<24} {cells[0]}   {cells[1]}  {ratio(p99s[ro], floor[ro]):>12}"
            f" {ratio(p99s[uw], floor[uw]):>11} {ratio(p99s[uw], p99s[ro]):>12}"
        )


def server_samples(stack: Stack, bounds: dict, paths: dict[str, str]) -> list[Sample]:
    """The access log's lines of each phase, as samples of the server's own time."""
    log = stack.log("server")
    if log is None:
        return []
    data = log.read_bytes()
    out = []
    for phase, (start, end) in bounds.items():
        chunk = data[start.get("server", 0) : end.get("server", 0)].decode(errors="replace")
        for match in ACCESS.finditer(chunk):
            row = classify(match["method"], match["path"], paths)
            if row:
                out.append(Sample(phase, row, int(match["status"]), float(match["ms"])))
    return out


def classify(method: str, path: str, paths: dict[str, str]) -> str | None:
    if method == "GET" and path in paths:
        return paths[path]
    if method == "GET" and re.fullmatch(r"/api/v1/table-sessions/\d+/", path):
        return "table read (API)"
    if method == "POST" and re.fullmatch(r"/api/v1/table-sessions/\d+/hands/", path):
        return "hand POST"
    if method == "POST" and path == "/api/v1/spazzumazz-games/":
        return "Spazz'u'mazz game POST"
    return None


def tracebacks(stack: Stack, bounds: dict) -> list[tuple[str, str, int, str]]:
    """(log, phase, tracebacks, the last one's end) for each log and phase."""
    out = []
    for name, _, log in stack.processes:
        data = log.read_bytes()
        for phase, (start, end) in bounds.items():
            chunk = data[start.get(name, 0) : end.get(name, 0)].decode(errors="replace")
            count = chunk.count(TRACEBACK)
            last = chunk[chunk.rfind(TRACEBACK) :][:1500] if count else ""
            out.append((name, phase, count, last))
        whole = data.decode(errors="replace")
        out.append((name, "whole log", whole.count(TRACEBACK), ""))
    return out


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--scale", type=int, default=1, help="x the phones and tables (1)")
    parser.add_argument("--duration", type=float, default=30, help="seconds of each phase (30)")
    parser.add_argument("--warmup", type=float, default=5, help="seconds of warm-up (5)")
    parser.add_argument("--stack", choices=["zero", "production"], default="zero")
    parser.add_argument("--workers", type=int, default=4, help="production: gunicorn workers")
    parser.add_argument("--threads", type=int, default=8, help="production: threads a worker")
    parser.add_argument("--think", default="0.5,1.0", help="a reader's wait between pages, s")
    parser.add_argument("--floor", default="/health/", help="the floor's path (/health/)")
    parser.add_argument("--port", type=int, default=0, help="the server's port (a free one)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = parser.parse_args(argv)
    readers, tables, spazz = 16 * args.scale, 4 * args.scale, 2 * args.scale
    work = Path(tempfile.mkdtemp(prefix="clubnight-"))
    stack = Stack(args.stack, work, args.workers, args.threads)
    began = time.perf_counter()
    print("load average (1, 5, 15 min) at the start: %.1f %.1f %.1f" % os.getloadavg())
    print(f"Preparing the {args.stack} stack in {work}", flush=True)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    try:
        stack.prepare()
        port = args.port or free_port()
        stack.start(port)
        print(f"  {stack.described}")
        night = Night(port, args)
        night.setup(readers, tables, spazz)
        bounds = night.run(stack)
        reconnects = sum(c.reconnects for c, _ in night.reader_clients)
        reconnects += sum(c.reconnects for c, _ in night.table_clients)
        reconnects += sum(c.reconnects for c in night.spazz_clients)
        waiting, drained = stack.outbox_waiting(), 0.0
        if args.stack == "production":
            start = time.monotonic()
            while waiting and time.monotonic() - start < 120:
                time.sleep(1)
                waiting = stack.outbox_waiting()
            drained = time.monotonic() - start
    finally:
        stack.stop()
    rows = PAGE_ROWS + WRITE_ROWS
    found = figures(night.samples)
    print(
        f"\nclub night: {args.stack} stack, scale {args.scale}: {readers} readers, {tables} tables"
        f" (a hand every 2 s each), {spazz} Spazz'u'mazz phones (a game every 4 s each),"
        f" {args.duration:g} s a phase, think {args.think} s; floor {args.floor}"
    )
    print_table("as the phones timed it (ms; err: not 2xx, 0 = no answer):", rows, found)
    on_server = figures(server_samples(stack, bounds, night.paths))
    if on_server:
        print_table("the server's own time (access log, whole ms):", rows, on_server)
    else:
        print("\n(no access log lines in the config's format: no server-side figures)")
    planned = {
        "hand POST": int(args.duration / 2) * tables,
        "Spazz'u'mazz game POST": int(args.duration / 4) * spazz,
    }
    for row, plan in planned.items():
        done = found.get(("under writes", row), {"n": 0})["n"]
        print(f"{row}: {done} sent under writes (the pace asks for about {plan})")
    errors = sum(f["errors"] for f in found.values())
    statuses: dict[int, int] = {}
    for f in found.values():
        for status, n in f["statuses"].items():
            statuses[status] = statuses.get(status, 0) + n
    print(f"errors (not 2xx, as the phones saw them): {errors} {statuses or ''}")
    print(f"kept-alive connections the server had closed (sent again): {reconnects}")
    for line in night.refused:
        print(f"  refused: {line}")
    for name, phase, count, last in tracebacks(stack, bounds):
        print(f"tracebacks in the {name}'s log, {phase}: {count}")
        if last:
            print("  " + last.replace("\n", "\n  "))
    if args.stack == "production":
        print(f"outbox: {waiting} messages waiting {drained:.0f} s after the run")
    else:
        print(f"outbox: {waiting} messages waiting after the run")
    print("load average (1, 5, 15 min) at the end: %.1f %.1f %.1f" % os.getloadavg())
    print(f"the whole run took {time.perf_counter() - began:.0f} s")
    if args.keep:
        print(f"kept: {work}")
    else:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
