"""The settle-up plan's speed (``ledger.settle.settle_up``): the exact minimum for 20 people
and the heuristic for 500, on random balances in cents; plus the exact search's hardest
case here, 22 people (``EXACT_LIMIT``) with small amounts, where zero-sum groups abound.

Each figure is the best and the worst of a few rounds on fresh random balances (other work
may share the machine's two cores). Targets: 20 people exact well under a second; 500
people (heuristic) at most people minus one payments.

    .venv/bin/python benchmarks/settle_up_bench.py
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ledger.settle import EXACT_LIMIT, settle_up  # noqa: E402

ROUNDS = 10


def random_balances(rng: random.Random, people: int, largest: int) -> dict[int, int]:
    values = [rng.randint(-largest, largest) for _ in range(people - 1)]
    return dict(enumerate([*values, -sum(values)]))


def bench(label: str, people: int, largest: int, *, exact_limit: int = EXACT_LIMIT) -> None:
    rng = random.Random(people * 7919 + largest)
    times, payments = [], []
    for _ in range(ROUNDS):
        balances = random_balances(rng, people, largest)
        start = time.perf_counter()
        plan = settle_up(balances, exact_limit=exact_limit)
        times.append(time.perf_counter() - start)
        payments.append(len(plan))
        assert len(plan) <= people - 1
    print(
        f"{label:<44} best {min(times) * 1000:8.1f} ms   worst {max(times) * 1000:8.1f} ms"
        f"   payments {min(payments)}-{max(payments)} (at most {people - 1})"
    )


def main() -> None:
    print(f"settle-up plans, {ROUNDS} random groups each (exact up to {EXACT_LIMIT} people)")
    bench("20 people, exact, amounts up to 500.00", 20, 50_000)
    bench("20 people, exact, amounts up to 0.20", 20, 20)
    bench(f"{EXACT_LIMIT} people, exact, amounts up to 0.20", EXACT_LIMIT, 20)
    bench("500 people, heuristic, amounts up to 500.00", 500, 50_000)
    bench("5000 people, heuristic, amounts up to 500.00", 5000, 50_000)


if __name__ == "__main__":
    main()
