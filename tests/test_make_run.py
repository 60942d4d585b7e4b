"""`make run` holds a club night: the server its recipe starts (gunicorn with threads, DEBUG
off, static files through WhiteNoise, on the SQLite default, the outbox's worker beside it)
takes 50 phones recording hands at once with no connection reset and no 5xx; each write's
tasks run in that worker, which the server starts again when it is killed, and which then
finishes every task; a mistyped URL gets the site's own 404 page, never Django's debug page.

The server is started with the recipe's own commands, read from the Makefile (only the
address changes, to a free port), on a SQLite file of the test's own.
"""

import json
import os
import re
import shlex
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from http.client import HTTPConnection

import pytest

from tests.singapore_helpers import CLOSING, SEVENTY
from tests.test_settings import ROOT, clean_env

PHONES = 50
PASSWORD = "a-Long-enough-password-42"
SETUP = f"""
import json
from django.contrib.auth import get_user_model
from clubs import services as clubs
from matches.singapore import services
admin = get_user_model().objects.create_user("serata", password="{PASSWORD}")
club = clubs.create_club(name="Circolo della Serata", founder=admin, slug="serata")
tables = []
for n in range({PHONES}):
    a = clubs.add_guest(club=club, display_name=f"Ospite {{2 * n}}")
    b = clubs.add_guest(club=club, display_name=f"Ospite {{2 * n + 1}}")
    table = services.open_session(
        club=club, by=admin, name=f"Tavolo {{n}}", seats=[a, b], first_dealer=a, first_opponent=b
    )
    tables.append([table.pk, a.pk, b.pk])
print(json.dumps(tables))
"""


