"""Shared timing for the replay benchmarks: best of a few rounds, since other work may
share the machine's two cores."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence


def records_per_second(
    check: Callable[[dict[str, object]], object],
    records: Sequence[dict[str, object]],
    rounds: int = 5,
) -> float:
    """How many of ``records`` ``check`` gets through per second, in the best round."""
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        for record in records:
            check(record)
        best = min(best, time.perf_counter() - start)
    return len(records) / best
