"""Pages per second under load, each against a bare view on the same server, in one run.

    .venv/bin/python benchmarks/pages_bench.py                    (or: make bench-pages)
    .venv/bin/python benchmarks/pages_bench.py --connections 50 --duration 20
    .venv/bin/python benchmarks/pages_bench.py --set CONN_MAX_AGE=0   (compare a setting)

It creates a PostgreSQL database (``--database-url``; dropped at the end unless
``--keep-db``), migrates it and fills it with ``manage.py demo``, starts gunicorn (2 sync
workers) on it with the production defaults (``DEBUG=false``, no extra setting unless
``--set``), and serves the site's URLconf plus a bare view with the same middleware
(``benchmarks/settings.py``, ``benchmarks/urls.py``). Then ``wrk`` (Debian: ``apt-get
install -y wrk``) loads the bare view and each page of ``PAGES`` in turn, at ``--connections``
connections, and the table gives requests per second, p50/p95/p99 latency and each page's
ratios to the bare view: how many times fewer requests per second, how many times the p99.

wrk runs on the same machine as the server, which other work may share: the pages are
measured in ``--rounds`` rounds and each page's best round counts (its latencies with it).
Later features add their pages to ``PAGES``.

``--bench-data`` also fills the database with ``manage.py bench_data`` (a club of 1,000
players and 1,000,000 results; ``--bench-results`` for fewer), once: with ``--keep-db`` a
database that has it already is reused as it is. The pages of ``BENCH_PAGES`` (that club's
leaderboards, its busiest player's page, its club page) are then measured too. A path's
``{demo_player}`` / ``{bench_player}`` is the busiest Spazz'u'mazz player of that club.
"""

from __future__ import annotations

import argparse
import http.cookiejar
import json
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MEMBER, PASSWORD = "demo-player01", "carte-in-tavola-2026"  # from clubs/demo.py
BARE = "/bench/bare/"


@dataclass(frozen=True)
class Page:
    name: str
    path: str
    member: bool = False  # requested with a member's session cookie


PAGES = [
    Page("home", "/"),
    Page("club list", "/clubs/"),
    Page("club page", "/clubs/la-matta/"),
    Page("club page, member", "/clubs/la-matta/", member=True),
    Page("members, member", "/clubs/la-matta/members/", member=True),
    Page("leaderboards", "/clubs/la-matta/leaderboards/"),
    Page("player page", "/clubs/la-matta/players/{demo_player}/"),
    Page("spazzumazz page", "/clubs/la-matta/spazzumazz/"),
    Page("singapore tables, member", "/clubs/la-matta/tables/", member=True),
    Page("singapore table, member", "/clubs/la-matta/tables/{demo_table}/", member=True),
    Page("singapore sheet, member", "/clubs/la-matta/tables/{demo_table}/sheet/", member=True),
    # The member run: a club night's pages with demo-player01's session cookie.
    Page("ledger, member", "/clubs/la-matta/ledger/", member=True),
    Page("tournament, member", "/clubs/la-matta/tournaments/{demo_tournament}/", member=True),
    Page("leaderboards, member", "/clubs/la-matta/leaderboards/", member=True),
    Page("player page, member", "/clubs/la-matta/players/{demo_player}/", member=True),
]

# With --bench-data: the pages of a club of 1,000 players and 1,000,000 results.
BENCH_PAGES = [
    Page("leaderboards, 1M", "/clubs/bench/leaderboards/"),
    Page("player page, 1M", "/clubs/bench/players/{bench_player}/"),
    Page("club page, 1M", "/clubs/bench/"),
    # The member run on the big club (demo-player01 is made a member of it: JOIN_BENCH).
    Page("club page, 1M, member", "/clubs/bench/", member=True),
    Page("members, 1M, member", "/clubs/bench/members/", member=True),
    Page("leaderboards, 1M, member", "/clubs/bench/leaderboards/", member=True),
    Page("player page, 1M, member", "/clubs/bench/players/{bench_player}/", member=True),
]

