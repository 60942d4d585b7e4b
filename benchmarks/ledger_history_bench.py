"""The ledger's reads against its history: who owes whom, the balances, the settle-up plan
and the ledger page built cold, in one club of 40 players, after 1,000 postings and again
after 100,000 (hands between two to four of them, with a payment every 50 postings), on
PostgreSQL. Each figure is the median of ``--repeat`` runs (9) and the most queries; the
last column is the big history's time over the small one's. Who owes whom and the balances
read derived rows (``ledger.models.PairDebt``, ``Balance``), so the two should cost alike.

    .venv/bin/python benchmarks/ledger_history_bench.py [--url postgres://...] [--repeat 9]

The database (``circolo_ledger_bench`` by default) is made afresh and dropped at the end.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.growth_bench import drop_database, prepare_database, setup_django  # noqa: E402

DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/circolo_ledger_bench"
PLAYERS = 40
SIZES = (1_000, 100_000)


def post_history(club, players, start: int, stop: int, rng: random.Random, admin) -> None:
    from ledger import services

    batch = []
    for n in range(start, stop):
        if n % 50 == 49:
            payer, payee = rng.sample(players, 2)
            payment = services.record_payment(
                club=club,
                payer=payer,
                payee=payee,
                amount=rng.randint(1, 40),
                unit="points",
                by=admin,
            )
            services.confirm_payment(payment=payment, by=admin)
            continue
        seated = rng.sample(players, rng.randint(2, 4))
        winner, losers = seated[0], seated[1:]
        batch.append(
            services.Posting(
                club=club,
                unit="points",
                key=f"bench:{n}",
                source=f"bench:{n}",
                scope=f"session:{n // 500}",
                legs=[(loser, winner, rng.randint(1, 30)) for loser in losers],
            )
        )
        if len(batch) == 5000:
            services.post_many(batch)
            batch = []
    if batch:
        services.post_many(batch)


def measure(call, repeat: int) -> tuple[int, float]:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    times, queries = [], 0
    call()  # a warm-up
    for _ in range(repeat):
        with CaptureQueriesContext(connection) as captured:
            began = time.perf_counter()
            call()
            times.append((time.perf_counter() - began) * 1000)
        queries = max(queries, len(captured))
    return queries, statistics.median(times)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default=DEFAULT_URL)
    parser.add_argument("--repeat", type=int, default=9)
    args = parser.parse_args(argv)
    prepare_database(args.url, keep=False)
    setup_django(args.url)
    from django.contrib.auth import get_user_model
    from django.core.cache import cache
    from django.core.management import call_command
    from django.test import Client

    from clubs import services as clubs
    from ledger import reads
    from plumbing import public_pages

    call_command("migrate", verbosity=0)
    admin = get_user_model().objects.create_user("bench-admin", password="x")
    club = clubs.create_club(name="Circolo della storia", founder=admin, city="Roma")
    players = [clubs.add_guest(club=club, display_name=f"Giocatore {n:02}") for n in range(PLAYERS)]
    client = Client()
    client.force_login(admin)
    url = f"/clubs/{club.slug}/ledger/?unit=points"

    def page():
        cache.clear()
        public_pages.forget()
        assert client.get(url).status_code == 200

    reads_ = {
        "who owes whom (the page's: latest 30 parts)": lambda: reads.net_debts(
            club=club, unit="points", parts=30
        ),
        "who owes whom (the API's: every part)": lambda: reads.net_debts(club=club, unit="points"),
        "balances": lambda: reads.balances(club=club, unit="points"),
        "settle-up plan": lambda: reads.settle_up_plan(club=club, unit="points"),
        "the ledger page, cold": page,
    }
    rng = random.Random(7)
    results: dict[str, list[tuple[int, float]]] = {name: [] for name in reads_}
    posted = 0
    for size in SIZES:
        began = time.perf_counter()
        post_history(club, players, posted, size, rng, admin)
        print(f"posted {size - posted:,} more in {time.perf_counter() - began:.0f} s")
        posted = size
        for name, call in reads_.items():
            results[name].append(measure(call, args.repeat))
    print(f"\n{'read (ms, median of %d; queries)' % args.repeat:<46}", end="")
    print("".join(f"{size:>16,}" for size in SIZES) + "       ×")
    for name, rows in results.items():
        cells = "".join(f"{ms:>10.1f} ({q:>2})" for q, ms in rows)
        print(f"{name:<46}{cells}{rows[-1][1] / rows[0][1]:>8.1f}")
    drop_database(args.url)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
