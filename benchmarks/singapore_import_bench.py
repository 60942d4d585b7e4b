"""Singapore bulk import: 100,000 bot-dealt hands with stakes, checked and posted.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/circolo_sing \\
        .venv/bin/python benchmarks/singapore_import_bench.py [--hands 100000]

The hands come from the rules engine's bot (``rules.bots.singapore.table_records``: stakes
of up to eight people, covers and side bets, each winner staying to deal), 250 a table and
evening, written to a JSON lines file first (not timed). Then ``manage.py import_hands``
runs on it, in a fresh database (``<name>_bench``): read, checked by the engine in worker
processes, written in batches with their ledger postings. Printed: the time of each phase
and the total (the target: at most 60 s for 100,000 hands on PostgreSQL on this 2-core
machine), then the time of a second run of the same file (everything skipped), and of the
statistics rebuild that the import queues for the worker (apart: not part of the import).
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path

from singapore_db import bench_database, vendor


def write_file(path: Path, hands: int) -> None:
    from rules.bots import singapore as bot
    from rules.bots.singapore import NAMES

    rng = random.Random(2026)
    first = date(2024, 9, 6)
    with path.open("w", encoding="utf-8") as out:
        for start in range(0, hands, 250):  # a table and evening: its hands in turn
            records = bot.table_records(rng.randrange(10**9), min(250, hands - start), seats=NAMES)
            for n, record in enumerate(records, start=start):
                record["table"] = f"Tavolo {n // 250 % 3 + 1}"
                record["date"] = (first + timedelta(days=n // 750)).isoformat()
                out.write(json.dumps(record) + "\n")


def main(hands: int) -> None:
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from clubs import services as clubs
    from matches.models import Hand
    from matches.singapore import tasks
    from rules.bots.singapore import NAMES

    queued = []
    tasks.recompute_stats.delay_on_commit = lambda **kwargs: queued.append(kwargs)
    admin = get_user_model().objects.create_user("bench-admin", password="x" * 12)
    club = clubs.create_club(name="Circolo Bench", founder=admin)
    for name in NAMES:
        clubs.add_guest(club=club, display_name=name)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "hands.jsonl"
        start = time.perf_counter()
        write_file(path, hands)
        took = time.perf_counter() - start
        print(f"database: {vendor()}; {hands:,} hands written to the file in {took:.1f} s")
        start = time.perf_counter()
        call_command("import_hands", str(path), "--club", club.slug, "--point-value", "0.05")
        total = time.perf_counter() - start
        imported = Hand.objects.filter(club=club).count()
        print(
            f"import: {imported:,} hands checked and posted in {total:.1f} s "
            f"({imported / total:,.0f} hands/s)"
        )
        start = time.perf_counter()
        call_command("import_hands", str(path), "--club", club.slug, "--no-progress")
        print(f"the same file again (all skipped): {time.perf_counter() - start:.1f} s")
    start = time.perf_counter()
    rows = tasks.recompute_stats(**queued[0])
    print(f"the statistics rebuild it queues ({rows} rows): {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=100_000)
    arguments = parser.parse_args()
    with bench_database():
        main(arguments.hands)
