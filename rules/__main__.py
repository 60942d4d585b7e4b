"""``python -m rules check FILE`` -- check game records from the shell.

See RULES.md, "Records and the checker". ``FILE`` may be ``-`` for standard input.

Rulings on what RULES.md leaves open:

* Input is UTF-8 (a leading byte-order mark is allowed). Bytes that are not UTF-8 are
  ``bad_json`` for that record (or that line, with ``--jsonl``).
* ``--jsonl`` splits lines at ``\\n``, ``\\r\\n`` or ``\\r`` only (a record may hold U+2028
  inside a string); blank lines are skipped and get no result line.
* A file that cannot be read exits 2 with a message on standard error; without
  ``--jsonl`` it also prints a ``bad_json`` result, so that standard output is still
  one JSON object.
* Output is UTF-8 JSON, one object a line (see :mod:`rules.jsonio`).
* No record stops the output: should checking or printing one ever fail in a way the
  checker does not foresee (a bug), that record gets a ``bad_record`` result (exit 2)
  whose message says the checker could not check it, a note goes to standard error, and
  ``--jsonl`` goes on with the next line. The foreseen causes (numbers too large to
  print, deep nesting) have their own results and tests.
"""

from __future__ import annotations

import argparse
import gc
import io
import multiprocessing
import os
import sys
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager

from rules import jsonio
from rules.check import check_text
from rules.errors import MalformedRecordError

DESCRIPTION = """\
Check Circolo game records (Singapore, Sputo, Spazz'u'mazz) against the rules.

  python -m rules check FILE          check one JSON record; prints one JSON object
  python -m rules check --jsonl FILE  check one record per line; prints one result per
                                      line, each with an added "exit"

FILE may be - for standard input. Exit codes: 0 valid, 1 well-formed but breaks a
rule (unknown cards included), 2 unusable (not JSON, unknown game, missing or
mistyped fields). With --jsonl the exit code is the highest of the lines.

An invalid record prints {"valid": false, "errors": [{"code", "message", "at"}]}.
"""


def _unusable(code: str, message: str) -> dict[str, object]:
    bad = MalformedRecordError(code, message, at=None)
    return {"valid": False, "errors": [bad.as_dict()]}


def _read(path: str) -> bytes:
    if path == "-":
        return sys.stdin.buffer.read()
    with open(path, "rb") as handle:
        return handle.read()


def result_line(
    text: str | None, *, where: str = "the record", jsonl: bool = False
) -> tuple[int, str]:
    """The exit code and the printed result of one record (``None``: not UTF-8), with
    ``"exit"`` added for ``--jsonl``. Never raises: see the module's last ruling."""
    try:
        if text is None:
            code, result = 2, _unusable("bad_json", "not JSON: the text is not UTF-8")
        else:
            code, result = check_text(text)
        if jsonl:
            result["exit"] = code
        return code, jsonio.dumps(result)
    except Exception as error:  # a bug: report it on this record and go on
        note = (
            f"{type(error).__name__}: {error}"[:200] if _printable(error) else type(error).__name__
        )
        print(f"rules check: {where}: internal error, {note}", file=sys.stderr)
        result = _unusable(
            "bad_record", f"the checker could not check this record ({type(error).__name__})"
        )
        if jsonl:
            result["exit"] = 2
        return 2, jsonio.dumps_ascii(result)


def _printable(error: BaseException) -> bool:
    try:
        str(error)
    except Exception:
        return False
    return True


def run_check(path: str, *, jsonl: bool) -> int:
    """Check ``path`` (``-`` for standard input), print the result(s), return the exit."""
    try:
        data = _read(path)
    except OSError as error:
        print(f"rules check: cannot read {path}: {error}", file=sys.stderr)
        if not jsonl:
            print(jsonio.dumps(_unusable("bad_json", f"cannot read {path}: {error}"[:300])))
        return 2
    out = sys.stdout
    if not jsonl:
        code, line = result_line(jsonio.decode(data))
        out.write(line + "\n")
        return code
    chunks = _chunks(jsonio.texts(data))
    jobs = min(_jobs(len(data)), len(chunks))
    worst = 0
    done = 0
    if jobs > 1:
        out.flush()
        pool = _pool(jobs)
        try:
            for code, lines in pool.map(check_chunk, chunks):
                out.write(lines)
                worst = max(worst, code)
                done += 1
        except BrokenPipeError:
            raise  # the reader has gone: see main()
        except (OSError, BrokenProcessPool) as error:
            # No worker process could start, or one died: check the rest in this process.
            print(f"rules check: worker processes failed ({error}); going on", file=sys.stderr)
        finally:
            pool.shutdown(wait=True, cancel_futures=True)  # nothing left waiting
    for chunk in chunks[done:]:
        code, lines = check_chunk(chunk)
        out.write(lines)
        worst = max(worst, code)
    return worst


