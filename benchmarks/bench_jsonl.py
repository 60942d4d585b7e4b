"""The bulk checker's throughput: ``python -m rules check --jsonl`` beside its I/O floor.

    .venv/bin/python benchmarks/bench_jsonl.py [WORD ...]   (also part of: make bench)

With words, only the files whose name holds one of them (``singapore``, ``sputo``...).

Files of records made by the bots in ``rules/bots/`` (deterministic seeds), as bulk
imports would bring them:

* Singapore: 20,000 dealt two-deck hands (``random_record(seed, closing=False)``: the
  deal of :func:`rules.bots.singapore.deal_codes`; most do not close, so most results are
  ``not_closed``); 20,000 closing hands (``random_record(seed)``); 5,000 closing hands
  with a stake and, one in two, declared melds;
* Sputo: 1,500 full logs, variant and options drawn from the seed;
* Spazz'u'mazz: 1,000 full logs of 2 to 8 players.

What is timed, each run in a fresh child process (so no cache is warm from an earlier
round), from after the imports to the last byte written (standard output goes to a file):

* the floor: reading the file, splitting it into lines, parsing each line and dumping it
  again with the checker's own JSON calls (:mod:`rules.jsonio`), written in the checker's
  chunks with its garbage-collector pause, in one process, with no checking at all;
* the checker in one process: ``rules.__main__.main(["check", "--jsonl", FILE])`` with
  ``RULES_CHECK_JOBS=1``;
* the checker as it runs by default, with its worker processes, for files large enough
  to get them (on a machine with more than one CPU).

* for the Sputo and Spazz'u'mazz logs, the reference: the straightforward checker these
  games had before their replays were written once, the rules package of commit
  ``REFERENCE`` (extracted with ``git archive``) with its one-pass fast path turned off,
  so that every log goes through its phases (event objects, Card objects, a method call
  per event), in one process.

Figures: records per second, the best of five rounds, the one-process checker's time
as a multiple of the floor's, and its records/s as a multiple of the reference's. The
floor, the reference and the one-process checker are timed in CPU seconds of their
process, which other work on a shared machine disturbs far less than the clock; the
workers are timed by the clock, which is what they shorten (on a busy machine they
cannot).
Targets: dealt Singapore hands within 3x the floor in one process; Sputo and
Spazz'u'mazz logs at least twice the reference's records/s.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rules.__main__ import PARALLEL_BYTES, _jobs  # noqa: E402

ROUNDS = 5
#: The last commit before the Sputo and Spazz'u'mazz replays were written once.
REFERENCE = "690643b"
#: The files the reference is timed on.
REFERENCE_FILES = ("sputo logs", "spazzumazz logs")
SINGAPORE_DEALT = 20_000
SINGAPORE_STAKED = 5_000
SPUTO_LOGS = 1_500
SPAZZUMAZZ_LOGS = 1_000


def singapore_dealt() -> Iterable[dict[str, object]]:
    from rules.bots.singapore import random_record

    return (random_record(seed, closing=False) for seed in range(SINGAPORE_DEALT))


def singapore_closing() -> Iterable[dict[str, object]]:
    from rules.bots.singapore import random_record

    return (random_record(seed) for seed in range(SINGAPORE_DEALT))


def singapore_staked() -> Iterable[dict[str, object]]:
    from rules.bots.singapore import random_record

    return (
        random_record(seed, stake=True, declare=seed % 2 == 0) for seed in range(SINGAPORE_STAKED)
    )


def sputo_logs() -> Iterable[dict[str, object]]:
    from rules.bots.sputo import random_record

    return ({"game": "sputo", **random_record(seed)} for seed in range(SPUTO_LOGS))


def spazzumazz_logs() -> Iterable[dict[str, object]]:
    from rules.bots.spazzumazz import play_game

    return (play_game(seed, 2 + seed % 7) for seed in range(SPAZZUMAZZ_LOGS))


FILES: dict[str, Callable[[], Iterable[dict[str, object]]]] = {
    "singapore dealt hands": singapore_dealt,
    "singapore closing hands": singapore_closing,
    "singapore closing hands, stake and melds": singapore_staked,
    "sputo logs": sputo_logs,
    "spazzumazz logs": spazzumazz_logs,
}


def write_file(path: Path, records: Iterable[dict[str, object]]) -> int:
    count = 0
    with path.open("w", encoding="utf-8") as handle:
        for record in records:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
            count += 1
    return count


# --- the child: one timed run ------------------------------------------------------------


def floor(path: str) -> int:
    """Parse and dump every line of ``path`` with the checker's own JSON calls
    (:mod:`rules.jsonio`), in the checker's chunks, in one process; no checking."""
    from rules import jsonio
    from rules.__main__ import _chunks, collector_paused

    with open(path, "rb") as handle:
        data = handle.read()
    out = sys.stdout
    count = 0
    for _, texts in _chunks(jsonio.texts(data)):
        with collector_paused():
            lines = [jsonio.dumps(jsonio.loads(text or "")) for text in texts]
        lines.append("")
        out.write("\n".join(lines))
        count += len(texts)
    return count


