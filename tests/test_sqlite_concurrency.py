"""The zero-setup default (SQLite) takes club-night traffic: several phones writing at once.

A real server process (``runserver`` as ``make run`` starts it, and gunicorn with two
workers of four threads) on a SQLite file, and real concurrent HTTP requests: every write
lands, none is a 500 ("database is locked"), and house-rules versions are numbered without a
gap or a duplicate.
"""

import json
import shutil
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from http.client import HTTPConnection
from pathlib import Path

import pytest

from tests.test_settings import ROOT, clean_env

PUTS = 12  # house-rules versions, each with its own cap
GUESTS = 8  # guests added at the same time
SETUP = """
import json
from django.contrib.auth import get_user_model
from clubs import services
from clubs.tokens import issue_token
admin = get_user_model().objects.create_user("busy-admin", password="a-Long-enough-password-42")
services.create_club(name="Circolo Affollato", founder=admin, slug="affollato")
print(json.dumps({"token": issue_token(user=admin)[1]}))
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def env_for(database: Path) -> dict[str, str]:
    return clean_env(DATABASE_URL=f"sqlite:///{database}", DEBUG="false")


@pytest.fixture(scope="module")
def migrated(tmp_path_factory) -> tuple[Path, str]:
    """A migrated SQLite file with an admin, their club and their API token."""
    database = tmp_path_factory.mktemp("sqlite") / "template.sqlite3"
    manage = [sys.executable, "manage.py"]
    for command in (["migrate", "--noinput", "-v0"], ["shell", "-c", SETUP]):
        run = subprocess.run(
            manage + command,
            cwd=ROOT,
            env=env_for(database),
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert run.returncode == 0, run.stderr
    return database, json.loads(run.stdout.strip().splitlines()[-1])["token"]


SERVERS = {
    "runserver": lambda port: [
        sys.executable,
        "manage.py",
        "runserver",
        f"127.0.0.1:{port}",
        "--noreload",
        "--skip-checks",
    ],
    "gunicorn": lambda port: [
        sys.executable,
        "-m",
        "gunicorn",
        "circolo.wsgi",
        "--bind",
        f"127.0.0.1:{port}",
        "--workers",
        "2",
        "--threads",
        "4",
    ],
}


@pytest.fixture(params=sorted(SERVERS))
def server(request, migrated, tmp_path):
    template, token = migrated
    database = tmp_path / "db.sqlite3"
    shutil.copy(template, database)
    port = free_port()
    process = subprocess.Popen(
        SERVERS[request.param](port),
        cwd=ROOT,
        env=env_for(database),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline = time.monotonic() + 30
        while request_once(port, "GET", "/health/")[0] != 200:
            assert process.poll() is None, process.stdout.read()
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.1)
        yield port, token, database
    finally:
        process.terminate()
        process.wait(timeout=30)


def request_once(port: int, method: str, path: str, body=None, token=None) -> tuple[int, str]:
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Token {token}"
    connection = HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        connection.request(method, path, body=json.dumps(body) if body else None, headers=headers)
        response = connection.getresponse()
        return response.status, response.read().decode(errors="replace")
    except OSError as error:
        return 0, repr(error)
    finally:
        connection.close()


def fire_at_once(requests: list[tuple]) -> list[tuple[int, str]]:
    """Send every request from its own thread, all released at the same moment."""
    start = threading.Barrier(len(requests))
    results: list = [None] * len(requests)

    def send(n: int) -> None:
        start.wait()
        results[n] = request_once(*requests[n])

    threads = [threading.Thread(target=send, args=(n,)) for n in range(len(requests))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    return results


def test_concurrent_writes_on_the_sqlite_default_all_land_without_an_error(server):
    port, token, database = server
    caps = [101 + n for n in range(PUTS)]
    rules = "/api/v1/clubs/affollato/house-rules/singapore/"
    requests = [(port, "PUT", rules, {"rules": {"cap": cap}}, token) for cap in caps]
    guests = [f"Ospite {n}" for n in range(GUESTS)]
    requests += [
        (port, "POST", "/api/v1/players/", {"club": "affollato", "display_name": name}, token)
        for name in guests
    ]

    results = fire_at_once(requests)

    failures = [(status, body[:300]) for status, body in results if status >= 500 or not status]
    assert failures == []
    assert [status for status, _ in results] == [200] * PUTS + [201] * GUESTS
    with sqlite3.connect(database) as db:
        versions = db.execute(
            "SELECT version, rules FROM clubs_houseruleset WHERE game = 'singapore'"
            " ORDER BY version"
        ).fetchall()
        names = {row[0] for row in db.execute("SELECT display_name FROM clubs_player")}
    assert [version for version, _ in versions] == list(range(1, PUTS + 1))
    assert sorted(json.loads(stored)["cap"] for _, stored in versions) == caps
    assert set(guests) <= names