# The demo's member joins the big club (once; a member already stays as they are).
JOIN_BENCH = f"""
from django.contrib.auth import get_user_model
from clubs.models import Club, Membership, Role
user = get_user_model().objects.get(username="{MEMBER}")
Membership.objects.get_or_create(club=Club.objects.get(slug="bench"), user=user,
                                 defaults={{"role": Role.MEMBER}})
"""

BUSIEST = """
import json
from django.db.models import Count
from matches.models import SpazzumazzPlace, TableSession, Tournament
def busiest(slug):
    row = (SpazzumazzPlace.objects.filter(game__club__slug=slug).values("player_id")
           .annotate(n=Count("id")).order_by("-n").first())
    return row and row["player_id"]
table = TableSession.objects.filter(club__slug="la-matta").order_by("pk").first()
tournament = Tournament.objects.filter(club__slug="la-matta").order_by("-pk").first()
print("IDS " + json.dumps({"demo_player": busiest("la-matta"), "bench_player": busiest("bench"),
                           "demo_table": table and table.pk,
                           "demo_tournament": tournament and tournament.pk}))
"""

# wrk's done() hook prints the exact figures as one JSON line (latencies in microseconds).
WRK_SCRIPT = """
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'BENCH {"requests": %d, "duration_us": %d, "p50": %d, "p95": %d, "p99": %d,'
    .. ' "max": %d, "bad_status": %d, "socket_errors": %d}\\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(95),
    latency:percentile(99), latency.max, e.status, e.connect + e.read + e.write + e.timeout))
end
"""


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--connections", type=int, default=16, help="wrk connections (16)")
    parser.add_argument("--threads", type=int, default=2, help="wrk threads (2)")
    parser.add_argument("--duration", type=int, default=5, help="seconds per page a round (5)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds; the best counts (3)")
    parser.add_argument("--warmup", type=int, default=2, help="seconds of warm-up per page (2)")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers (2)")
    parser.add_argument("--port", type=int, default=0, help="server port (a free one)")
    parser.add_argument(
        "--database-url",
        default="postgres://postgres@127.0.0.1:5432/circolo_bench",
        help="the PostgreSQL database to create (default: %(default)s)",
    )
    parser.add_argument(
        "--keep-db", action="store_true", help="reuse the database if there, and keep it"
    )
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="VAR=VALUE",
        help="an environment variable for the server, e.g. CONN_MAX_AGE=0 (repeatable)",
    )
    parser.add_argument("--only", help="only the pages whose name contains this")
    parser.add_argument(
        "--bench-data", action="store_true", help="also fill and load a 1,000,000-result club"
    )
    parser.add_argument("--bench-results", type=int, default=1_000_000)
    return parser.parse_args(argv)


