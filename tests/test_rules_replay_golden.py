"""The Sputo and Spazz'u'mazz replays give the results, codes, messages and ``at`` the
checker gave before they were rewritten as one replay per game.

The cases are bot logs, and bot logs damaged in every way :mod:`tests.rules_mutations`
knows (an event or turn removed, repeated, swapped, cut at, or edited to a wrong value or
type; now and then a deal's card written leniently, unknown, or missing). Their expected
results, ``tests/fixtures/rules_replay_golden.jsonl``, were written by
``tests/make_rules_replay_golden.py`` running the checker as it stood before: a result
pinned message for message is what ``python -m rules check``'s contract asks of a change
that should change nothing, where properties could only say that some error came.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from rules.check import check_record
from tests.rules_mutations import cases

GOLDEN = {
    line["case"]: line
    for line in map(
        json.loads,
        (Path(__file__).parent / "fixtures" / "rules_replay_golden.jsonl").read_text().splitlines(),
    )
}
CASES = dict(cases())


def test_every_case_has_its_expected_result() -> None:
    assert sorted(CASES) == sorted(GOLDEN)


def test_the_cases_reach_every_outcome_and_most_codes() -> None:
    codes = Counter(
        error["code"] for line in GOLDEN.values() for error in line["result"].get("errors", [])
    )
    exits = Counter(line["exit"] for line in GOLDEN.values())
    assert set(exits) == {0, 1, 2}
    assert {
        "illegal_play",
        "illegal_flip",
        "illegal_splash",
        "blocked",
        "not_finished",
        "bad_deal",
        "unknown_card",
        "bad_record",
        "out_of_turn",
        "not_in_hand",
        "must_play",
        "blind_not_allowed",
        "too_low",
    } <= set(codes)


@pytest.mark.parametrize("name", list(CASES))
def test_a_log_gets_the_result_it_got_before(name: str) -> None:
    record: dict[str, Any] = CASES[name]
    code, result = check_record(record)
    assert {"exit": code, "result": result} == {
        "exit": GOLDEN[name]["exit"],
        "result": GOLDEN[name]["result"],
    }
