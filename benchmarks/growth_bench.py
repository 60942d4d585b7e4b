"""What a club's history costs: each game's write, with the derived work it queues run as
the worker runs it, and each member page built cold, in the demo club and in clubs of
100,000 and 1,000,000 results, in one run and one database, as a table.

    .venv/bin/python benchmarks/growth_bench.py                        (fills, measures, drops)
    .venv/bin/python benchmarks/growth_bench.py --keep-db              (keeps the filled database
                                                                        and reuses it next time)
    .venv/bin/python benchmarks/growth_bench.py --keep-db --sizes 100000 --repeat 9

The database (``--database-url``, PostgreSQL ``circolo_growth_bench`` by default; made if
missing, dropped at the end unless ``--keep-db``) is migrated and gets the demo
(``manage.py demo``: the club ``la-matta``). Each size of ``--sizes`` is a club filled by
``manage.py bench_data --results N`` (``benchmarks/management/commands/bench_data.py``: 1,000
guests, results in force split 40/30/30 between Spazz'u'mazz, Sputo and Singapore, by
``COPY``); bench_data always names its club ``bench``, so each is renamed
``growth-<N>`` once filled, and a club already there (``--keep-db``) is reused as it is.
The time each fill took is printed.

bench_data writes results, not the places they come from: its Sputo and Singapore results
are records without a tournament or a table, and no ledger entries. So the bench adds, in
every club alike (the demo too, so that the rows compare), and says so: demo-scorer as a
scorer and demo-player01 as a member (the bench club has guests only), a Singapore table of
four of the club's first players (point value 0.10) and a running Sputo tournament of the
club's first players (drawn: its first round's matches to report).

Then, in-process (Django's test client, the server's own time, no network), for each club:

- **the writes**, through the API as demo-scorer (in force at once): a Singapore hand at
  that table, a Spazz'u'mazz game of four of the club's first 40 players (in bench_data's
  clubs, one circle of friends who play together), a Sputo report of a first-round match.
  The tasks a write queues go to the task outbox and are not sent in the request (as with
  a worker): once the request has answered, each queued message's task is run in this
  process as a worker runs it (``task.apply`` with the message's task id, so the outbox
  marks it done), and the messages those tasks queue after them, timed one by one. Each
  write is shown as the request, the derived work (its tasks together; each task below it)
  and the total. A first write of each kind in each club is a warm-up, not counted (its
  figures are printed after the table: in a bench club it may rebuild rows the fill left,
  as Sputo's ratings, which bench_data fills with a stand-in for matches it does not make;
  the database is vacuumed after the warm-ups, as autovacuum would be soon after).
- **the member pages**, as demo-player01, each built cold: the cache cleared
  (``cache.clear()``) and the process's kept public pages forgotten
  (``plumbing.public_pages.forget()``) before each request, the first request of each
  page a warm-up (not counted: the templates, the process's own caches). The club page, tonight, the
  bench's table, the bench's tournament, the ledger, the leaderboards and a player page
  (the club's busiest Spazz'u'mazz player).

Each row gives its queries (the most of the repetitions) and median milliseconds of
``--repeat`` repetitions (5) per club, and each big club's median over the demo club's.
The clubs take turns: each repetition of a write or a page runs in every club, one after
the other, so that the machine's speed, which wanders over a run, weighs on every club
alike (measured club after club, the last club was up to 1.5x slower on a page whose
queries do not depend on the club).
"""

from __future__ import annotations

import argparse
import io
import math
import os
import random
import re
import statistics
import sys
import time
import urllib.parse
import warnings
from contextlib import redirect_stdout
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DEMO = "la-matta"
DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/circolo_growth_bench"
TABLE_NAME = "Tavolo della crescita"
TOURNAMENT_NAME = "Torneo della crescita"
WRITES = ["Singapore hand", "Spazz'u'mazz game", "Sputo report"]
PAGES = [
    ("club page", "/clubs/{slug}/"),
    ("tonight", "/clubs/{slug}/tonight/"),
    ("a table", "/clubs/{slug}/tables/{table}/"),
    ("a tournament", "/clubs/{slug}/tournaments/{tournament}/"),
    ("ledger", "/clubs/{slug}/ledger/"),
    ("leaderboards", "/clubs/{slug}/leaderboards/"),
    ("player page", "/clubs/{slug}/players/{player}/"),
]


