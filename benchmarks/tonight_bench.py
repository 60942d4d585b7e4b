"""The tonight screen: its queries whatever the night's size, and how many live screens one
server process holds.

    .venv/bin/python benchmarks/tonight_bench.py [--screens 200] [--threads 16,256]

1. The page (``/clubs/<slug>/tonight/``, as a member) on a small night (1 table, 1
   tournament, 10 games) and on a big one (10 tables, 3 tournaments, 200 games): queries and
   time, on the SQLite default (``DATABASE_URL`` for another database). Target: the same
   number of queries.
2. ``--screens`` event streams (``/tonight/events/``) opened at once on one gunicorn process
   (``circolo/gunicorn.conf.py``) for each ``--threads`` value, the version kept in Redis
   (127.0.0.1:6379, database 14): a change is published and the bench counts the screens
   told of it within 2 s, and the time the last one took. Each open stream holds one of the
   process's threads.
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))


def night(world, *, tables: int, tournaments: int, games: int, label: str) -> None:
    from clubs import services as clubs
    from matches.results import steps
    from matches.singapore import services as singapore
    from matches.spazzumazz.services import record_spazzumazz_game
    from tests.singapore_helpers import open_table, play
    from tests.sputo_world import drawn, make_members, match_at, win

    club, admin = world["club"], world["admin"]
    names = list(world["players"])
    for _n in range(tables):
        session = open_table(world, names, first=(names[0], names[1]), point_value="0.50")
        play(world, session, names[0], names[1])
    for n in range(tournaments):
        players = make_members(club, 8, prefix=f"{label}{n}x")
        tournament = drawn(club, admin, players, name=f"Torneo {label}{n}")
        first = match_at(tournament, 1, 0)
        steps.take("report", subject=first, by=admin, payload=win(first, first.player_a))
    players = list(world["players"].values())
    for n in range(games):
        order = players[n % 4 :] + players[: n % 4]
        record_spazzumazz_game(
            club=club, players=order, by=admin, finish_order=[p.pk for p in order]
        )
    del clubs, singapore


def page_queries() -> None:
    from singapore_db import bench_database

    with bench_database():
        from django.contrib.auth import get_user_model
        from django.db import connection
        from django.test import Client
        from django.test.utils import CaptureQueriesContext

        from tests.singapore_helpers import make_table

        users = get_user_model().objects

        def make_user(name, **fields):
            return users.create_user(name, password="x" * 12, **fields)

        world = make_table(make_user, names=("Anna", "Bruno", "Carla", "Dario"))
        web = Client()
        web.force_login(world["users"]["Carla"])
        url = f"/clubs/{world['club'].slug}/tonight/"
        print("The tonight page, as a member:")
        for label, size in (("a", (1, 1, 10)), ("b", (9, 2, 190))):
            night(world, tables=size[0], tournaments=size[1], games=size[2], label=label)
            web.get(url)
            best = float("inf")
            for _ in range(5):
                with CaptureQueriesContext(connection) as queries:
                    start = time.perf_counter()
                    response = web.get(url)
                    best = min(best, time.perf_counter() - start)
                assert response.status_code == 200
            tables = world["club"].table_sessions.open().count()
            tournaments = world["club"].tournaments.filter(status="running").count()
            games = world["club"].spazzumazz_games.count()
            print(
                f"  {tables:2} tables, {tournaments} tournaments, {games:3} games: "
                f"{len(queries):2} queries, {best * 1000:6.1f} ms"
            )


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def screens(count: int, threads: int) -> None:
    redis = "redis://127.0.0.1:6379/14"
    with tempfile.TemporaryDirectory() as where:
        env = {
            **os.environ,
            "DATABASE_URL": f"sqlite:///{where}/tonight.sqlite3",
            "REDIS_URL": redis,
            "CELERY_TASK_ALWAYS_EAGER": "true",
            "ALLOWED_HOSTS": "127.0.0.1",
            "DJANGO_SETTINGS_MODULE": "circolo.settings",
        }
        python = sys.executable
        subprocess.run([python, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
        made = subprocess.run(
            [
                python,
                "manage.py",
                "shell",
                "-c",
                "from django.contrib.auth import get_user_model;"
                "from clubs import services;"
                "u = get_user_model().objects.create_user('bench', password='x' * 12);"
                "c = services.create_club(name='Circolo Schermi', founder=u, is_public=True);"
                "print(c.pk, c.slug)",
            ],
            cwd=ROOT,
            env=env,
            check=True,
            capture_output=True,
            text=True,
        ).stdout.split()
        club_id, slug = int(made[-2]), made[-1]
        port = _free_port()
        server = subprocess.Popen(
            [
                python,
                "-m",
                "gunicorn",
                "--config",
                "circolo/gunicorn.conf.py",
                "--bind",
                f"127.0.0.1:{port}",
                "--threads",
                str(threads),
                "--access-logfile",
                "/dev/null",
            ],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            for _ in range(100):
                try:
                    urllib.request.urlopen(f"http://127.0.0.1:{port}/health/", timeout=1)
                    break
                except OSError:
                    time.sleep(0.2)
            opened, told = [], []
            lock = threading.Lock()

            def screen():
                url = f"http://127.0.0.1:{port}/clubs/{slug}/tonight/events/"
                try:
                    with urllib.request.urlopen(url, timeout=20) as stream:
                        for line in stream:
                            if line.startswith(b"retry"):
                                with lock:
                                    opened.append(time.monotonic())
                            if line.startswith(b"event: changed"):
                                with lock:
                                    told.append(time.monotonic())
                                return
                except OSError:
                    return

            workers = [threading.Thread(target=screen, daemon=True) for _ in range(count)]
            for w in workers:
                w.start()
            time.sleep(3)
            # What live.publish does (the cache's INCR of the club's tonight version), here
            # straight on Redis so the clock starts when the change is made.
            import redis as redis_client

            published = time.monotonic()
            redis_client.Redis.from_url(redis).incr(f"circolo:1:tonight:version:{club_id}")
            for w in workers:
                w.join(timeout=max(0.1, published + 8 - time.monotonic()))
            within = [t for t in told if t - published <= 2.0]
            last = max((t - published for t in told), default=float("nan"))
            print(
                f"  {threads:3} threads: {len(opened):3} of {count} screens connected, "
                f"{len(within):3} told within 2 s, {len(told):3} in all "
                f"(the last after {last:.2f} s)"
            )
        finally:
            server.terminate()
            try:
                server.wait(15)
            except subprocess.TimeoutExpired:  # streams still held open
                server.kill()
                server.wait(5)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--screens", type=int, default=200)
    parser.add_argument("--threads", default="16,256")
    parser.add_argument("--skip-pages", action="store_true")
    args = parser.parse_args()
    if not args.skip_pages:
        page_queries()
    print(f"Live screens on one server process ({args.screens} event streams):")
    for threads in (int(t) for t in args.threads.split(",")):
        screens(args.screens, threads)


if __name__ == "__main__":
    main()