def reference_rules(folder: Path) -> Path:
    """The rules package of commit REFERENCE, extracted under ``folder``."""
    archive = subprocess.run(
        ["git", "archive", REFERENCE, "rules"], cwd=ROOT, capture_output=True, check=True
    )
    target = folder / "reference"
    target.mkdir()
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive.stdout, check=True)
    return target


def child(mode: str, path: str) -> None:
    """Time one run of ``mode`` on ``path``; the elapsed seconds go to standard error.
    ``reference=FOLDER`` runs the rules package in FOLDER through its phases alone."""
    if mode.startswith("reference="):
        sys.path.insert(0, mode.split("=", 1)[1])
        for name in ("rules", *[key for key in sys.modules if key.startswith("rules.")]):
            sys.modules.pop(name, None)
        from rules import spazzumazz, sputo

        for game in (sputo, spazzumazz):
            game._replay_legal_log = lambda *args: None  # type: ignore[attr-defined]
    from rules.__main__ import main

    run = floor if mode == "floor" else lambda p: main(["check", "--jsonl", p])
    start, cpu = time.perf_counter(), time.process_time()
    run(path)
    sys.stdout.flush()
    print(f"{time.perf_counter() - start:.6f} {time.process_time() - cpu:.6f}", file=sys.stderr)


# --- the parent ----------------------------------------------------------------------------


def timed(mode: str, path: Path, lines: int, jobs: str = "", wall: bool = False) -> float:
    """Best-of-ROUNDS seconds of ``mode`` on ``path``, CPU seconds of the child process or,
    with ``wall``, seconds by the clock; checks it printed one line a record. ``jobs`` is
    the checker's RULES_CHECK_JOBS (empty: its own choice)."""
    best = float("inf")
    env = {key: value for key, value in os.environ.items() if key != "RULES_CHECK_JOBS"}
    if jobs:
        env["RULES_CHECK_JOBS"] = jobs
    for _ in range(ROUNDS):
        with tempfile.TemporaryFile() as out:
            done = subprocess.run(
                [sys.executable, __file__, "--child", mode, str(path)],
                stdout=out,
                stderr=subprocess.PIPE,
                text=True,
                check=False,
                cwd=ROOT,
                env=env,
            )
            out.seek(0)
            printed = sum(1 for _ in out)
        if done.returncode not in (0, 1, 2) or printed != lines:
            raise RuntimeError(f"{mode} on {path.name}: exit {done.returncode}, {printed} lines")
        seconds = done.stderr.strip().splitlines()[-1].split()
        best = min(best, float(seconds[0 if wall else 1]))
    return best


def figures(only: Iterable[str] = ()) -> dict[str, float]:
    """The figures of every file, or of those whose name holds one of ``only``."""
    wanted = list(only)
    os.environ.pop("RULES_CHECK_JOBS", None)
    workers = _jobs(PARALLEL_BYTES)  # what the checker chooses here for a large input
    result: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as folder:
        reference: Path | None = None
        for name, make in FILES.items():
            if wanted and not any(word in name for word in wanted):
                continue
            path = Path(folder) / (name.replace(" ", "_") + ".jsonl")
            lines = write_file(path, make())
            floor_time = timed("floor", path, lines)
            alone = timed("check", path, lines, jobs="1")
            result[f"{name}: I/O floor records/s"] = round(lines / floor_time)
            result[f"{name}: --jsonl records/s, one process"] = round(lines / alone)
            result[f"{name}: --jsonl time / floor (x), one process"] = round(alone / floor_time, 2)
            if name in REFERENCE_FILES and shutil.which("git"):
                reference = reference or reference_rules(Path(folder))
                before = timed(f"reference={reference}", path, lines, jobs="1")
                result[f"{name}: reference ({REFERENCE}, phases) records/s, one process"] = round(
                    lines / before
                )
                result[f"{name}: --jsonl records/s / reference's (x), one process"] = round(
                    before / alone, 2
                )
            if path.stat().st_size >= PARALLEL_BYTES and workers > 1:
                shared = timed("check", path, lines, wall=True)
                result[f"{name}: --jsonl records/s, {workers} worker processes"] = round(
                    lines / shared
                )
    return result


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        child(sys.argv[2], sys.argv[3])
        sys.exit(0)
    os.environ.setdefault("PYTHONHASHSEED", "0")
    for key, value in figures(sys.argv[1:]).items():
        print(f"{key}: {value:,}")