# --- the database --------------------------------------------------------------------


def prepare_database(url: str, keep: bool) -> bool:
    """Make the database (fresh unless ``keep`` and it is there); True if it was there."""
    import psycopg

    parts = urllib.parse.urlsplit(url)
    name = parts.path.lstrip("/")
    if not re.fullmatch(r"[a-z_][a-z0-9_]*", name):
        sys.exit(f"unusable database name {name!r}: lower-case letters, digits and _ only")
    admin = urllib.parse.urlunsplit(parts._replace(path="/postgres"))
    with psycopg.connect(admin, autocommit=True) as connection:
        exists = connection.execute(
            "SELECT 1 FROM pg_database WHERE datname = %s", [name]
        ).fetchone()
        if exists and not keep:
            connection.execute(f"DROP DATABASE {name} WITH (FORCE)")
        if not (exists and keep):
            connection.execute(f"CREATE DATABASE {name}")
    return bool(exists and keep)


def drop_database(url: str) -> None:
    import psycopg

    parts = urllib.parse.urlsplit(url)
    admin = urllib.parse.urlunsplit(parts._replace(path="/postgres"))
    from django.db import connections

    connections.close_all()
    with psycopg.connect(admin, autocommit=True) as connection:
        connection.execute(f"DROP DATABASE IF EXISTS {parts.path.lstrip('/')} WITH (FORCE)")


def setup_django(url: str) -> None:
    os.environ["DATABASE_URL"] = url
    os.environ["DJANGO_SETTINGS_MODULE"] = "benchmarks.settings"  # for manage.py bench_data
    for name in ("REDIS_URL", "CELERY_BROKER_URL", "CELERY_TASK_ALWAYS_EAGER", "DEBUG"):
        os.environ.pop(name, None)  # the locmem cache; tasks sent to no broker
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    # WhiteNoise's warning that nothing was collected: no static file is asked for here.
    warnings.filterwarnings("ignore", "No directory at")
    import django

    django.setup()


def fill(sizes: list[int]) -> dict[str, str]:
    """The demo and one bench_data club per size; what each took (or that it was there)."""
    from django.core.management import call_command

    from clubs.models import Club

    took = {}
    started = time.perf_counter()
    call_command("migrate", verbosity=0)
    already = Club.objects.filter(slug=DEMO).exists()
    call_command("demo", verbosity=0)
    took[DEMO] = "there already" if already else f"{time.perf_counter() - started:.0f} s"
    for size in sizes:
        slug = f"growth-{size}"
        if Club.objects.filter(slug=slug).exists():
            took[slug] = "there already (--keep-db)"
            continue
        print(f"  manage.py bench_data --results {size} (then renamed {slug})", flush=True)
        started = time.perf_counter()
        out = io.StringIO()
        with redirect_stdout(out):
            # --reset drops a "bench" club left by a run cut short before its rename.
            call_command("bench_data", results=size, reset=True, stdout=out)
        for line in out.getvalue().splitlines():
            print(f"    {line}")
        Club.objects.filter(slug="bench").update(slug=slug, name=f"Circolo {size:,} risultati")
        took[slug] = f"{time.perf_counter() - started:.0f} s"
    return took


# --- what the bench adds to each club ------------------------------------------------


@dataclass
class Club:
    slug: str
    club: object
    table: object = None
    tournament: object = None
    player: int | None = None
    spazz_players: list[int] = field(default_factory=list)
    added: list[str] = field(default_factory=list)


