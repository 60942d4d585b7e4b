"""A pool of worker processes that check many Singapore records at once (the import's).

Only the rules engine is imported here (no Django): the import's worker processes are
started fresh ("spawn") and import nothing else, so they share no database connection
with the process that writes.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor

from rules.check import check_record

CHUNK = 1000


def check_chunk(records: Sequence[dict]) -> list[tuple[int, dict]]:
    return [check_record(record) for record in records]


def check_many(records: Sequence[dict], *, workers: int | None = None) -> Iterator[list]:
    """The engine's ``(exit code, result)`` for each record, in order, a chunk at a time
    (so a caller can show progress). Small inputs are checked in this process."""
    chunks = [records[i : i + CHUNK] for i in range(0, len(records), CHUNK)]
    workers = workers if workers is not None else (os.cpu_count() or 1)
    if workers <= 1 or len(chunks) <= 1:
        for chunk in chunks:
            yield check_chunk(chunk)
        return
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        yield from pool.map(check_chunk, chunks)