def base_env(database_url: str) -> dict[str, str]:
    """Production defaults, on the benchmark's database; nothing else from our environment."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k in ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "VIRTUAL_ENV")
    }
    env.update(
        DJANGO_SETTINGS_MODULE="benchmarks.settings",
        PYTHONPATH=str(ROOT),
        DATABASE_URL=database_url,
        DEBUG="false",
        SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS="127.0.0.1",
        LOG_LEVEL="WARNING",
        # WhiteNoise warns that nothing was collected: the benchmark asks for no static file.
        PYTHONWARNINGS="ignore:No directory at",
    )
    return env


def prepare_database(database_url: str, keep: bool, bench_results: int = 0) -> None:
    import psycopg

    parts = urllib.parse.urlsplit(database_url)
    name = parts.path.lstrip("/")
    if not re.fullmatch(r"[a-z_][a-z0-9_]*", name):
        sys.exit(f"unusable database name {name!r}: lower-case letters, digits and _ only")
    admin_url = urllib.parse.urlunsplit(parts._replace(path="/postgres"))
    with psycopg.connect(admin_url, autocommit=True) as connection:
        query = "SELECT 1 FROM pg_database WHERE datname = %s"
        exists = connection.execute(query, [name]).fetchone() is not None
        if exists and not keep:
            connection.execute(f"DROP DATABASE {name} WITH (FORCE)")
        if not (exists and keep):
            connection.execute(f"CREATE DATABASE {name}")
    env = base_env(database_url)
    commands = [["migrate", "--noinput", "-v0"], ["demo", "-v0"]]
    if bench_results and not (exists and keep and _has_bench_club(env)):
        commands.append(["bench_data", "--reset", "--results", str(bench_results)])
    if bench_results:
        commands.append(["shell", "-c", JOIN_BENCH])
    for command in commands:
        print(f"  manage.py {' '.join(command)}", flush=True)
        run = subprocess.run(
            [sys.executable, "manage.py", *command], cwd=ROOT, env=env, capture_output=True
        )
        if run.returncode:
            sys.exit(f"manage.py {command[0]} failed:\n{run.stdout.decode()}{run.stderr.decode()}")


def _has_bench_club(env: dict[str, str]) -> bool:
    check = "from clubs.models import Club; print(Club.objects.filter(slug='bench').exists())"
    run = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", check], cwd=ROOT, env=env, capture_output=True
    )
    return run.stdout.decode().strip().endswith("True")


def resolve_paths(pages: list[Page], env: dict[str, str]) -> list[Page]:
    """Fill the pages' ``{demo_player}``, ``{bench_player}``, ``{demo_table}`` (the demo
    club's first Singapore table) and ``{demo_tournament}`` (its latest) with real ids; a
    page whose id does not exist (a database kept from before the demo had it) is left
    out, and said so."""
    if not any("{" in page.path for page in pages):
        return pages
    run = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", BUSIEST],
        cwd=ROOT,
        env=env,
        capture_output=True,
    )
    line = next(line for line in run.stdout.decode().splitlines() if line.startswith("IDS "))
    ids = json.loads(line.removeprefix("IDS "))
    missing = {name for name, value in ids.items() if value is None}
    kept = []
    for p in pages:
        if any(f"{{{name}}}" in p.path for name in missing):
            print(f"  left out: {p.name} (no {p.path.split('{')[1].split('}')[0]} here)")
        else:
            kept.append(Page(p.name, p.path.format(**ids), p.member))
    return kept


def drop_database(database_url: str) -> None:
    import psycopg

    parts = urllib.parse.urlsplit(database_url)
    admin_url = urllib.parse.urlunsplit(parts._replace(path="/postgres"))
    with psycopg.connect(admin_url, autocommit=True) as connection:
        connection.execute(f"DROP DATABASE IF EXISTS {parts.path.lstrip('/')} WITH (FORCE)")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(env: dict[str, str], port: int, workers: int) -> subprocess.Popen:
    command = [sys.executable, "-m", "gunicorn", "circolo.wsgi"]
    command += ["--workers", str(workers), "--bind", f"127.0.0.1:{port}", "--chdir", str(ROOT)]
    command += ["--log-level", "warning"]
    server = subprocess.Popen(command, cwd=ROOT, env=env)
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}{BARE}", timeout=5):
                return server
        except OSError:
            if server.poll() is not None or time.monotonic() > deadline:
                server.kill()
                sys.exit("gunicorn did not start (see its output above)")
            time.sleep(0.2)


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def member_cookie(base: str) -> str:
    """Log in through the real login form; the session and CSRF cookies, as a header."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar), NoRedirect)
    form = opener.open(f"{base}/accounts/login/", timeout=10).read().decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form).group(1)
    data = urllib.parse.urlencode(
        {"username": MEMBER, "password": PASSWORD, "csrfmiddlewaretoken": token}
    ).encode()
    try:
        opener.open(f"{base}/accounts/login/", data=data, timeout=10)
    except urllib.error.HTTPError as response:  # the redirect after a successful login
        if response.code != 302:
            raise
    cookies = {cookie.name: cookie.value for cookie in jar}
    if "sessionid" not in cookies:
        sys.exit(f"could not log in as {MEMBER}")
    return "; ".join(f"{name}={value}" for name, value in cookies.items())


def check_page(base: str, page: Page, cookie: str) -> None:
    """A page must answer 200 itself (a redirect or an error would measure something else)."""
    request = urllib.request.Request(base + page.path, headers={"Cookie": cookie} if cookie else {})
    opener = urllib.request.build_opener(NoRedirect)
    try:
        status = opener.open(request, timeout=30).status
    except urllib.error.HTTPError as error:
        status = error.code
    if status != 200:
        sys.exit(f"{page.name} ({page.path}) answers {status}, not 200")


