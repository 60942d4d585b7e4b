"""Write ``tests/fixtures/rules_replay_golden.jsonl``: the checker's result for every case
of :mod:`tests.rules_mutations` (bot logs and damaged bot logs), one JSON line a case.

    python tests/make_rules_replay_golden.py [RULES_DIR]

``RULES_DIR`` is the folder holding the ``rules`` package to run (default: this
checkout's). The fixture was written by the checker as it stood before its replays were
rewritten, so that the tests hold the new code to the old results, message for message;
run it again only when a change of results is meant, and say so in the commit.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "rules_replay_golden.jsonl"

if __name__ == "__main__":
    sys.path[:0] = [sys.argv[1] if len(sys.argv) > 1 else str(ROOT), str(ROOT)]
    import rules
    from rules.check import check_record
    from tests.rules_mutations import cases

    print(f"rules from {Path(rules.__file__).parent}", file=sys.stderr)
    with FIXTURE.open("w", encoding="utf-8") as out:
        for name, record in cases():
            code, result = check_record(record)
            out.write(json.dumps({"case": name, "exit": code, "result": result}) + "\n")
