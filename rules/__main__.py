"""``python -m rules check FILE`` -- check game records from the shell.

See RULES.md, "Records and the checker". ``FILE`` may be ``-`` for standard input.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from rules.check import check_text

DESCRIPTION = """\
Check Circolo game records (Singapore, Sputo, Spazz'u'mazz) against the rules.

  python -m rules check FILE          check one JSON record; prints one JSON object
  python -m rules check --jsonl FILE  check one record per line; prints one result per
                                      line, each with an added "exit"

FILE may be - for standard input. Exit codes: 0 valid, 1 well-formed but breaks a
rule (unknown cards included), 2 unusable (not JSON, unknown game, missing or
mistyped fields). With --jsonl the exit code is the highest of the lines.
"""


def _dump(result: dict[str, object]) -> str:
    return json.dumps(result, ensure_ascii=False)


def _read(path: str) -> str:
    if path == "-":
        return sys.stdin.read()
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def run_check(path: str, *, jsonl: bool) -> int:
    try:
        text = _read(path)
    except (OSError, UnicodeDecodeError) as error:
        print(f"rules check: cannot read {path}: {error}", file=sys.stderr)
        return 2
    if not jsonl:
        code, result = check_text(text)
        print(_dump(result))
        return code
    worst = 0
    out = sys.stdout
    for line in text.splitlines():
        if not line.strip():
            continue
        code, result = check_text(line)
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
    check = commands.add_parser("check", help="check a record (or many, with --jsonl)")
    check.add_argument("file", help="a JSON record, or - for standard input")
    check.add_argument("--jsonl", action="store_true", help="one record per line")
    args = parser.parse_args(argv)
    if args.command != "check":
        parser.print_help(sys.stderr)
        return 2
    return run_check(args.file, jsonl=args.jsonl)


if __name__ == "__main__":
    sys.exit(main())