def run_wrk(args: argparse.Namespace, url: str, seconds: int, cookie: str, script: str) -> dict:
    command = ["wrk", f"-t{args.threads}", f"-c{args.connections}", f"-d{seconds}s"]
    command += ["--latency", "-s", script]
    if cookie:
        command += ["-H", f"Cookie: {cookie}"]
    out = subprocess.run([*command, url], capture_output=True, text=True, check=True).stdout
    line = next(line for line in out.splitlines() if line.startswith("BENCH "))
    figures = json.loads(line.removeprefix("BENCH "))
    figures["rps"] = figures["requests"] / (figures["duration_us"] / 1e6)
    return figures


def print_table(rows: list[tuple[Page, dict]]) -> None:
    bare = rows[0][1]
    print(f"\n{'page':<26} {'req/s':>9} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8}", end="")
    print(f" {'bare/page req/s':>16} {'page/bare p95':>14} {'page/bare p99':>14} {'errors':>7}")
    for page, f in rows:
        ms = [f[p] / 1000 for p in ("p50", "p95", "p99")]
        errors = f["bad_status"] + f["socket_errors"]
        print(
            f"{page.name:<26} {f['rps']:>9,.0f} {ms[0]:>8.2f} {ms[1]:>8.2f} {ms[2]:>8.2f}", end=""
        )
        print(
            f" {bare['rps'] / f['rps']:>15.1f}x {f['p95'] / bare['p95']:>13.1f}x"
            f" {f['p99'] / bare['p99']:>13.1f}x {errors:>7}"
        )
    if any(f["bad_status"] + f["socket_errors"] for _, f in rows):
        print("Some requests failed (errors column): those figures measure failures too.")


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    if shutil.which("wrk") is None:
        print("wrk is missing: apt-get install -y wrk (Debian), then run this again.")
        return 2
    extra = dict(item.split("=", 1) for item in args.set)
    chosen = PAGES + (BENCH_PAGES if args.bench_data else [])
    pages = [Page("bare view", BARE)] + [p for p in chosen if not args.only or args.only in p.name]
    print("load average (1, 5, 15 min) at the start: %.1f %.1f %.1f" % os.getloadavg())
    print(f"Preparing {args.database_url} (migrate, demo)...", flush=True)
    prepare_database(args.database_url, args.keep_db, args.bench_results if args.bench_data else 0)
    pages = resolve_paths(pages, base_env(args.database_url))
    port = args.port or free_port()
    server = start_server({**base_env(args.database_url), **extra}, port, args.workers)
    base = f"http://127.0.0.1:{port}"
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script:
        script.write(WRK_SCRIPT)
    try:
        cookie = member_cookie(base) if any(p.member for p in pages) else ""
        settings = ", ".join(f"{k}={v}" for k, v in extra.items()) or "the defaults"
        print(
            f"gunicorn, {args.workers} workers, {settings}; wrk {args.threads} threads, "
            f"{args.connections} connections, {args.duration} s a page, best of {args.rounds}",
            flush=True,
        )
        best: dict[Page, dict] = {}
        for round_ in range(1, args.rounds + 1):
            for page in pages:
                page_cookie = cookie if page.member else ""
                if round_ == 1:
                    check_page(base, page, page_cookie)
                    if args.warmup:
                        run_wrk(args, base + page.path, args.warmup, page_cookie, script.name)
                figures = run_wrk(args, base + page.path, args.duration, page_cookie, script.name)
                print(f"  round {round_}, {page.name}: {figures['rps']:,.0f} req/s", flush=True)
                if page not in best or figures["rps"] > best[page]["rps"]:
                    best[page] = figures
        rows = [(page, best[page]) for page in pages]
    finally:
        Path(script.name).unlink(missing_ok=True)
        server.terminate()
        server.wait(timeout=30)
        if not args.keep_db:
            drop_database(args.database_url)
    print_table(rows)
    print("load average (1, 5, 15 min) at the end: %.1f %.1f %.1f" % os.getloadavg())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
