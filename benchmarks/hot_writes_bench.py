"""The club night's hot writes on the demo: queries and server time of recording a
Singapore hand, a Spazz'u'mazz game and a Sputo report through the API, as the demo's
scorer (in force at once).

    .venv/bin/python benchmarks/hot_writes_bench.py                    (SQLite, in memory)
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/circolo_hot \\
        .venv/bin/python benchmarks/hot_writes_bench.py --writes 40   (in circolo_hot_bench)

A throwaway database (``benchmarks/singapore_db.py``) gets the demo (``manage.py demo``)
and a tournament of up to 32 of its players drawn for the Sputo reports; then each write
runs ``--writes`` times in-process (Django's test client: the server's own time, no
network) and the table gives how many ran, their queries (BEGIN and COMMIT counted), their
median and p90 milliseconds, the median milliseconds in the database driver's calls
("in SQL") and the median CPU milliseconds of this process ("CPU": Python's own work,
without the wait on the database server; steadier than the wall clock on a busy machine)
and the mean milliseconds in Python's garbage collector ("GC", within CPU).
``--profile Sputo`` (``--top N`` rows) adds where that write's time goes: the project's
functions by cumulative milliseconds a write, then each query's median milliseconds;
``FULL_SQL=1`` prints whole statements, ``PROFILE_ALL=1`` Django's functions too
(``PROFILE_ALL=cumulative`` sorted so), ``PROFILE_DUMP=file`` writes the raw profile.
The statistics, ratings and inbox tasks that a write queues run in the worker, not in the
request: they are left out, unless ``--in-process``, where they run after the commit in
the request, as on ``make run`` without a broker. The guards: the query budgets
of ``tests/test_hot_writes.py``; docs/benchmarks.md keeps the figures.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import os
import pstats
import random
import statistics
import time

from singapore_db import bench_database, vendor


def _hand_body(table, rng) -> dict:
    from matches.singapore import turns
    from rules.bots import singapore as bot

    state = turns.table_state(table)
    dealer, opponent = state.next
    record = bot.random_record(rng.randrange(10**9))
    return {
        "dealer": dealer,
        "opponent": opponent,
        "winner": rng.choice(["dealer", "opponent"]),
        "winner_cards": record["winner"],
        "loser_cards": record["loser"],
        "dealer_quotas": 1,
        "covers": {str(opponent): 1},
        "side_bets": [],
    }


def _bench_tournament(club, entrants: int) -> None:
    """A running tournament of ``entrants`` of the demo's players (its first round's matches
    to report), so that the Sputo reports are more than the demo's one match waiting."""
    from datetime import timedelta

    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from matches.sputo import services

    admin = get_user_model().objects.get(username="demo-admin")
    tournament = services.create_tournament(
        club=club,
        by=admin,
        name="Torneo del banco",
        starts_at=timezone.now() + timedelta(hours=1),
        variant="single_deck",
        seeding="random",
    )
    services.update_tournament(tournament=tournament, by=admin, status="registration")
    for player in club.players.active().order_by("pk")[:entrants]:
        services.add_entrant(tournament=tournament, player=player, by=admin)
    services.draw_tournament(tournament=tournament, by=admin)