def furnish(slug: str, entrants: int) -> Club:
    """The member, the scorer, a table and a running tournament (see the docstring)."""
    from django.contrib.auth import get_user_model
    from django.db import transaction
    from django.db.models import Count
    from django.utils import timezone

    from clubs import services as clubs
    from clubs.models import Club as ClubRow
    from clubs.models import Membership, Role
    from matches.models import SpazzumazzPlace
    from matches.singapore import services as singapore
    from matches.sputo import services as sputo

    User = get_user_model()
    row = ClubRow.objects.get(slug=slug)
    found = Club(slug, row)
    admin = Membership.objects.filter(club=row, role=Role.ADMIN).select_related("user").first()
    admin = admin.user
    with transaction.atomic():
        for username, role in (("demo-scorer", Role.SCORER), ("demo-player01", Role.MEMBER)):
            user = User.objects.get(username=username)
            if not Membership.objects.filter(club=row, user=user).exists():
                clubs.add_member(club=row, user=user, role=role)
                found.added.append(f"{username} as {role}")
        first = list(row.players.active().filter(user__isnull=True).order_by("pk")[:64])
        first = first if len(first) >= 8 else list(row.players.active().order_by("pk")[:64])
        found.table = singapore.open_session(
            club=row, by=admin, name=TABLE_NAME, seats=first[:4], point_value="0.10"
        )
        found.added.append(f"a Singapore table of 4 (#{found.table.pk})")
        tournament = sputo.create_tournament(
            club=row,
            by=admin,
            name=TOURNAMENT_NAME,
            starts_at=timezone.now() + timedelta(hours=1),
            variant="single_deck",
            seeding="random",
        )
        sputo.update_tournament(tournament=tournament, by=admin, status="registration")
        for player in row.players.active().order_by("pk")[:entrants]:
            sputo.add_entrant(tournament=tournament, player=player, by=admin)
        sputo.draw_tournament(tournament=tournament, by=admin)
        found.tournament = tournament
        found.added.append(f"a Sputo tournament of {entrants}, drawn (#{tournament.pk})")
    found.spazz_players = [p.pk for p in row.players.active().order_by("pk")[:40]]
    busiest = (
        SpazzumazzPlace.objects.filter(game__club=row)
        .values("player_id")
        .annotate(n=Count("id"))
        .order_by("-n")
        .first()
    )
    found.player = busiest["player_id"] if busiest else first[0].pk
    return found


# --- measuring -----------------------------------------------------------------------


@dataclass
class Timed:
    queries: int
    ms: float


class Outbox:
    """The messages the writes queue, kept here instead of sent (as to a worker)."""

    def __init__(self):
        import plumbing.outbox.relay as relay

        self.waiting: list[tuple[object, object]] = []
        relay.send = lambda task, message: self.waiting.append((task, message)) or True

    def run_all(self) -> list[tuple[str, Timed]]:
        """Run each waiting message's task as a worker does, and the ones they queue."""
        done = []
        while self.waiting:
            task, message = self.waiting.pop(0)
            timed = measure(lambda t=task, m=message: t.apply(m.args, m.kwargs, task_id=m.task_id))
            done.append((task.name.rsplit(".", 1)[-1], timed))
        return done


def measure(call) -> Timed:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as logged:
        start = time.perf_counter()
        result = call()
        ms = (time.perf_counter() - start) * 1000
    measure.last = result
    return Timed(len(logged), ms)


def _hand(table, rng) -> dict:
    from matches.singapore import turns
    from rules.bots import singapore as bot

    dealer, opponent = turns.table_state(table).next
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