def recipe(target: str) -> list[list[str]]:
    """The commands of a Makefile target, ``$(PY)`` as this interpreter."""
    lines = (ROOT / "Makefile").read_text().split(f"\n{target}:", 1)[1].split("\n\n", 1)[0]
    return [
        shlex.split(line.strip().replace("$(PY)", sys.executable))
        for line in lines.splitlines()[1:]
        if line.startswith("\t")
    ]


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def request(port, method, path, body=None, token=None) -> tuple[int, str, dict]:
    headers = {"Content-Type": "application/json", "Accept-Language": "en"}
    if token:
        headers["Authorization"] = f"Token {token}"
    connection = HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        connection.request(method, path, body=json.dumps(body) if body else None, headers=headers)
        response = connection.getresponse()
        return response.status, response.read().decode(errors="replace"), dict(response.headers)
    except OSError as error:  # a reset, a refused connection, a timeout: status 0
        return 0, repr(error), {}
    finally:
        connection.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """The `make run` recipe's server on a migrated SQLite file with 50 open tables."""
    where = tmp_path_factory.mktemp("make-run")
    env = clean_env(
        DATABASE_URL=f"sqlite:///{where / 'db.sqlite3'}", STATIC_ROOT=str(where / "static")
    )
    steps = recipe("run")
    assert [step[2] for step in steps[:3]] == ["migrate", "demo", "collectstatic"]
    serve = steps[-1]
    assert serve[1:3] == ["-m", "gunicorn"]
    # The demo (two months of club nights) is left out: the test builds its own tables.
    for command in (steps[0], steps[2], [sys.executable, "manage.py", "shell", "-c", SETUP]):
        run = subprocess.run(
            command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
        )
        assert run.returncode == 0, run.stderr
    tables = json.loads(run.stdout.strip().splitlines()[-1])
    port = free_port()
    process = subprocess.Popen(
        [*serve, "--bind", f"127.0.0.1:{port}"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline = time.monotonic() + 30
        while request(port, "GET", "/health/")[0] != 200:
            assert process.poll() is None, process.stdout.read()
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.1)
        status, body, _ = request(
            port, "POST", "/api/v1/auth/token/", {"username": "serata", "password": PASSWORD}
        )
        assert status == 200, body
        yield {
            "port": port,
            "token": json.loads(body)["token"],
            "tables": tables,
            "db": where,
            "pid": process.pid,
            "env": env,
        }
    finally:
        process.terminate()
        process.wait(timeout=30)
        shutil.rmtree(where / "static", ignore_errors=True)


def hand(dealer: int, opponent: int) -> dict:
    return {
        "dealer": dealer,
        "opponent": opponent,
        "winner": "dealer",
        "winner_cards": CLOSING,
        "loser_cards": SEVENTY,
        "dealer_quotas": 1,
        "covers": {str(opponent): 1},
        "side_bets": [],
    }


def test_fifty_phones_recording_hands_at_once_get_no_reset_and_no_5xx(server):
    port, token = server["port"], server["token"]
    start = threading.Barrier(PHONES)
    answers: list[tuple[int, str]] = [(-1, "no answer")] * PHONES

    def phone(n: int) -> None:  # each phone records the first hand at its own table
        table, dealer, opponent = server["tables"][n]
        path = f"/api/v1/table-sessions/{table}/hands/"
        start.wait()
        status, body, _ = request(port, "POST", path, hand(dealer, opponent), token)
        answers[n] = (status, body[:300])

    phones = [threading.Thread(target=phone, args=(n,)) for n in range(PHONES)]
    began = time.monotonic()
    for thread in phones:
        thread.start()
    for thread in phones:
        thread.join(timeout=120)
    took = time.monotonic() - began

    resets = [body for status, body in answers if status == 0]
    errors = [(status, body) for status, body in answers if status >= 500]
    assert (len(resets), len(errors)) == (0, 0), (resets[:3], errors[:3])
    assert [status for status, _ in answers] == [201] * PHONES, answers[:5]
    assert took < 60


def test_a_mistyped_url_gets_the_sites_404_page_not_the_debug_page(server):
    status, body, headers = request(server["port"], "GET", "/clubs/serata/tabels/")
    assert status == 404
    assert "Page not found" in body and 'class="error-page"' in body
    assert "URLconf" not in body and "DEBUG = True" not in body
    assert "script-src 'self'" in headers["Content-Security-Policy"]


def test_static_files_are_served_by_whitenoise(server):
    status, body, headers = request(server["port"], "GET", "/static/circolo/site.js")
    assert status == 200
    assert "data-submit-on-change" in body
    assert "max-age" in headers["Cache-Control"]
    page = request(server["port"], "GET", "/accounts/login/")[1]
    for asset in re.findall(r'(?:href|src)="(/static/[^"]+)"', page):
        assert request(server["port"], "GET", asset)[0] == 200, asset


def outbox_worker(server_pid: int) -> int | None:
    """The pid of the outbox's worker that the server started (None while there is none)."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                parent = int(stat.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                command = cmdline.read().split(b"\0")
        except (OSError, ValueError, IndexError):
            continue
        if parent == server_pid and b"outbox_worker" in command:
            return int(entry)
    return None


def waiting(db) -> tuple[int, int]:
    """(messages not done, all messages) in the server's outbox."""
    with sqlite3.connect(db / "db.sqlite3", timeout=30) as connection:
        return connection.execute(
            "SELECT SUM(done_at IS NULL), COUNT(*) FROM outbox_message"
        ).fetchone()


def until(condition, seconds: float = 60) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


SAME_AS_A_REBUILD = """
from clubs.models import Club
from matches.singapore.models import SingaporeStats
from matches.singapore.stats import rebuild_club
club = Club.objects.get(slug="serata")
def rows():
    fields = [f.name for f in SingaporeStats._meta.fields if f.name not in ("id", "updated_at")]
    return sorted(SingaporeStats.objects.filter(club=club).values_list(*fields))
kept = rows()
rebuild_club(club.pk)
assert kept == rows(), "the tasks' statistics differ from a rebuild"
print(len(kept))
"""


def test_the_writes_tasks_run_in_the_worker_beside_the_server(server):
    worker = outbox_worker(server["pid"])
    assert worker is not None, "make run's server started no outbox worker"
    table, dealer, opponent = server["tables"][0]
    path = f"/api/v1/table-sessions/{table}/hands/"
    assert request(server["port"], "POST", path, hand(dealer, opponent), server["token"])[0] == 201
    assert until(lambda: waiting(server["db"])[0] == 0, 30), waiting(server["db"])
    assert outbox_worker(server["pid"]) == worker


def test_a_killed_worker_is_started_again_and_finishes_every_task_once(server):
    port, token, db = server["port"], server["token"], server["db"]
    worker = outbox_worker(server["pid"])
    assert worker is not None
    os.kill(worker, signal.SIGSTOP)  # the tasks of 50 hands pile up meanwhile
    try:
        answers = []

        def phone(n: int) -> None:
            table, dealer, opponent = server["tables"][n]
            path = f"/api/v1/table-sessions/{table}/hands/"
            answers.append(request(port, "POST", path, hand(dealer, opponent), token)[0])

        phones = [threading.Thread(target=phone, args=(n,)) for n in range(PHONES)]
        for thread in phones:
            thread.start()
        for thread in phones:
            thread.join(timeout=120)
        assert answers == [201] * PHONES
        piled = waiting(db)[0]
    finally:
        os.kill(worker, signal.SIGCONT)
    assert until(lambda: waiting(db)[0] < piled, 30)  # under way
    os.kill(worker, signal.SIGKILL)  # in the middle of the pile
    left = waiting(db)[0]
    assert 0 < left < piled, (left, piled)

    assert until(lambda: outbox_worker(server["pid"]) not in (None, worker), 30)
    assert until(lambda: waiting(db)[0] == 0, 60), waiting(db)
    check = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", SAME_AS_A_REBUILD],
        cwd=ROOT,
        env=server["env"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert check.returncode == 0, check.stderr[-2000:]
    assert int(check.stdout.split()[-1]) >= 2 * PHONES  # each guest's row
