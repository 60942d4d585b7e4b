"""Where a member's page spends its time: each page profiled, in-process, on a database with
the demo (``manage.py demo``).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/circolo_bench \\
        .venv/bin/python benchmarks/profile_pages.py
    .venv/bin/python benchmarks/profile_pages.py --only ledger --top 30
    .venv/bin/python benchmarks/profile_pages.py --anonymous        (as the public sees them)
    .venv/bin/python benchmarks/profile_pages.py --slug bench --user bench-player0001

For each page (the club page, a Singapore table, the ledger, a tournament, the leaderboards,
a player page) it logs in as ``--user`` (``demo-player01``), asks the page a few times to warm
the caches, then ``--requests`` times under cProfile, and prints per request: the time, the
queries and their time, then the functions that take the most time of their own and the
project's functions that take the most in all (cumulative). The database and the cache are
those of the settings (``DATABASE_URL``, ``REDIS_URL``); nothing is written but the session.

The figures are in-process (Django's test client, no server, no network) and cProfile slows
Python down by about a half: read them as shares of the time, not as the server's figures
(``make bench-pages`` gives those).
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OURS = ("clubs/", "ledger/", "matches/", "circolo/", "rules/")


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--slug", default="la-matta", help="the club (la-matta)")
    parser.add_argument("--user", default="demo-player01", help="the member (demo-player01)")
    parser.add_argument("--anonymous", action="store_true", help="as an anonymous visitor")
    parser.add_argument("--requests", type=int, default=20, help="profiled requests a page (20)")
    parser.add_argument("--top", type=int, default=12, help="functions listed a page (12)")
    parser.add_argument("--only", help="only the pages whose name contains this")
    return parser.parse_args(argv)


def member_pages(slug: str, user) -> list[tuple[str, str]]:
    """(name, path) of the pages a member opens on a club night."""
    from django.db.models import Count

    from clubs.models import Club
    from matches.models import SpazzumazzPlace, TableSession, Tournament

    club = Club.objects.get(slug=slug)
    pages = [("club page", f"/clubs/{slug}/")]
    table = TableSession.objects.filter(club=club).order_by("pk").first()
    if table is not None:
        pages.append(("singapore table", f"/clubs/{slug}/tables/{table.pk}/"))
    pages.append(("ledger", f"/clubs/{slug}/ledger/"))
    tournament = Tournament.objects.filter(club=club).order_by("-pk").first()
    if tournament is not None:
        pages.append(("tournament", f"/clubs/{slug}/tournaments/{tournament.pk}/"))
    pages.append(("leaderboards", f"/clubs/{slug}/leaderboards/"))
    busiest = (
        SpazzumazzPlace.objects.filter(game__club=club)
        .values("player_id")
        .annotate(n=Count("id"))
        .order_by("-n")
        .first()
    )
    if busiest is not None:
        pages.append(("player page", f"/clubs/{slug}/players/{busiest['player_id']}/"))
    return pages


def _ours(filename: str) -> bool:
    path = os.path.relpath(filename, ROOT)
    return path.startswith(OURS) and not path.startswith(".venv")


def profile_page(client, path: str, rounds: int, top: int) -> None:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    for _ in range(3):  # warm: the templates compiled, the caches filled
        response = client.get(path)
        assert response.status_code == 200, (path, response.status_code)
    with CaptureQueriesContext(connection) as captured:
        client.get(path)
    queries = list(captured.captured_queries)  # read now: the next request clears the log
    sql_ms = sum(float(q["time"]) for q in queries) * 1000
    start = time.perf_counter()
    for _ in range(rounds):
        client.get(path)
    plain_ms = (time.perf_counter() - start) * 1000 / rounds
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(rounds):
        client.get(path)
    profiler.disable()
    stats = pstats.Stats(profiler)
    print(
        f"  {plain_ms:.1f} ms a request unprofiled; {len(queries)} queries, {sql_ms:.1f} ms of SQL"
    )
    rows = stats.stats  # (file, line, name) -> (calls, primitive, own, cumulative, callers)
    total = sum(own for _, _, own, _, _ in rows.values()) or 1.0
    print(f"  own time (of {total * 1000 / rounds:.1f} ms profiled a request):")
    by_own = sorted(rows.items(), key=lambda item: -item[1][2])[:top]
    for (filename, line, name), (calls, _, own, _, _) in by_own:
        where = f"{os.path.relpath(filename, ROOT) if filename != '~' else ''}:{line} {name}"
        print(f"    {own / total:6.1%} {calls / rounds:8.0f} calls  {where[-90:]}")
    print("  the project's functions, cumulative:")
    ours = [item for item in rows.items() if _ours(item[0][0])]
    for (filename, line, name), (calls, _, _, cumulative, _) in sorted(
        ours, key=lambda item: -item[1][3]
    )[:top]:
        where = f"{os.path.relpath(filename, ROOT)}:{line} {name}"
        print(f"    {cumulative / total:6.1%} {calls / rounds:8.0f} calls  {where[-90:]}")


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "circolo.settings")
    os.environ.setdefault("ALLOWED_HOSTS", "testserver")
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.test import Client

    user = get_user_model().objects.get(username=args.user)
    client = Client()
    if not args.anonymous:
        client.force_login(user)
    who = "anonymous" if args.anonymous else args.user
    for name, path in member_pages(args.slug, user):
        if args.only and args.only not in name:
            continue
        print(f"\n{name} ({path}), as {who}:")
        profile_page(client, path, args.requests, args.top)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