def write_requests(club: Club, rng):
    """Each write's name and a function giving its next (url, body)."""
    from matches.models import TournamentMatch

    matches = iter(
        TournamentMatch.objects.filter(
            tournament=club.tournament,
            result="",
            needs_resolution=False,
            player_a__isnull=False,
            player_b__isnull=False,
            outcomes__isnull=True,
        ).order_by("round", "pk")
    )

    def hand():
        return f"/api/v1/table-sessions/{club.table.pk}/hands/", _hand(club.table, rng)

    def game():
        seated = rng.sample(club.spazz_players, 4)
        order = seated[:]
        rng.shuffle(order)
        return "/api/v1/spazzumazz-games/", {
            "club": club.slug,
            "players": seated,
            "finish_order": order,
        }

    def report():
        match = next(matches)
        games = [{"winner": match.player_a_id, "cards_left": 3}] * (match.best_of // 2 + 1)
        return f"/api/v1/tournament-matches/{match.pk}/report/", {"games": games}

    return {"Singapore hand": hand, "Spazz'u'mazz game": game, "Sputo report": report}


@dataclass
class Row:
    queries: list[int] = field(default_factory=list)
    ms: list[float] = field(default_factory=list)

    def add(self, timed: Timed) -> None:
        self.queries.append(timed.queries)
        self.ms.append(timed.ms)

    @property
    def median(self) -> float:
        return statistics.median(self.ms) if self.ms else float("nan")


def vacuum() -> None:
    """What autovacuum does in the minute after a big rewrite, done now (PostgreSQL): a
    warm-up write in a bench club may rewrite hundreds of thousands of rows (Sputo's
    ratings, from bench_data's stand-in), whose dead row versions would otherwise slow the
    next reads of the table's end by tens of times until autovacuum came by."""
    from django.db import connection

    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("VACUUM ANALYZE")


def bench_writes(api, clubs: list[Club], outbox: Outbox, repeat: int, rng) -> tuple[dict, dict]:
    """{club: {row: Row}} of the counted writes, and {club: {write: (request, derived)}} of
    the warm-ups. The clubs take turns, one write each, so that the machine's drift in
    speed over the run falls on every club alike."""
    rows: dict[str, dict[str, Row]] = {club.slug: {} for club in clubs}
    warmups: dict[str, dict] = {club.slug: {} for club in clubs}
    makers = {club.slug: write_requests(club, rng) for club in clubs}
    for name in WRITES:
        for n in range(repeat + 1):
            for club in clubs:
                url, body = makers[club.slug][name]()
                request = measure(lambda u=url, b=body: api.post(u, b, format="json"))
                response = measure.last
                if response.status_code != 201:
                    sys.exit(f"{club.slug} {name}: {response.status_code} {response.content[:500]}")
                tasks = outbox.run_all()
                derived = Timed(sum(t.queries for _, t in tasks), sum(t.ms for _, t in tasks))
                if n == 0:
                    warmups[club.slug][name] = (request, derived, tasks)
                    if club is clubs[-1]:
                        vacuum()
                    continue
                mine = rows[club.slug]
                mine.setdefault(f"{name}: request", Row()).add(request)
                mine.setdefault(f"{name}: derived", Row()).add(derived)
                mine.setdefault(f"{name}: total", Row()).add(
                    Timed(request.queries + derived.queries, request.ms + derived.ms)
                )
                per_task: dict[str, Timed] = {}
                for task, timed in tasks:
                    seen = per_task.get(task, Timed(0, 0.0))
                    per_task[task] = Timed(seen.queries + timed.queries, seen.ms + timed.ms)
                for task, timed in per_task.items():
                    mine.setdefault(f"{name}:   + {task}", Row()).add(timed)
    return rows, warmups


def bench_pages(client, clubs: list[Club], repeat: int) -> dict[str, dict[str, Row]]:
    """{club: {page: Row}}, each page built cold; the clubs take turns, one page each."""
    from django.core.cache import cache

    from plumbing import public_pages

    rows: dict[str, dict[str, Row]] = {club.slug: {} for club in clubs}
    for name, path in PAGES:
        for n in range(repeat + 1):  # the first a warm-up (templates, the process's caches)
            for club in clubs:
                ids = {
                    "slug": club.slug,
                    "table": club.table.pk,
                    "tournament": club.tournament.pk,
                    "player": club.player,
                }
                url = path.format(**ids)
                cache.clear()
                public_pages.forget()
                timed = measure(lambda u=url: client.get(u))
                if measure.last.status_code != 200:
                    sys.exit(f"{club.slug} {name} ({url}): {measure.last.status_code}")
                if n:
                    rows[club.slug].setdefault(name, Row()).add(timed)
    return rows


def print_table(clubs: list[Club], results: dict[str, dict[str, Row]], names: list[str]) -> None:
    demo = clubs[0].slug
    head = f"{'row':<44}"
    for club in clubs:
        label = "demo" if club.slug == demo else club.slug.removeprefix("growth-")
        head += f" {label + ' q':>9} {'ms':>8}"
        if club.slug != demo:
            head += f" {'x demo':>7}"
    print(head)
    for name in names:
        line = f"{name:<44}"
        base = results[demo].get(name)
        for club in clubs:
            row = results[club.slug].get(name)
            if row is None:
                line += f" {'-':>9} {'-':>8}" + (f" {'-':>7}" if club.slug != demo else "")
                continue
            line += f" {max(row.queries):>9} {row.median:>8.1f}"
            if club.slug != demo:
                ratio = row.median / base.median if base and base.median else math.nan
                line += f" {ratio:>6.1f}x" if ratio == ratio else f" {'-':>7}"
        print(line)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--database-url", default=DEFAULT_URL, help="default: %(default)s")
    parser.add_argument(
        "--sizes", default="100000,1000000", help="the clubs' results (100000,1000000)"
    )
    parser.add_argument("--repeat", type=int, default=5, help="repetitions of each row (5)")
    parser.add_argument(
        "--keep-db", action="store_true", help="reuse the database and its clubs, and keep it"
    )
    args = parser.parse_args(argv)
    sizes = [int(s.replace("_", "")) for s in args.sizes.split(",") if s.strip()]
    began = time.perf_counter()
    print("load average (1, 5, 15 min) at the start: %.1f %.1f %.1f" % os.getloadavg())
    reused = prepare_database(args.database_url, args.keep_db)
    print(f"database {args.database_url} ({'reused' if reused else 'new'})", flush=True)
    setup_django(args.database_url)
    try:
        took = fill(sizes)
        for slug, spent in took.items():
            print(f"  filled {slug}: {spent}")
        return measure_all(args, sizes, began)
    finally:
        if not args.keep_db:
            drop_database(args.database_url)


def measure_all(args, sizes: list[int], began: float) -> int:
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test import Client as PageClient
    from rest_framework.test import APIClient

    User = get_user_model()
    entrants = max(8, 2 ** math.ceil(math.log2(2 * (args.repeat + 1))))
    clubs = [furnish(slug, entrants) for slug in [DEMO, *(f"growth-{s}" for s in sizes)]]
    for club in clubs:
        print(f"  added to {club.slug}: {'; '.join(club.added)}")
    outbox = Outbox()
    api = APIClient()
    api.force_authenticate(User.objects.get(username="demo-scorer"))
    member = PageClient()
    member.force_login(User.objects.get(username="demo-player01"))
    rng = random.Random(16)
    print(f"  measuring {', '.join(club.slug for club in clubs)} in turn", flush=True)
    started = time.perf_counter()
    results, warmups = bench_writes(api, clubs, outbox, args.repeat, rng)
    for slug, pages in bench_pages(member, clubs, args.repeat).items():
        results[slug].update(pages)
    print(f"    {time.perf_counter() - started:.0f} s", flush=True)
    writes = []
    for name in WRITES:
        for part in ("request", "derived"):
            writes.append(f"{name}: {part}")
            if part == "derived":
                tasks = {
                    row
                    for rows in results.values()
                    for row in rows
                    if row.startswith(f"{name}:   + ")
                }
                writes += sorted(tasks)
        writes.append(f"{name}: total")
    print(
        f"\ngrowth: {connection.vendor}, median of {args.repeat} (after one warm-up write of "
        "each kind a club); q = queries (the most of the repetitions), ms = median ms"
    )
    print(
        "writes: the API request as demo-scorer (its tasks written to the outbox, not sent), "
        "then the derived work: each queued message's task run in-process as a worker runs "
        "it (task.apply with its outbox id), and the tasks those queue"
    )
    print_table(clubs, results, writes)
    print("\npages, as demo-player01, each built cold (cache.clear() and public_pages.forget())")
    print_table(clubs, results, [name for name, _ in PAGES])
    print("\nthe warm-up writes (the first of each kind a club, not counted above):")
    for club in clubs:
        for name, (request, derived, tasks) in warmups[club.slug].items():
            each = ", ".join(f"{task} {t.ms:.0f} ms" for task, t in tasks)
            print(
                f"  {club.slug:<16} {name:<18} request {request.queries} q {request.ms:.0f} ms;"
                f" derived {derived.queries} q {derived.ms:.0f} ms ({each})"
            )
    print(f"pages' paths: {', '.join(f'{n} {p}' for n, p in PAGES)}; the player page is the")
    print(
        "  club's busiest Spazz'u'mazz player's; the table and the tournament are the ones "
        "added here (bench_data's clubs have neither, nor ledger entries: their ledger holds "
        "only the hands posted here)"
    )
    print("load average (1, 5, 15 min) at the end: %.1f %.1f %.1f" % os.getloadavg())
    print(f"the whole run took {time.perf_counter() - began:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
