"""Every rules-engine figure in one run: Singapore beside its peers, Sputo, Spazz'u'mazz,
and the bulk checker (``python -m rules check --jsonl``) beside its I/O floor.

    .venv/bin/python benchmarks/rules_bench.py       (or: make bench)

Each game's benchmark module (``bench_<game>.py`` beside this file) exposes
``figures() -> dict[str, float]``; a module that is not there yet is skipped. The Singapore
peers (rlcard, OpenSpiel) are optional: when missing, their figures are left out and the
install commands are printed. Figures are rates (per second) unless their name says
otherwise; run on a quiet machine, and more than once.
"""

from __future__ import annotations

import importlib
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

MODULES = ("bench_singapore", "bench_sputo", "bench_spazzumazz", "bench_jsonl")


def _print_ratios(figures: dict[str, float]) -> None:
    """Singapore against each peer, kind of hand by kind of hand."""
    for kind in ("random deals", "meldable hands"):
        ours = figures.get(f"ours: {kind}/s (one deck)")
        for peer in ("rlcard", "openspiel"):
            theirs = figures.get(f"{peer}: {kind}/s (one deck)")
            if ours and theirs:
                print(f"  ours / {peer}, {kind}: {ours / theirs:,.1f}x")


def main() -> int:
    for name in MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as error:
            if error.name != name:
                raise
            print(f"== {name}: not there yet, skipped\n")
            continue
        print(f"== {name}")
        for note in getattr(module, "missing_peers", list)():
            print(f"  missing peer: {note}")
        start = time.perf_counter()
        figures = module.figures()
        width = max(map(len, figures), default=0)
        for key, value in figures.items():
            print(f"  {key:<{width}}  {value:>12,}")
        if name == "bench_singapore":
            _print_ratios(figures)
        print(f"  ({time.perf_counter() - start:.0f} s)\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