def _writes(club, rng):
    """(name, a function giving the next (url, body), or None when the demo has none)."""
    from matches.models import TableSession, TournamentMatch
    from matches.sputo.models import TournamentStatus

    table = TableSession.objects.filter(club=club, closed_at=None).order_by("pk").first()
    players = list(club.players.active().order_by("pk").values_list("pk", flat=True))

    def hand():
        return f"/api/v1/table-sessions/{table.pk}/hands/", _hand_body(table, rng)

    def game():
        seated = rng.sample(players, 4)
        return "/api/v1/spazzumazz-games/", {
            "club": club.slug,
            "players": seated,
            "finish_order": seated[::-1],
        }

    open_matches = iter(
        TournamentMatch.objects.filter(
            tournament__club=club,
            tournament__status=TournamentStatus.RUNNING,
            result="",
            needs_resolution=False,
            player_a__isnull=False,
            player_b__isnull=False,
            outcomes__isnull=True,
        ).order_by("round", "pk")
    )

    def report():
        match = next(open_matches, None)
        if match is None:
            return None
        need = match.best_of // 2 + 1
        games = [{"winner": match.player_a_id, "cards_left": 3}] * need
        return f"/api/v1/tournament-matches/{match.pk}/report/", {"games": games}

    return [
        ("Singapore hand", hand if table is not None else None),
        ("Spazz'u'mazz game", game),
        ("Sputo report", report),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--writes", type=int, default=20, help="writes of each kind (20)")
    parser.add_argument(
        "--profile",
        metavar="WRITE",
        help="profile the writes whose name starts with WRITE (e.g. Sputo): where their time "
        "goes, the project's functions by cumulative time and each query's milliseconds",
    )
    parser.add_argument("--top", type=int, default=25, help="rows of the profile (25)")
    parser.add_argument(
        "--in-process",
        action="store_true",
        help="run the tasks a write queues after its commit, in the request, as make run "
        "does without a broker (their queries and time counted with the write's)",
    )
    args = parser.parse_args()
    full_sql = bool(os.environ.get("FULL_SQL"))
    with bench_database():
        from django.core.management import call_command
        from django.db import connection
        from django.test.utils import CaptureQueriesContext
        from rest_framework.test import APIClient

        import plumbing.outbox.relay as relay
        from clubs.models import Club

        call_command("demo", verbosity=0)
        # The tasks a write queues (statistics, ratings, inboxes) are written to the outbox
        # in the request, and run by the worker: here they are written and not sent, unless
        # --in-process (``make run``, no broker: they run after the commit, in the request).
        if not args.in_process:
            relay.send = lambda task, message: True
        from django.contrib.auth import get_user_model

        api = APIClient()
        api.force_authenticate(get_user_model().objects.get(username="demo-scorer"))
        club = Club.objects.get(slug="la-matta")
        _bench_tournament(club, min(2 * args.writes, 32))
        rng = random.Random(16)
        print(f"database: {vendor()}; {args.writes} writes of each kind, as demo-scorer")
        print(
            f"{'write':<20} {'writes':>7} {'queries':>8} {'median ms':>10} {'p90 ms':>8}"
            f" {'in SQL ms':>10} {'CPU ms':>7} {'GC ms':>6}"
        )
        for name, make in _writes(club, rng):
            times, counts, sql, in_sql, cpu, collecting = [], [], {}, [], [], []
            profiler = cProfile.Profile() if _profiled(name, args.profile) else None
            for _ in range(args.writes if make else 0):
                request = make()
                if request is None:
                    break
                url, body = request
                queries = _TimedQueries()
                with (
                    CaptureQueriesContext(connection) as logged,
                    connection.execute_wrapper(queries),
                ):
                    if profiler:
                        profiler.enable()
                    start, started = time.perf_counter(), time.process_time()
                    with _GcTime() as collected:
                        response = api.post(url, body, format="json")
                    times.append((time.perf_counter() - start) * 1000)
                    cpu.append((time.process_time() - started) * 1000)
                    collecting.append(collected.ms)
                    if profiler:
                        profiler.disable()
                assert response.status_code == 201, (name, response.status_code, response.data)
                counts.append(len(logged))  # BEGIN and COMMIT counted, as the tests count them
                in_sql.append(sum(spent for _, spent in queries))
                for text, spent in queries:
                    sql.setdefault(text if full_sql else text[:150], []).append(spent)
            if os.environ.get("SHOW_QUERIES"):
                print(*(text if full_sql else text[:120] for text, _ in queries), sep="\n")
            if not times:
                print(f"{name:<20} (none in the demo)")
                continue
            p90 = statistics.quantiles(times, n=10)[-1] if len(times) > 1 else times[0]
            median = statistics.median(times)
            spent = statistics.median(in_sql)
            print(
                f"{name:<20} {len(times):>7} {max(counts):>8} {median:>10.1f} {p90:>8.1f}"
                f" {spent:>10.1f} {statistics.median(cpu):>7.1f}"
                f" {statistics.mean(collecting):>6.1f}"
            )
            if profiler:
                _print_profile(profiler, sql, len(times), args.top)


class _GcTime:
    """Milliseconds in Python's cyclic garbage collector while inside (``ms``)."""

    def __enter__(self):
        self.ms, self._start = 0.0, 0.0
        gc.callbacks.append(self._note)
        return self

    def __exit__(self, *exc):
        gc.callbacks.remove(self._note)

    def _note(self, phase, info):
        if phase == "start":
            self._start = time.perf_counter()
        else:
            self.ms += (time.perf_counter() - self._start) * 1000


class _TimedQueries(list):
    """Each query of a write as (sql, milliseconds), timed to the microsecond around the
    driver's call (Django's own log rounds to the millisecond)."""

    def __call__(self, execute, sql, params, many, context):
        start = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            self.append((sql, (time.perf_counter() - start) * 1000))


def _profiled(name: str, wanted: str | None) -> bool:
    return bool(wanted) and name.lower().startswith(wanted.lower())


def _print_profile(profiler, sql: dict, writes: int, top: int) -> None:
    """The project's functions by cumulative time a write, then each query's median ms."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    rows = pstats.Stats(profiler).stats
    if os.environ.get("PROFILE_DUMP"):  # the raw profile, for pstats or snakeviz
        profiler.dump_stats(os.environ["PROFILE_DUMP"])
    if os.environ.get("PROFILE_ALL"):  # every function, Django's too: by own time (1) or as named
        order = os.environ["PROFILE_ALL"] if os.environ["PROFILE_ALL"] != "1" else "tottime"
        pstats.Stats(profiler).sort_stats(order).print_stats(top)
    ours = [
        (key, value)
        for key, value in rows.items()
        if key[0].startswith(root) and ".venv" not in key[0]
    ]
    print("  the project's functions, cumulative ms a write:")
    for (filename, line, function), (calls, _, _, cumulative, _) in sorted(
        ours, key=lambda item: -item[1][3]
    )[:top]:
        where = f"{os.path.relpath(filename, root)}:{line} {function}"
        print(f"    {cumulative * 1000 / writes:7.2f} {calls / writes:6.1f} calls  {where[-80:]}")
    print("  the queries, median ms and times a write (each timed around the driver):")
    full = bool(os.environ.get("FULL_SQL"))
    for text, spent in sorted(sql.items(), key=lambda item: -sum(item[1]))[:top]:
        shown = text if full else text[:110]
        print(f"    {statistics.median(spent):6.2f} x{len(spent) / writes:4.1f}  {shown}")


if __name__ == "__main__":
    main()