# --- Large --jsonl inputs: chunks of records, checked in worker processes ----------------
#
# Ruling: a --jsonl input of PARALLEL_BYTES or more is checked by worker processes, one per
# CPU this process may use (at most MAX_JOBS), in chunks of about CHUNK_BYTES; results are
# written in input order and the exit code is the highest of all lines, exactly as in one
# process. RULES_CHECK_JOBS=N sets the number of processes (1: none), whatever the size.

PARALLEL_BYTES = 1_000_000
CHUNK_BYTES = 512 * 1024
MAX_JOBS = 8

Chunk = tuple[int, list[str | None]]


def _jobs(size: int) -> int:
    wanted = os.environ.get("RULES_CHECK_JOBS", "").strip()
    if wanted:
        return max(1, int(wanted)) if wanted.isdigit() else 1
    if size < PARALLEL_BYTES or not hasattr(os, "fork"):
        return 1
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cpus = os.cpu_count() or 1
    return min(cpus, MAX_JOBS)


def _chunks(texts: list[str | None]) -> list[Chunk]:
    """The records in chunks of about CHUNK_BYTES, each with its first record's number."""
    chunks: list[Chunk] = []
    current: list[str | None] = []
    size = first = 0
    for number, text in enumerate(texts, 1):
        if not current:
            first = number
        current.append(text)
        size += 1 if text is None else len(text)
        if size >= CHUNK_BYTES:
            chunks.append((first, current))
            current, size = [], 0
    if current:
        chunks.append((first, current))
    return chunks


def check_chunk(chunk: Chunk) -> tuple[int, str]:
    """The highest exit code of a chunk of records and their result lines, each ended."""
    first, texts = chunk
    worst = 0
    lines: list[str] = []
    with collector_paused():
        for number, text in enumerate(texts, first):
            code, line = result_line(text, where=f"record {number}", jsonl=True)
            if code > worst:
                worst = code
            lines.append(line)
    lines.append("")
    return worst, "\n".join(lines)


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector for a chunk of records, then collect once.

    A parsed record and its result are trees, which reference counting frees as soon as
    they are done with; the collector would walk the young ones every 700 allocations, for
    nothing: about a tenth of the time of checking a long log. Whatever cycle a chunk
    leaves (an exception's traceback, say) is collected at its end.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
        gc.collect(0)


def _pool(jobs: int) -> ProcessPoolExecutor:
    # Forked workers start at once with the rules already imported. Their standard output
    # goes nowhere: a worker must not flush a copy of what this process had buffered.
    return ProcessPoolExecutor(
        jobs, mp_context=multiprocessing.get_context("fork"), initializer=_quiet_worker
    )


def _quiet_worker() -> None:
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.close(devnull)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m rules",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(dest="command", metavar="check")
    check = commands.add_parser(
        "check",
        help="check a record (or many, with --jsonl)",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    check.add_argument("file", metavar="FILE", help="a JSON record, or - for standard input")
    check.add_argument("--jsonl", action="store_true", help="one record per line (JSON Lines)")
    args = parser.parse_args(argv)
    if args.command != "check":
        parser.print_help(sys.stderr)
        return 2
    if isinstance(sys.stdout, io.TextIOWrapper):
        sys.stdout.reconfigure(encoding="utf-8")
    try:
        code = run_check(args.file, jsonl=args.jsonl)
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader went away (``| head``): not our error; silence the flush at exit.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    return code


if __name__ == "__main__":
    sys.exit(main())
