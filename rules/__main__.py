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
* Output is UTF-8 JSON, one object a line.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import sys
from collections.abc import Iterator, Sequence

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

_NEWLINE = re.compile(rb"\r\n|\r|\n")


def _dump(result: dict[str, object]) -> str:
    text = json.dumps(result, ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        # A lone surrogate (valid in a JSON string escape) echoed in a message.
        text = json.dumps(result)
    return text


def _read(path: str) -> bytes:
    if path == "-":
        return sys.stdin.buffer.read()
    with open(path, "rb") as handle:
        return handle.read()


def _decode(data: bytes) -> str | None:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None


def _not_utf8() -> tuple[int, dict[str, object]]:
    bad = MalformedRecordError("bad_json", "not JSON: the text is not UTF-8", at=None)
    return 2, {"valid": False, "errors": [bad.as_dict()]}


def _check_bytes(data: bytes) -> tuple[int, dict[str, object]]:
    text = _decode(data)
    return _not_utf8() if text is None else check_text(text)


def _records(data: bytes) -> Iterator[bytes]:
    """The non-blank lines of a JSON Lines input, in order."""
    for line in _NEWLINE.split(data):
        text = _decode(line)
        if text is None or text.strip():
            yield line


def run_check(path: str, *, jsonl: bool) -> int:
    """Check ``path`` (``-`` for standard input), print the result(s), return the exit."""
    try:
        data = _read(path)
    except OSError as error:
        print(f"rules check: cannot read {path}: {error}", file=sys.stderr)
        if not jsonl:
            bad = MalformedRecordError("bad_json", f"cannot read {path}: {error}"[:300], at=None)
            print(_dump({"valid": False, "errors": [bad.as_dict()]}))
        return 2
    if not jsonl:
        code, result = _check_bytes(data)
        print(_dump(result))
        return code
    worst = 0
    out = sys.stdout
    for line in _records(data):
        code, result = _check_bytes(line)
        result["exit"] = code
        out.write(_dump(result) + "\n")
        worst = max(worst, code)
    return worst


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
