"""Load benchmark of the pages people open on Saturday: the leaderboard page, a player's
page and the club page, under 50 concurrent connections (``wrk``), against a bare Django
view with the same middleware on the same server, in one run. The bar: each page's p95
latency within 2x of the bare view's.

    DATABASE_URL=postgres://.../circolo_bench REDIS_URL=redis://127.0.0.1:6379/7 \\
        .venv/bin/python manage.py bench_data           # once: 1,000 players, 1,000,000 results
    DATABASE_URL=... REDIS_URL=... .venv/bin/python benchmarks/boards_bench.py

It serves the site with gunicorn (2 sync workers, ``benchmarks/bench_settings.py``: the
site's settings plus ``/bench/bare/``) on 127.0.0.1:$BENCH_PORT (8710), warms each page
once (the pages are cached), then runs ``wrk -c 50`` on each URL in turn for
$BENCH_SECONDS (15) seconds, and prints requests per second and p50 / p95 / p99.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PORT = int(os.environ.get("BENCH_PORT", "8710"))
SECONDS = int(os.environ.get("BENCH_SECONDS", "15"))
CONNECTIONS = 50
BASE = f"http://127.0.0.1:{PORT}"


def django_setup():
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "benchmarks.bench_settings")
    import django

    django.setup()


def pages() -> dict[str, str]:
    """The URLs: the bench club's pages and its most active player's."""
    from django.db.models import Count

    from clubs.models import Club
    from matches.models import SpazzumazzPlace

    club = Club.objects.filter(slug="bench").first()
    if club is None:
        sys.exit("No bench club: run `manage.py bench_data` first (see the docstring).")
    busiest = (
        SpazzumazzPlace.objects.filter(game__club=club)
        .values("player_id")
        .annotate(n=Count("id"))
        .order_by("-n")
        .first()
    )
    return {
        "bare view": "/bench/bare/",
        "leaderboards": f"/clubs/{club.slug}/leaderboards/",
        "player page": f"/clubs/{club.slug}/players/{busiest['player_id']}/",
        "club page": f"/clubs/{club.slug}/",
    }


def serve() -> subprocess.Popen:
    # Persistent connections, as in production (a connection per request would be measured
    # against the pages only: the bare view never opens one).
    env = {
        "CONN_MAX_AGE": "600",
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "benchmarks.bench_settings",
        "DEBUG": "false",
    }
    server = subprocess.Popen(
        [
            str(ROOT / ".venv" / "bin" / "gunicorn"),
            "circolo.wsgi",
            "--bind",
            f"127.0.0.1:{PORT}",
            "--workers",
            "2",
            "--log-level",
            "warning",
        ],
        cwd=ROOT,
        env=env,
    )
    for _ in range(100):
        try:
            urllib.request.urlopen(f"{BASE}/bench/bare/", timeout=1)
            return server
        except OSError:
            time.sleep(0.2)
    server.terminate()
    sys.exit("gunicorn did not start")


def load(path: str) -> dict[str, int]:
    out = subprocess.run(
        [
            "wrk",
            "-t2",
            f"-c{CONNECTIONS}",
            f"-d{SECONDS}s",
            "--timeout",
            "10s",
            "-s",
            str(ROOT / "benchmarks" / "p95.lua"),
            f"{BASE}{path}",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    found = re.search(r"RESULT (.*)", out)
    return {k: int(v) for k, v in (pair.split("=") for pair in found.group(1).split())}


def main() -> int:
    if shutil.which("wrk") is None:
        sys.exit("wrk is not installed (apt-get install wrk)")
    django_setup()
    urls = pages()
    server = serve()
    try:
        for path in urls.values():  # warm the caches
            for _ in range(3):
                with urllib.request.urlopen(f"{BASE}{path}", timeout=30) as response:
                    assert response.status == 200, (path, response.status)
        results = {name: load(path) for name, path in urls.items()}
    finally:
        server.terminate()
        server.wait(10)
    bare = results["bare view"]["p95"]
    print(f"{CONNECTIONS} connections, {SECONDS} s each, gunicorn 2 workers")
    print(f"{'page':<14}{'req/s':>9}{'p50 ms':>9}{'p95 ms':>9}{'p99 ms':>9}{'p95/bare':>10}")
    ok = True
    for name, r in results.items():
        ratio = r["p95"] / bare
        ok &= ratio <= 2 or name == "bare view"
        rate = r["requests"] / (r["duration"] / 1e6)
        errors = f"  errors={r['errors']}" if r["errors"] else ""
        print(
            f"{name:<14}{rate:9.0f}{r['p50'] / 1000:9.1f}{r['p95'] / 1000:9.1f}"
            f"{r['p99'] / 1000:9.1f}{ratio:10.2f}{errors}"
        )
    print("each page's p95 within 2x of the bare view's:", "yes" if ok else "NO")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
