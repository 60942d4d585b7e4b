"""The checker: ``check_record``, ``check_text`` and ``python -m rules check``.

RULES.md, "Records and the checker" and "Details of the records / General". The command
is run as a real subprocess from the repository root. The junk tests hold every game's
checker to the contract: whatever the record, ``check_record`` returns exit 0, 1 or 2
with the documented result shape and never raises.
"""

from __future__ import annotations

import copy
import doctest
import json
import os
import pickle
import random
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rules
import rules.__main__
import rules.check
import rules.errors
import rules.records
from rules.__main__ import main, result_line
from rules.cards import decks, format_cards
from rules.check import check_record, check_text
from rules.errors import MalformedRecordError, RuleViolation
from tests.rules_codes import EXIT_1_CODES, EXIT_2_CODES

REPO = Path(__file__).resolve().parent.parent
SHARED_EXAMPLES = REPO.parent / "shared" / "examples"


# The keys of a valid result (besides "valid"), and those a full log or a stake adds.
VALID_KEYS = {
    "singapore": {"melds", "combinations", "multiplier", "raw_points", "rounded_points", "points"},
    "sputo": {"winner", "loser_cards_left"},
    "spazzumazz": {"finish_order", "idiot"},
}
LOG_KEYS = {
    "singapore": {"transfers", "balances"},
    "sputo": {"plays", "flips"},
    "spazzumazz": {"turns", "pickups", "sweeps"},
}


# --- Records --------------------------------------------------------------------------------


def _shuffled(cards: list[str], seed: int) -> list[str]:
    random.Random(seed).shuffle(cards)
    return cards


def _sputo_log() -> dict[str, object]:
    """A ``single_deck`` deal (piles 5 4 3 2 1) with a few events of every type."""
    cards = _shuffled(format_cards(decks(1, jokers_per_deck=2)), 1)
    deal: dict[str, object] = {}
    for name, half in (("Anna", cards[:27]), ("Bruno", cards[27:])):
        piles, rest = [], half
        for size in (5, 4, 3, 2, 1):
            piles.append(rest[:size])
            rest = rest[size:]
        deal[name] = {"piles": piles, "stock": rest}
    return {
        "game": "sputo",
        "variant": "single_deck",
        "options": {"suit_match": True, "splash": True},
        "players": ["Anna", "Bruno"],
        "deal": deal,
        "events": [
            {"type": "flip", "t": 0},
            {"type": "play", "player": "Anna", "pile": 4, "center": 0, "t": 1.5},
            {"type": "play", "player": "Bruno", "pile": 0, "center": 1},
            {"type": "splash", "player": "Bruno", "t": 3},
            {"type": "flip"},
            {"type": "restock", "stocks": {"Anna": ["AS"], "Bruno": ["2S"]}},
            {"type": "play", "player": "Anna", "pile": 3, "center": 1, "t": 7},
        ],
    }


def _spazzumazz_log() -> dict[str, object]:
    """Three players' deal from two decks and a few turns of every kind."""
    cards = _shuffled(format_cards(decks(2)), 2)
    deal: dict[str, Any] = {}
    for index, name in enumerate(["Anna", "Bruno", "Carla"]):
        own = cards[index * 11 : index * 11 + 11]
        deal[name] = {"face_down": own[:3], "face_up": own[3:6], "hand": own[6:]}
    hands = {name: entry["hand"] for name, entry in deal.items()}
    return {
        "game": "spazzumazz",
        "players": ["Anna", "Bruno", "Carla"],
        "deal": deal,
        "stock": cards[33:],
        "turns": [
            {"player": "Anna", "play": [hands["Anna"][0]], "face_up": []},
            {
                "player": "Bruno",
                "play": [hands["Bruno"][1]],
                "face_up": [deal["Bruno"]["face_up"][0]],
            },
            {"player": "Carla", "pickup": True},
            {"player": "Anna", "blind": 0},
            {"player": "Bruno", "play": [], "face_up": ["QS"]},
        ],
        "house_rules": {"idiot_min_games": 3},
    }


HANDMADE: dict[str, list[dict[str, object]]] = {
    "singapore": [
        {
            "game": "singapore",
            "winner": ["QS", "KS", "AS", "2S", "5H", "5D", "5C", "9D", "9D", "9C"],
            "loser": ["2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "10H", "2C"],
        },
        {
            "game": "singapore",
            "winner": ["4H", "5H", "6H", "7H", "7S", "7D", "8C", "9C", "10C", "JC"],
            "loser": ["AH", "AD", "KH", "KD", "QH", "3C", "4C", "5C", "4D", "JK"],
            "melds": [
                ["8C", "9C", "10C", "JC"],
                ["4H", "5H", "6H"],
                ["7S", "7H", "7D"],
            ],
            "house_rules": {"joker_limit": "one", "rounding": "up", "cap": None},
            "stake": {
                "dealer": "Anna",
                "opponent": "Bruno",
                "dealer_quotas": 5,
                "covers": {"Bruno": 2, "Carla": 1, "Dario": 2},
                "winner": "Anna",
                "side_bets": [
                    {"backer_of_winner": "Elena", "backer_of_loser": "Franco", "quotas": 3}
                ],
            },
        },
        {
            "game": "singapore",
            "winner": ["AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "JK", "10S"],
            "loser": ["qh", " QH ", "Q♠", "TS", "JK", "3C", "4C", "5C", "4D", "2D"],
            "house_rules": {"joker_sequence_multipliers": True, "cap_applies_to": "total"},
        },
    ],
    "sputo": [
        {
            "game": "sputo",
            "variant": "classic",
            "options": {"suit_match": False, "splash": False},
            "players": ["Anna", "Bruno"],
            "winner": "Bruno",
            "loser_cards_left": 7,
        },
        {
            "game": "sputo",
            "variant": "modern",
            "options": ["splash"],
            "players": ["Anna", "Bruno"],
            "winner": "Anna",
            "loser_cards_left": 28,
            "house_rules": {},
        },
        _sputo_log(),
    ],
    "spazzumazz": [
        {
            "game": "spazzumazz",
            "players": ["Anna", "Bruno", "Carla"],
            "finish_order": ["Carla", "Anna", "Bruno"],
        },
        _spazzumazz_log(),
    ],
}


def _shared_example_records() -> list[dict[str, object]]:
    records = []
    for path in sorted(SHARED_EXAMPLES.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                records.append(json.loads(line)["record"])
    return records


ALL_BASES: list[dict[str, object]] = [
    *(record for bases in HANDMADE.values() for record in bases),
    *_shared_example_records(),
]

# --- The documented result shape ---------------------------------------------------------------


def assert_documented_shape(record: object, exit_code: int, result: object) -> None:
    """``(exit_code, result)`` is what RULES.md says the checker returns for ``record``."""
    assert exit_code in (0, 1, 2)
    assert isinstance(result, dict)
    json.dumps(result, allow_nan=False)  # printable as JSON
    game = record.get("game") if isinstance(record, dict) else None
    game = game if isinstance(game, str) and game in EXIT_1_CODES else None
    if exit_code == 0:
        assert game is not None
        assert result["valid"] is True
        assert "errors" not in result
        assert VALID_KEYS[game] <= result.keys(), f"missing {VALID_KEYS[game] - result.keys()}"
        return
    assert result.keys() == {"valid", "errors"}
    assert result["valid"] is False
    errors = result["errors"]
    assert isinstance(errors, list)
    assert errors
    for error in errors:
        assert isinstance(error, dict)
        assert error.keys() == {"code", "message", "at"}
        assert isinstance(error["message"], str)
        assert error["message"]
        at = error["at"]
        assert at is None or isinstance(at, str) or (isinstance(at, int) and at is not True)
        assert at is not False
        if exit_code == 2:
            assert error["code"] in EXIT_2_CODES
        else:
            assert game is not None
            assert error["code"] in EXIT_1_CODES[game], f"{error['code']} is not a {game} code"


def checked(record: object) -> tuple[int, dict[str, object]]:
    exit_code, result = check_record(record)
    assert_documented_shape(record, exit_code, result)
    return exit_code, result


def error_codes(result: dict[str, object]) -> list[object]:
    errors = result["errors"]
    assert isinstance(errors, list)
    return [error["code"] for error in errors]


# --- check_record and check_text -------------------------------------------------------------


class TestCheckRecord:
    @pytest.mark.parametrize(
        "record", [[], [{"game": "sputo"}], "sputo", 3, 2.5, None, True], ids=repr
    )
    def test_a_record_that_is_not_an_object_is_exit_2(self, record: object) -> None:
        exit_code, result = checked(record)
        assert (exit_code, error_codes(result)) == (2, ["bad_record"])

    @pytest.mark.parametrize(
        "game",
        ["chess", "", "Singapore", "SPUTO", " sputo", "spazz'u'mazz", None, 1, True, ["sputo"]],
        ids=repr,
    )
    def test_a_game_that_is_not_one_of_the_three_is_unknown_game(self, game: object) -> None:
        exit_code, result = checked({"game": game, "players": ["Anna", "Bruno"]})
        assert (exit_code, error_codes(result)) == (2, ["unknown_game"])
        assert result["errors"][0]["at"] == "game"  # type: ignore[index]

    def test_a_record_without_a_game_is_unknown_game(self) -> None:
        exit_code, result = checked({"players": ["Anna", "Bruno"], "winner": "Anna"})
        assert (exit_code, error_codes(result)) == (2, ["unknown_game"])

    @pytest.mark.parametrize("game", sorted(EXIT_1_CODES))
    def test_every_game_is_dispatched_to_its_own_checker(self, game: str) -> None:
        assert check_record({"game": game}) != check_record({"game": "chess"})

    def test_a_valid_record_is_the_game_s_keys_with_valid_true(self, monkeypatch: Any) -> None:
        monkeypatch.setitem(rules.check.GAMES, "fake", lambda record: {"points": 7})
        assert check_record({"game": "fake"}) == (0, {"valid": True, "points": 7})

    @pytest.mark.parametrize(
        ("error", "exit_code"),
        [
            (RuleViolation("too_low", "5C is lower than 7S", at=2), 1),
            (MalformedRecordError("bad_record", "winner is missing", at="winner"), 2),
        ],
    )
    def test_a_rules_error_becomes_an_invalid_result_with_its_exit(
        self, monkeypatch: Any, error: rules.RulesError, exit_code: int
    ) -> None:
        def fake(record: dict[str, object]) -> dict[str, object]:
            raise error

        monkeypatch.setitem(rules.check.GAMES, "fake", fake)
        assert check_record({"game": "fake"}) == (
            exit_code,
            {"valid": False, "errors": [error.as_dict()]},
        )

    def test_every_error_of_a_phase_is_reported_in_order(self, monkeypatch: Any) -> None:
        def fake(record: dict[str, object]) -> dict[str, object]:
            with rules.records.Phase() as phase:
                phase.run(rules.parse_cards, ["QS", "1"], "winner")
                phase.run(rules.parse_cards, ["JOKER", "KS"], "loser")
            return {}

        monkeypatch.setitem(rules.check.GAMES, "fake", fake)
        exit_code, result = check_record({"game": "fake"})
        assert exit_code == 1
        assert [(e["code"], e["at"]) for e in result["errors"]] == [  # type: ignore[attr-defined]
            ("unknown_card", "winner[1]"),
            ("unknown_card", "loser[0]"),
        ]

    def test_a_malformed_field_stops_a_phase_at_once(self, monkeypatch: Any) -> None:
        def fake(record: dict[str, object]) -> dict[str, object]:
            with rules.records.Phase() as phase:
                phase.run(rules.parse_cards, ["1"], "winner")
                phase.run(rules.parse_cards, "QS", "loser")
            return {}

        monkeypatch.setitem(rules.check.GAMES, "fake", fake)
        exit_code, result = check_record({"game": "fake"})
        assert (exit_code, error_codes(result)) == (2, ["bad_record"])

    def test_the_package_re_exports_the_checker(self) -> None:
        assert rules.check_record({"game": "chess"}) == check_record({"game": "chess"})
        assert rules.check_text("[") == check_text("[")


class TestCheckText:
    @pytest.mark.parametrize(
        "text",
        [
            "",
            "   ",
            "{",
            "{'game': 'sputo'}",
            '{"game": "sputo",}',
            "game=sputo",
            '{"game": "sputo"} {"game": "sputo"}',
            '{"game": "sputo", "t": NaN}',
            '{"game": "sputo", "t": Infinity}',
            '{"game": "sputo", "t": -Infinity}',
            "[" * 100_000,
            "[" * 100_000 + "]" * 100_000,
            '{"a":' * 100_000 + "1" + "}" * 100_000,
            '{"game": "sputo", "n": ' + "9" * 5000 + "}",
        ],
        ids=lambda text: repr(text)[:40],
    )
    def test_text_that_is_not_json_is_bad_json(self, text: str) -> None:
        exit_code, result = check_text(text)
        assert (exit_code, error_codes(result)) == (2, ["bad_json"])
        assert_documented_shape(None, exit_code, result)

    @pytest.mark.parametrize("text", ["[]", '"sputo"', "3", "null", "true"])
    def test_json_that_is_not_an_object_is_bad_record(self, text: str) -> None:
        exit_code, result = check_text(text)
        assert (exit_code, error_codes(result)) == (2, ["bad_record"])

    def test_json_text_checks_like_the_parsed_record(self) -> None:
        for record in ALL_BASES:
            assert check_text(json.dumps(record)) == check_record(record)

    def test_surrounding_whitespace_and_a_lone_surrogate_are_fine(self) -> None:
        exit_code, result = check_text(' \n {"game": "\\ud800"} \n')
        assert (exit_code, error_codes(result)) == (2, ["unknown_game"])


# --- The error family -------------------------------------------------------------------------


class TestErrors:
    @pytest.mark.parametrize(
        ("value", "text"),
        [
            ("QH", "'QH'"),
            ("", "''"),
            (7, "7"),
            (-3, "-3"),
            (True, "true"),
            (False, "false"),
            (None, "null"),
            (1.5, "1.5"),
            ([1, [2]], "a list"),
            ({"a": 1}, "an object"),
            (10**400, "a very large integer"),
            (-(10**400), "a very large integer"),
            ("x" * 1000, "'" + "x" * 40 + "...'"),
            ("it's" * 20, '"' + ("it's" * 10) + '..."'),
        ],
        ids=lambda value: repr(value)[:20],
    )
    def test_describe_renders_any_value_short_and_safe(self, value: object, text: str) -> None:
        assert rules.errors.describe(value) == text

    def test_describe_never_recurses_into_deep_nesting(self) -> None:
        assert rules.errors.describe(_nested(100_000, lambda v: [v])) == "a list"

    @pytest.mark.parametrize(
        "error",
        [
            RuleViolation("too_low", "5C is lower than 7S", at=2),
            MalformedRecordError("bad_record", "winner is missing", at="winner"),
            rules.UnknownCardError("11H", at="loser[8]"),
            rules.ErrorGroup(
                [rules.UnknownCardError("1", at="w[0]"), rules.UnknownCardError("JOKER")]
            ),
        ],
        ids=lambda error: type(error).__name__,
    )
    def test_errors_survive_pickling_and_copying(self, error: rules.RulesError) -> None:
        for again in (pickle.loads(pickle.dumps(error)), copy.deepcopy(error)):
            assert type(again) is type(error)
            assert again.exit_code == error.exit_code
            assert str(again) == str(error)
            assert [e.as_dict() for e in again.errors] == [e.as_dict() for e in error.errors]

    def test_a_group_exits_with_the_highest_of_its_errors(self) -> None:
        group = rules.ErrorGroup(
            [RuleViolation("too_low", "low", at=1), MalformedRecordError("bad_record", "x", at="y")]
        )
        assert group.exit_code == 2
        assert group.code == "too_low"

    def test_raise_all_raises_one_error_alone_and_several_as_a_group(self) -> None:
        one = RuleViolation("too_low", "low", at=1)
        rules.errors.raise_all([])
        with pytest.raises(RuleViolation) as caught:
            rules.errors.raise_all([one])
        assert caught.value is one
        with pytest.raises(rules.ErrorGroup) as grouped:
            rules.errors.raise_all([one, one])
        assert grouped.value.errors == (one, one)

    def test_rules_errors_are_value_errors(self) -> None:
        assert issubclass(rules.RulesError, ValueError)
        assert issubclass(rules.UnknownCardError, RuleViolation)


# --- RULES.md, "Details of the records / General", across the games ------------------------


def _with(base: dict[str, object], path: list[str | int], value: object) -> dict[str, object]:
    """A deep copy of ``base`` with ``value`` at ``path`` (``...`` deletes it)."""
    record = copy.deepcopy(base)
    container: Any = record
    for step in path[:-1]:
        container = container[step]
    if value is ...:
        del container[path[-1]]
    else:
        container[path[-1]] = value
    return record


_SPUTO, _SPUTO_LOG = HANDMADE["sputo"][0], HANDMADE["sputo"][2]
_SPAZZ, _SPAZZ_LOG = HANDMADE["spazzumazz"]
_SINGAPORE, _STAKE = HANDMADE["singapore"][0], HANDMADE["singapore"][1]
_HAND = _SINGAPORE["winner"]
assert isinstance(_HAND, list)

# (description, record, exit, the exit-1 codes)
GENERAL = [
    ("sputo needs two players", _with(_SPUTO, ["players"], ["Anna"]), 2, None),
    ("not three", _with(_SPUTO, ["players"], ["Anna", "Bruno", "Carla"]), 2, None),
    ("players are distinct", _with(_SPUTO, ["players"], ["Anna", "Anna"]), 2, None),
    ("players are non-empty", _with(_SPUTO, ["players"], ["Anna", ""]), 2, None),
    ("players are strings", _with(_SPUTO, ["players"], ["Anna", 3]), 2, None),
    ("the winner is a player", _with(_SPUTO, ["winner"], "Carla"), 2, None),
    ("loser_cards_left is at least 1", _with(_SPUTO, ["loser_cards_left"], 0), 2, None),
    ("loser_cards_left 1", _with(_SPUTO, ["loser_cards_left"], 1), 0, None),
    ("classic's layout holds 23", _with(_SPUTO, ["loser_cards_left"], 23), 0, None),
    ("not 24", _with(_SPUTO, ["loser_cards_left"], 24), 2, None),
    ("loser_cards_left is an integer", _with(_SPUTO, ["loser_cards_left"], True), 2, None),
    ("not a string", _with(_SPUTO, ["loser_cards_left"], "7"), 2, None),
    ("options as a list of names", _with(_SPUTO, ["options"], ["splash", "suit_match"]), 0, None),
    ("sputo has no house rules", _with(_SPUTO, ["house_rules"], {"cap": 100}), 2, None),
    ("fields not named are ignored", _with(_SPUTO, ["comment"], {"x": [1]}), 0, None),
    ("a short result and a log", {**_SPUTO_LOG, "winner": "Anna", "loser_cards_left": 3}, 2, None),
    ("one deal entry per player", _with(_SPUTO_LOG, ["deal", "Bruno"], ...), 2, None),
    (
        "no deal entry for others",
        _with(_SPUTO_LOG, ["deal", "Carla"], {"piles": [], "stock": []}),
        2,
        None,
    ),
    ("a card that is a number", _with(_SPUTO_LOG, ["deal", "Anna", "stock", 0], 5), 2, None),
    (
        "an unknown card in a deal",
        _with(_SPUTO_LOG, ["deal", "Anna", "stock", 0], "1"),
        1,
        {"unknown_card"},
    ),
    (
        "a mistyped card beats an unknown one",
        _with(
            _with(_SPUTO_LOG, ["deal", "Anna", "stock", 0], "1"), ["deal", "Bruno", "stock", 0], 5
        ),
        2,
        None,
    ),
    ("t is a number", _with(_SPUTO_LOG, ["events", 0, "t"], "0"), 2, None),
    ("t is not a bool", _with(_SPUTO_LOG, ["events", 0, "t"], True), 2, None),
    ("center is 0 or 1", _with(_SPUTO_LOG, ["events", 1, "center"], 2), 2, None),
    ("pile is an integer", _with(_SPUTO_LOG, ["events", 1, "pile"], True), 2, None),
    (
        "spazzumazz needs two players",
        {**_SPAZZ, "players": ["Anna"], "finish_order": ["Anna"]},
        2,
        None,
    ),  # fmt: skip
    (
        "finish_order holds every player",
        _with(_SPAZZ, ["finish_order"], ["Anna", "Bruno"]),
        2,
        None,
    ),  # fmt: skip
    ("once each", _with(_SPAZZ, ["finish_order"], ["Anna", "Bruno", "Bruno"]), 2, None),
    ("and nobody else", _with(_SPAZZ, ["finish_order"], ["Anna", "Bruno", "Dario"]), 2, None),
    (
        "finish_order and a log",
        {**_SPAZZ_LOG, "finish_order": ["Anna", "Bruno", "Carla"]},
        2,
        None,
    ),  # fmt: skip
    ("spazzumazz deal per player", _with(_SPAZZ_LOG, ["deal", "Carla"], ...), 2, None),
    ("a turn by a stranger", _with(_SPAZZ_LOG, ["turns", 0, "player"], "Dario"), 2, None),
    ("a null card", _with(_SPAZZ_LOG, ["stock", 0], None), 2, None),
    ("an unknown card in the stock", _with(_SPAZZ_LOG, ["stock", 0], "JKS"), 1, {"unknown_card"}),
    ("an ignored field", _with(_SPAZZ, ["notes"], "x"), 0, None),
    ("a singapore hand of 9", _with(_SINGAPORE, ["winner"], _HAND[:9]), 1, {"hand_size"}),
    (
        "cards before counts",
        _with(_SINGAPORE, ["winner"], [*_HAND[:8], "11H"]),
        1,
        {"unknown_card"},
    ),  # fmt: skip
    ("a card that is an int", _with(_SINGAPORE, ["winner"], [*_HAND[:9], 5]), 2, None),
    ("a quota that is a bool", _with(_STAKE, ["stake", "dealer_quotas"], True), 2, None),
    ("a quota that is a string", _with(_STAKE, ["stake", "covers", "Carla"], "1"), 2, None),
    ("a quota below 1", _with(_STAKE, ["stake", "dealer_quotas"], 0), 1, {"bad_stake"}),
    ("a stake without a dealer", _with(_STAKE, ["stake", "dealer"], ...), 2, None),
    ("a cap that is a float", _with(_SINGAPORE, ["house_rules"], {"cap": 100.0}), 2, None),
    ("an ignored singapore field", _with(_SINGAPORE, ["table"], 7), 0, None),
]


@pytest.mark.parametrize(
    ("record", "exit_code", "codes"),
    [pytest.param(*case[1:], id=case[0]) for case in GENERAL],
)
def test_the_general_details_of_the_records_hold_in_every_game(
    record: dict[str, object], exit_code: int, codes: set[str] | None
) -> None:
    got, result = checked(record)
    assert got == exit_code, result
    if codes is not None:
        assert set(error_codes(result)) == codes


# --- RULES.md, "Details of the records": the rulings on the records, one table each --------------

_SPUTO_PLAY = next(i for i, e in enumerate(_SPUTO_LOG["events"]) if e["type"] == "play")  # type: ignore[union-attr, index]

# A field given as null is the same as the field left out, for every optional field.
NULL_IS_ABSENT = [
    (_SINGAPORE, ["melds"]),
    (_SINGAPORE, ["stake"]),
    (_SINGAPORE, ["house_rules"]),
    (_STAKE, ["melds"]),
    (_STAKE, ["stake", "covers"]),
    (_STAKE, ["stake", "side_bets"]),
    (_SPUTO, ["options"]),
    (_SPUTO, ["house_rules"]),
    (_SPUTO, ["deal"]),
    (_SPUTO, ["events"]),
    (_SPUTO_LOG, ["winner"]),
    (_SPUTO_LOG, ["loser_cards_left"]),
    (_SPUTO_LOG, ["options"]),
    (_SPUTO_LOG, ["events", 0, "t"]),
    (_SPUTO_LOG, ["events", _SPUTO_PLAY, "t"]),
    (_SPAZZ, ["house_rules"]),
    (_SPAZZ, ["deal"]),
    (_SPAZZ, ["stock"]),
    (_SPAZZ, ["turns"]),
    (_SPAZZ_LOG, ["finish_order"]),
    (_SPAZZ_LOG, ["house_rules"]),
    (_SPAZZ_LOG, ["turns", 0, "face_up"]),
    (_SPAZZ_LOG, ["turns", 0, "pickup"]),
    (_SPAZZ_LOG, ["turns", 0, "blind"]),
    (_SPAZZ_LOG, ["turns", 2, "play"]),
    (_SPAZZ_LOG, ["turns", 2, "blind"]),
    (_SPAZZ_LOG, ["turns", 3, "pickup"]),
    (_SPAZZ_LOG, ["turns", 4, "pickup"]),
]


def _drop(base: dict[str, object], path: list[str | int]) -> dict[str, object]:
    record = copy.deepcopy(base)
    container: Any = record
    for step in path[:-1]:
        container = container[step]
    container.pop(path[-1], None)
    return record


@pytest.mark.parametrize(
    ("base", "path"),
    NULL_IS_ABSENT,
    ids=[f"{base['game']} {'.'.join(map(str, path))}" for base, path in NULL_IS_ABSENT],
)
def test_a_null_optional_field_is_the_same_as_a_missing_one(
    base: dict[str, object], path: list[str | int]
) -> None:
    assert checked(_with(base, path, None)) == checked(_drop(base, path))


# The entries of house_rules and of a Sputo options object are values: null is a bad value,
# except Singapore's cap, where it means no cap.
NULL_VALUES = [
    ("a null joker_limit", _with(_SINGAPORE, ["house_rules"], {"joker_limit": None}), 2),
    ("a null rounding", _with(_SINGAPORE, ["house_rules"], {"rounding": None}), 2),
    ("a null cap is no cap", _with(_SINGAPORE, ["house_rules"], {"cap": None}), 0),
    ("a null idiot_min_games", _with(_SPAZZ, ["house_rules"], {"idiot_min_games": None}), 2),
    ("a null option", _with(_SPUTO, ["options"], {"splash": None}), 2),
    ("a null option name", _with(_SPUTO, ["options"], [None]), 2),
]


@pytest.mark.parametrize(
    ("record", "exit_code"), [pytest.param(*case[1:], id=case[0]) for case in NULL_VALUES]
)
def test_null_in_house_rules_or_options_is_a_bad_value_but_for_the_cap(
    record: dict[str, object], exit_code: int
) -> None:
    assert checked(record)[0] == exit_code


_SIDE_BET = {"backer_of_winner": "Elena", "backer_of_loser": "Franco", "quotas": 1}
# Names are non-empty strings: empty or only white space is bad_record at that field.
BAD_NAMES = [
    (_with(_SPUTO, ["players"], ["Anna", " "]), "players[1]"),
    (_with(_SPUTO, ["players"], ["\t\n", "Bruno"]), "players[0]"),
    (_with(_SPAZZ, ["players", 2], "\u3000"), "players[2]"),
    (_with(_STAKE, ["stake", "dealer"], ""), "stake.dealer"),
    (_with(_STAKE, ["stake", "opponent"], "  "), "stake.opponent"),
    (_with(_STAKE, ["stake", "winner"], ""), "stake.winner"),
    (_with(_STAKE, ["stake", "covers"], {" ": 1}), "stake.covers. "),
    (_with(_STAKE, ["stake", "side_bets", 0, "backer_of_winner"], ""), None),
    (_with(_STAKE, ["stake", "side_bets", 0, "backer_of_loser"], " "), None),
]


@pytest.mark.parametrize(("record", "at"), BAD_NAMES, ids=[str(at) for _, at in BAD_NAMES])
def test_an_empty_or_blank_name_is_bad_record_at_its_field(
    record: dict[str, object], at: str | None
) -> None:
    exit_code, result = checked(record)
    assert (exit_code, error_codes(result)) == (2, ["bad_record"])
    if at is not None:
        assert result["errors"][0]["at"] == at  # type: ignore[index]
    else:
        assert str(result["errors"][0]["at"]).startswith("stake.side_bets[0].")  # type: ignore[index]


# Quotas above 1,000,000 are bad_stake, at every place a stake holds quotas.
_BIG_STAKE = {
    "dealer": "Anna",
    "opponent": "Bruno",
    "dealer_quotas": 1_000_000,
    "winner": "Anna",
    "covers": {"Bruno": 400_000, "Carla": 600_000},
    "side_bets": [{**_SIDE_BET, "quotas": 1_000_000}],
}
QUOTAS = [
    ("the most quotas", _BIG_STAKE, 0),
    ("a dealer above", {**_BIG_STAKE, "dealer_quotas": 1_000_001}, 1),
    ("a cover above", {**_BIG_STAKE, "dealer_quotas": 1, "covers": {"Bruno": 1_000_001}}, 1),
    ("a side bet above", {**_BIG_STAKE, "side_bets": [{**_SIDE_BET, "quotas": 1_000_001}]}, 1),
    ("a huge side bet", {**_BIG_STAKE, "side_bets": [{**_SIDE_BET, "quotas": 10**4299}]}, 1),
    (
        "a huge dealer and cover",
        {**_BIG_STAKE, "dealer_quotas": 10**4299, "covers": {"Bruno": 10**4299}},
        1,
    ),
    (
        "covers summing past the limit",
        {**_BIG_STAKE, "covers": {"B": 9 * 10**4299, "C": 9 * 10**4299}},
        1,
    ),
    ("a huge negative quota", {**_BIG_STAKE, "dealer_quotas": -(10**4299)}, 1),
    ("a float quota", {**_BIG_STAKE, "dealer_quotas": 1e6}, 2),
    ("a bool quota", {**_BIG_STAKE, "side_bets": [{**_SIDE_BET, "quotas": True}]}, 2),
]


@pytest.mark.parametrize(
    ("stake", "exit_code"), [pytest.param(*case[1:], id=case[0]) for case in QUOTAS]
)
def test_quotas_are_from_1_to_a_million(stake: dict[str, object], exit_code: int) -> None:
    exit_code_got, result = checked(_with(_STAKE, ["stake"], stake))
    assert exit_code_got == exit_code, result
    if exit_code == 1:
        assert set(error_codes(result)) == {"bad_stake"}
    if exit_code == 0:
        assert result["transfers"][0]["points"] == 400_000 * result["points"]  # type: ignore[index]


@pytest.mark.parametrize(
    ("value", "exit_code"),
    [(1, 0), (10**4299, 0), (0, 2), (-1, 2), (True, 2), (1.0, 2), ("1", 2), (None, 2)],
)
def test_idiot_min_games_is_an_integer_of_at_least_1(value: object, exit_code: int) -> None:
    assert checked(_with(_SPAZZ, ["house_rules"], {"idiot_min_games": value}))[0] == exit_code


# --- No number a record can hold stops the output ------------------------------------------------

# Integers at and near Python's 4300-digit limit for printing, floats, and bools where
# integers belong: in every field of every handmade record, through the command's own path
# (parse, check, print), each gets a result that is JSON and no internal error.
NUMBERS: list[object] = [
    10**4299,
    -(10**4299),
    int("9" * 4300),
    2**64,
    -(2**63) - 1,
    1e308,
    -1e308,
    5e-324,
    0.5,
    -0.0,
    True,
    False,
]


@pytest.mark.parametrize(
    "base",
    [r for bases in HANDMADE.values() for r in bases],
    ids=lambda r: f"{r['game']}-{len(json.dumps(r))}",
)
def test_no_number_in_any_field_stops_the_output(base: dict[str, object]) -> None:
    for index, _ in enumerate(list(_paths(base, limit_cards=True))):
        for number in NUMBERS:
            record = copy.deepcopy(base)
            container, key = list(_paths(record, limit_cards=True))[index]
            container[key] = number
            code, line = result_line(json.dumps(record), jsonl=True)
            result = json.loads(line)
            assert result["exit"] == code, line[:300]
            assert "could not check" not in line, f"{key!r} = {number!r:.40}: {line[:300]}"
            assert_documented_shape(record, code, {k: v for k, v in result.items() if k != "exit"})


def test_the_checker_refuses_integers_past_the_printing_limit_as_bad_json() -> None:
    text = json.dumps(_STAKE).replace('"dealer_quotas": 5', '"dealer_quotas": ' + "9" * 4301)
    code, line = result_line(text, jsonl=True)
    assert code == 2
    assert error_codes(json.loads(line)) == ["bad_json"]


class TestTheLastResortGuard:
    """Should checking a record ever fail unforeseen (a bug), that record gets a
    bad_record result with exit 2 and the other lines go on."""

    @pytest.fixture(autouse=True)
    def failing_game(self, monkeypatch: Any) -> None:
        def check(record: dict[str, object]) -> dict[str, object]:
            if record.get("fail") == "raise":
                raise ZeroDivisionError("division by zero")
            if record.get("fail") == "print":
                return {"huge": 10**4299 * 10}  # more than 4300 digits: cannot be printed
            return {"ok": True}

        monkeypatch.setitem(rules.check.GAMES, "failing", check)

    def test_each_line_gets_its_result_and_the_exit_is_the_highest(
        self, tmp_path: Path, capsys: Any
    ) -> None:
        lines = [{"fail": "no"}, {"fail": "raise"}, {"fail": "print"}, {"fail": "no"}]
        path = tmp_path / "records.jsonl"
        path.write_text("".join(json.dumps({"game": "failing", **r}) + "\n" for r in lines))
        assert main(["check", "--jsonl", str(path)]) == 2
        captured = capsys.readouterr()
        results = json_lines(captured.out)
        assert [r["exit"] for r in results] == [0, 2, 2, 0]
        for result in results[1:3]:
            assert error_codes(result) == ["bad_record"]
            assert "could not check" in result["errors"][0]["message"]
        assert "record 2: internal error, ZeroDivisionError" in captured.err
        assert "record 3: internal error, ValueError" in captured.err

    def test_a_single_record_prints_one_object_too(self, tmp_path: Path, capsys: Any) -> None:
        path = tmp_path / "record.json"
        path.write_text(json.dumps({"game": "failing", "fail": "raise"}))
        assert main(["check", str(path)]) == 2
        [result] = json_lines(capsys.readouterr().out)
        assert error_codes(result) == ["bad_record"] and "exit" not in result


# --- python -m rules check, as a subprocess ----------------------------------------------------


def run_rules(
    *args: str, stdin: bytes | str = b"", timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    data = stdin.encode("utf-8") if isinstance(stdin, str) else stdin
    process = subprocess.run(
        [sys.executable, "-m", "rules", *args],
        cwd=REPO,
        input=data,
        capture_output=True,
        timeout=timeout,
        env={**os.environ, "PYTHONIOENCODING": "ascii", "LC_ALL": "C"},
    )
    return subprocess.CompletedProcess(
        process.args,
        process.returncode,
        process.stdout.decode("utf-8"),
        process.stderr.decode("utf-8", "replace"),
    )


def json_lines(stdout: str) -> list[dict[str, Any]]:
    lines = stdout.split("\n")
    assert lines[-1] == "", "the output ends with a newline"
    return [json.loads(line) for line in lines[:-1]]


UNKNOWN_GAME = {"game": "chess"}
# Records whose exit code RULES.md fixes (0 once the game is built, 1 for unknown cards).
VALID = {"game": "spazzumazz", "players": ["Anna", "Bruno"], "finish_order": ["Bruno", "Anna"]}
VALID_TOO = HANDMADE["sputo"][0]
UNKNOWN_CARD = {
    "game": "singapore",
    "winner": ["QS", "KS", "AS", "2S", "5H", "5D", "5C", "9D", "9D", "9C"],
    "loser": ["2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "11H", "2C"],
}
UNKNOWN_CARD_TOO = {
    "game": "spazzumazz",
    "players": ["Anna", "Bruno"],
    "deal": {
        "Anna": {"face_down": ["1", "2S", "3S"], "face_up": ["4S"], "hand": []},
        "Bruno": {"face_down": ["5S"], "face_up": ["6S"], "hand": ["JOKER"]},
    },
    "stock": [],
    "turns": [],
}


class TestCommandLine:
    def test_help_explains_both_forms_and_the_exit_codes(self) -> None:
        run = run_rules("--help")
        assert run.returncode == 0
        for words in [
            "check FILE",
            "check --jsonl FILE",
            "standard input",
            '"exit"',
            "0",
            "1",
            "2",
        ]:
            assert words in run.stdout

    def test_check_help_explains_them_too(self) -> None:
        run = run_rules("check", "--help")
        assert run.returncode == 0
        assert "--jsonl" in run.stdout and "FILE" in run.stdout

    def test_no_command_prints_the_usage_and_exits_2(self) -> None:
        run = run_rules()
        assert run.returncode == 2
        assert "check FILE" in run.stderr
        assert run.stdout == ""

    @pytest.mark.parametrize("args", [["check"], ["frobnicate", "x"], ["check", "--bogus", "-"]])
    def test_a_bad_command_line_exits_2(self, args: list[str]) -> None:
        run = run_rules(*args)
        assert run.returncode == 2
        assert "usage" in run.stderr

    def test_a_file_prints_one_json_object(self, tmp_path: Path) -> None:
        path = tmp_path / "record.json"
        path.write_text(json.dumps(UNKNOWN_GAME, indent=2), encoding="utf-8")
        run = run_rules("check", str(path))
        assert run.returncode == 2
        [result] = json_lines(run.stdout)
        assert error_codes(result) == ["unknown_game"]
        assert "exit" not in result

    def test_a_dash_reads_standard_input(self) -> None:
        run = run_rules("check", "-", stdin=json.dumps(UNKNOWN_GAME))
        assert run.returncode == 2
        assert error_codes(json_lines(run.stdout)[0]) == ["unknown_game"]

    @pytest.mark.parametrize(
        ("record", "exit_code"),
        [(VALID, 0), (VALID_TOO, 0), (UNKNOWN_CARD, 1), (UNKNOWN_CARD_TOO, 1), (UNKNOWN_GAME, 2)],
        ids=["valid", "valid sputo", "unknown card", "unknown cards", "unknown game"],
    )
    def test_the_exit_code_is_0_valid_1_broken_rule_2_unusable(
        self, record: dict[str, object], exit_code: int
    ) -> None:
        run = run_rules("check", "-", stdin=json.dumps(record))
        assert run.returncode == exit_code, run.stdout + run.stderr
        [result] = json_lines(run.stdout)
        assert result["valid"] is (exit_code == 0)
        assert (exit_code, result) == check_record(record)

    def test_unknown_cards_are_all_named(self) -> None:
        run = run_rules("check", "-", stdin=json.dumps(UNKNOWN_CARD_TOO))
        [result] = json_lines(run.stdout)
        assert error_codes(result) == ["unknown_card", "unknown_card"]
        messages = " ".join(error["message"] for error in result["errors"])
        assert "'1'" in messages and "'JOKER'" in messages

    @pytest.mark.parametrize(
        ("stdin", "code"),
        [
            (b"", "bad_json"),
            (b"not json", "bad_json"),
            (b"\xff\xfe{}", "bad_json"),
            (b"[" * 100_000, "bad_json"),
            (b'{"game": "sputo", "t": NaN}', "bad_json"),
            (b"[1, 2]", "bad_record"),
            (b'"sputo"', "bad_record"),
            (b'{"game": "bridge"}', "unknown_game"),
        ],
        ids=[
            "empty",
            "not json",
            "not utf-8",
            "deep nesting",
            "NaN",
            "a list",
            "a string",
            "bridge",
        ],
    )
    def test_unusable_input_prints_a_result_and_exits_2(self, stdin: bytes, code: str) -> None:
        run = run_rules("check", "-", stdin=stdin)
        assert run.returncode == 2
        [result] = json_lines(run.stdout)
        assert error_codes(result) == [code]

    def test_a_byte_order_mark_is_allowed(self) -> None:
        run = run_rules("check", "-", stdin=b"\xef\xbb\xbf" + json.dumps(UNKNOWN_GAME).encode())
        assert error_codes(json_lines(run.stdout)[0]) == ["unknown_game"]

    def test_output_is_utf8_json_whatever_the_locale(self) -> None:
        run = run_rules("check", "-", stdin=json.dumps({"game": "scopa♠ à"}, ensure_ascii=False))
        assert "scopa♠ à" in json_lines(run.stdout)[0]["errors"][0]["message"]

    def test_a_lone_surrogate_in_a_message_is_still_printed(self) -> None:
        run = run_rules("check", "-", stdin='{"game": "\\ud800"}')
        assert run.returncode == 2
        assert error_codes(json_lines(run.stdout)[0]) == ["unknown_game"]

    @pytest.mark.parametrize("jsonl", [False, True], ids=["single", "jsonl"])
    def test_a_file_that_cannot_be_read_exits_2_with_a_message(
        self, tmp_path: Path, jsonl: bool
    ) -> None:
        missing = tmp_path / "missing.json"
        for path in (missing, tmp_path):
            run = run_rules("check", *(["--jsonl"] if jsonl else []), str(path))
            assert run.returncode == 2
            assert "cannot read" in run.stderr and str(path) in run.stderr
            if jsonl:
                assert run.stdout == ""
            else:
                assert error_codes(json_lines(run.stdout)[0]) == ["bad_json"]

    def test_jsonl_prints_one_result_a_line_in_order_each_with_its_exit(
        self, tmp_path: Path
    ) -> None:
        records = [UNKNOWN_GAME, VALID, UNKNOWN_CARD, VALID_TOO]
        path = tmp_path / "records.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
        run = run_rules("check", "--jsonl", str(path))
        results = json_lines(run.stdout)
        expected = [check_record(record) for record in records]
        assert [result.pop("exit") for result in results] == [code for code, _ in expected]
        assert results == [result for _, result in expected]
        assert run.returncode == 2

    @pytest.mark.parametrize(
        ("records", "exit_code"),
        [
            ([VALID, VALID_TOO], 0),
            ([VALID, UNKNOWN_CARD_TOO, VALID_TOO], 1),
            ([UNKNOWN_CARD, VALID, UNKNOWN_GAME, UNKNOWN_CARD_TOO], 2),
            ([UNKNOWN_GAME, VALID], 2),
            ([], 0),
        ],
        ids=["all valid", "one broken rule", "one unusable", "unusable first", "no records"],
    )
    def test_jsonl_exits_with_the_highest_exit(
        self, records: list[dict[str, object]], exit_code: int
    ) -> None:
        run = run_rules(
            "check", "--jsonl", "-", stdin="".join(json.dumps(r) + "\n" for r in records)
        )
        assert run.returncode == exit_code
        assert len(json_lines(run.stdout)) == len(records)

    def test_jsonl_skips_blank_lines_and_takes_crlf_and_a_missing_last_newline(self) -> None:
        stdin = "\n\r\n" + json.dumps(UNKNOWN_GAME) + "\r\n  \n\t\n" + json.dumps(VALID)
        run = run_rules("check", "--jsonl", "-", stdin=stdin)
        assert [result["exit"] for result in json_lines(run.stdout)] == [2, check_record(VALID)[0]]

    def test_jsonl_reports_a_bad_line_and_goes_on(self) -> None:
        stdin = b"\n".join(
            [
                json.dumps(VALID).encode(),
                b"{not json",
                b"\xff",
                b"[" * 100_000,
                b"[]",
                json.dumps(UNKNOWN_CARD).encode(),
            ]
        )
        run = run_rules("check", "--jsonl", "-", stdin=stdin)
        results = json_lines(run.stdout)
        assert [error_codes(r) if r["exit"] else [] for r in results[1:5]] == [
            ["bad_json"],
            ["bad_json"],
            ["bad_json"],
            ["bad_record"],
        ]
        assert [results[0]["exit"], results[5]["exit"]] == [
            check_record(VALID)[0],
            check_record(UNKNOWN_CARD)[0],
        ]
        assert run.returncode == 2

    def test_jsonl_gives_every_line_its_result_whatever_the_numbers_in_it(self) -> None:
        # The case once reported: a quota of 10**4299 made the output integer unprintable, and
        # --jsonl stopped at that line with a traceback.
        huge = 10**4299
        stakes = [
            {**_STAKE["stake"], "side_bets": [{**_SIDE_BET, "quotas": huge}]},  # type: ignore[dict-item]
            {**_STAKE["stake"], "dealer_quotas": huge, "covers": {"Bruno": huge}},  # type: ignore[dict-item]
            _STAKE["stake"],
        ]
        stdin = "".join(json.dumps({**_STAKE, "stake": stake}) + "\n" for stake in stakes)
        run = run_rules("check", "--jsonl", "-", stdin=stdin)
        assert run.stderr == ""
        results = json_lines(run.stdout)
        assert [r["exit"] for r in results] == [1, 1, 0]
        assert {code for r in results[:2] for code in error_codes(r)} == {"bad_stake"}
        assert run.returncode == 1

    def test_jsonl_does_not_split_a_record_at_unicode_line_separators(self) -> None:
        record = {"game": "x\u2028y\u2029z\x85"}
        run = run_rules("check", "--jsonl", "-", stdin=json.dumps(record, ensure_ascii=False))
        [result] = json_lines(run.stdout)
        assert error_codes(result) == ["unknown_game"]

    def test_a_deeply_nested_field_in_a_record_is_exit_2_not_a_crash(self) -> None:
        stdin = '{"game": "sputo", "players": ' + "[" * 50_000 + "]" * 50_000 + "}"
        run = run_rules("check", "-", stdin=stdin)
        assert run.returncode == 2
        assert run.stderr == ""


# --- Large --jsonl inputs go to worker processes, with the same output -------------------------


class TestWorkerProcesses:
    @pytest.fixture(autouse=True)
    def pid_game(self, monkeypatch: Any) -> None:
        def check(record: dict[str, object]) -> dict[str, object]:
            if record.get("fail"):
                raise ZeroDivisionError("division by zero")
            if record.get("broken"):
                raise RuleViolation("too_low", "5C is lower than 7S", at=3)
            return {"pid": os.getpid()}

        monkeypatch.setitem(rules.check.GAMES, "pid", check)
        monkeypatch.setattr(rules.__main__, "CHUNK_BYTES", 200)

    def test_chunks_are_checked_in_workers_and_printed_in_order_with_the_highest_exit(
        self, tmp_path: Path, capsys: Any, monkeypatch: Any
    ) -> None:
        lines = []
        for index in range(60):
            lines.append(json.dumps({"game": "pid", "index": index, "broken": index == 7}))
            if index % 10 == 3:
                lines.extend(["", "{not json", json.dumps({"game": "pid", "fail": True})])
        path = tmp_path / "records.jsonl"
        path.write_text("\n".join(lines), encoding="utf-8")
        monkeypatch.setenv("RULES_CHECK_JOBS", "1")
        assert main(["check", "--jsonl", str(path)]) == 2
        alone = json_lines(capsys.readouterr().out)
        monkeypatch.setenv("RULES_CHECK_JOBS", "2")
        assert main(["check", "--jsonl", str(path)]) == 2
        shared = json_lines(capsys.readouterr().out)
        assert len(shared) == len(lines) - 6
        assert {r["pid"] for r in alone if "pid" in r} == {os.getpid()}
        assert os.getpid() not in {r["pid"] for r in shared if "pid" in r}
        assert [{k: v for k, v in r.items() if k != "pid"} for r in shared] == [
            {k: v for k, v in r.items() if k != "pid"} for r in alone
        ]
        assert [r["exit"] for r in shared[:8]] == [0, 0, 0, 0, 2, 2, 0, 0]

    @pytest.mark.parametrize(
        ("setting", "size", "jobs"),
        [("1", 10**9, 1), ("3", 10, 3), ("x", 10**9, 1), ("", 10, 1), ("0", 10**9, 1)],
    )
    def test_the_number_of_workers(
        self, monkeypatch: Any, setting: str, size: int, jobs: int
    ) -> None:
        monkeypatch.setenv("RULES_CHECK_JOBS", setting)
        assert rules.__main__._jobs(size) == jobs

    def test_a_large_input_uses_the_cpus_unless_told_otherwise(self, monkeypatch: Any) -> None:
        monkeypatch.delenv("RULES_CHECK_JOBS", raising=False)
        expected = min(len(os.sched_getaffinity(0)), rules.__main__.MAX_JOBS)
        assert rules.__main__._jobs(rules.__main__.PARALLEL_BYTES) == expected
        assert rules.__main__._jobs(rules.__main__.PARALLEL_BYTES - 1) == 1


def test_the_collector_pause_restores_the_collector_and_collects_the_cycles_left() -> None:
    import gc
    import weakref

    class Node:
        pass

    assert gc.isenabled()
    with rules.__main__.collector_paused():
        assert not gc.isenabled()
        node = Node()
        node.me = node  # type: ignore[attr-defined]
        alive = weakref.ref(node)
        del node
        assert alive() is not None  # a cycle: reference counting alone does not free it
    assert gc.isenabled()
    assert alive() is None


def test_a_large_input_through_the_command_prints_what_one_process_prints(
    tmp_path: Path,
) -> None:
    from rules.bots.singapore import random_record

    records = [json.dumps(random_record(seed, closing=seed % 3 == 0)) for seed in range(7000)]
    records[10:10] = ["[1,", "", json.dumps(UNKNOWN_GAME)]
    path = tmp_path / "many.jsonl"
    path.write_text("\n".join(records), encoding="utf-8")
    assert path.stat().st_size > rules.__main__.PARALLEL_BYTES
    runs = [
        subprocess.run(
            [sys.executable, "-m", "rules", "check", "--jsonl", str(path)],
            cwd=REPO,
            capture_output=True,
            env={**os.environ, "RULES_CHECK_JOBS": jobs},
            timeout=120,
        )
        for jobs in ("1", "2")
    ]
    assert runs[0].stdout == runs[1].stdout
    assert runs[0].returncode == runs[1].returncode == 2
    assert len(runs[1].stdout.splitlines()) == len(records) - 1


# --- The exit-code rules of the command, with a game of our own ------------------------------


@pytest.fixture
def fake_game(monkeypatch: Any) -> None:
    """Registers game "fake": {"outcome": "ok" | "broken" | "unusable"}."""

    def check(record: dict[str, object]) -> dict[str, object]:
        outcome = record.get("outcome")
        if outcome == "broken":
            raise RuleViolation("too_low", "5C is lower than 7S", at=3)
        if outcome != "ok":
            raise MalformedRecordError("bad_record", "outcome is missing", at="outcome")
        return {"outcome": "ok"}

    monkeypatch.setitem(rules.check.GAMES, "fake", check)


FAKE = {
    name: json.dumps({"game": "fake", "outcome": name}) for name in ["ok", "broken", "unusable"]
}


@pytest.mark.usefixtures("fake_game")
class TestExitCodes:
    @pytest.mark.parametrize(("outcome", "exit_code"), [("ok", 0), ("broken", 1), ("unusable", 2)])
    def test_one_record_exits_with_its_own_code(
        self, tmp_path: Path, capsys: Any, outcome: str, exit_code: int
    ) -> None:
        path = tmp_path / "record.json"
        path.write_text(FAKE[outcome], encoding="utf-8")
        assert main(["check", str(path)]) == exit_code
        [result] = json_lines(capsys.readouterr().out)
        assert result["valid"] is (exit_code == 0)

    @pytest.mark.parametrize(
        ("outcomes", "exit_code"),
        [
            ([], 0),
            (["ok"], 0),
            (["ok", "ok", "ok"], 0),
            (["broken"], 1),
            (["ok", "broken", "ok"], 1),
            (["broken", "broken"], 1),
            (["unusable"], 2),
            (["ok", "unusable"], 2),
            (["unusable", "broken", "ok"], 2),
            (["broken", "ok", "unusable", "broken", "ok"], 2),
        ],
    )
    def test_jsonl_exits_with_the_highest_of_its_lines(
        self, tmp_path: Path, capsys: Any, outcomes: list[str], exit_code: int
    ) -> None:
        path = tmp_path / "records.jsonl"
        path.write_text("\n".join(FAKE[o] for o in outcomes), encoding="utf-8")
        assert main(["check", "--jsonl", str(path)]) == exit_code
        results = json_lines(capsys.readouterr().out)
        assert [r["exit"] for r in results] == [
            {"ok": 0, "broken": 1, "unusable": 2}[o] for o in outcomes
        ]
        assert [r["valid"] for r in results] == [o == "ok" for o in outcomes]

    def test_an_invalid_result_has_code_message_and_at(self, tmp_path: Path, capsys: Any) -> None:
        path = tmp_path / "record.json"
        path.write_text(FAKE["broken"], encoding="utf-8")
        main(["check", str(path)])
        assert json_lines(capsys.readouterr().out) == [
            {
                "valid": False,
                "errors": [{"code": "too_low", "message": "5C is lower than 7S", "at": 3}],
            }
        ]


# --- Junk never crashes the checker ------------------------------------------------------------

FIELD_NAMES = sorted(
    {
        "game", "winner", "loser", "melds", "stake", "dealer", "opponent", "dealer_quotas",
        "covers", "side_bets", "backer_of_winner", "backer_of_loser", "quotas", "variant",
        "options", "players", "deal", "events", "type", "player", "pile", "center", "t",
        "stocks", "piles", "stock", "finish_order", "face_down", "face_up", "hand", "turns",
        "play", "pickup", "blind", "house_rules", "loser_cards_left", "suit_match", "splash",
        "Anna", "Bruno", "Carla", "joker_limit", "cap", "idiot_min_games",
    }
)  # fmt: skip
CARDISH = [
    "QS", "10H", "th", " jk ", "JK", "Q♠", "AS", "2C", "KD",
    "1", "11", "JOKER", "A S", "JKS", "", "11H", "ZZ", "QS ", "\ud800",
]  # fmt: skip
WORDS = [
    "singapore", "sputo", "spazzumazz", "classic", "modern", "single_deck", "flip", "play",
    "splash", "restock", "Anna", "Bruno", "Carla", "Dario", "half", "one", "free", "nearest",
    "up", "none", "base", "total", "suit_match",
]  # fmt: skip

huge_ints = st.sampled_from(
    [
        -1,
        -2,
        0,
        1,
        2,
        7,
        9,
        10,
        27,
        28,
        2**31,
        2**63,
        2**64 + 1,
        -(2**63),
        10**30,
        10**300,
        -(10**300),
    ]
)
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    huge_ints,
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=12),
    st.text(
        alphabet=st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF, exclude_categories=()),
        max_size=2,
    ),
    st.sampled_from(CARDISH),
    st.sampled_from(WORDS),
)
json_values = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=5),
        st.dictionaries(st.sampled_from(FIELD_NAMES) | st.text(max_size=6), children, max_size=5),
    ),
    max_leaves=20,
)


def _paths(value: object, limit_cards: bool) -> Iterator[tuple[Any, Any]]:
    """Every (container, key) in ``value``; with ``limit_cards``, two of each card list."""
    if isinstance(value, dict):
        for key, child in value.items():
            yield value, key
            yield from _paths(child, limit_cards)
    elif isinstance(value, list):
        strings = limit_cards and all(isinstance(child, str) for child in value)
        for index, child in enumerate(value):
            if strings and 1 < index < len(value) - 1:
                continue
            yield value, index
            yield from _paths(child, limit_cards)


NATURAL_CARDS = format_cards(decks(1, jokers_per_deck=1))


def _plausible(value: object) -> st.SearchStrategy[object]:
    """A value of the same kind as ``value``: another card or name, a nearby number."""
    if isinstance(value, bool):
        return st.booleans()
    if isinstance(value, int):
        return st.integers(-2, 30) | st.sampled_from([value - 1, value + 1, -value])
    if isinstance(value, float):
        return st.floats(-1e6, 1e6)
    if isinstance(value, str):
        return st.sampled_from(NATURAL_CARDS) | st.sampled_from(WORDS)
    if isinstance(value, list):
        return st.permutations(value).map(list) | st.lists(
            st.sampled_from(value or [0]), max_size=len(value) + 1
        )
    return json_values


@st.composite
def mutated_records(draw: st.DrawFn) -> dict[str, object]:
    """A record of the right shape with junk, or a plausible wrong value, in 1 to 3 places.

    The game is left alone (other tests give it junk), so that most records reach the
    game's own checks, and many of them its rules.
    """
    record = copy.deepcopy(draw(st.sampled_from(ALL_BASES)))
    for _ in range(draw(st.integers(1, 3))):
        paths = [
            (c, k) for c, k in _paths(record, limit_cards=False) if c is not record or k != "game"
        ]
        if not paths:
            break
        container, key = draw(st.sampled_from(paths))
        action = draw(
            st.sampled_from(["plausible"] * 4 + ["replace"] * 3 + ["delete", "add", "copy"])
        )
        if action == "plausible":
            container[key] = draw(_plausible(container[key]))
        elif action == "replace":
            container[key] = draw(json_values)
        elif action == "delete":
            del container[key]
        elif action == "add" and isinstance(container, dict):
            container[draw(st.sampled_from(FIELD_NAMES))] = draw(json_values)
        elif action == "add" and isinstance(container, list):
            container.insert(key, draw(json_values))
        elif isinstance(container, list):
            container.append(copy.deepcopy(container[key]))
        else:
            container[draw(st.sampled_from(FIELD_NAMES))] = copy.deepcopy(container[key])
    return record


JUNK: list[object] = [
    None, True, False, 0, -1, 1, 10**30, -(10**300), 1.5, -0.0, 1e308, "", "QS", "JOKER",
    "\ud800", "Q" * 10_000, [], [[[]]], ["QS", 3], {}, {"": None}, {"QS": ["JK"]},
]  # fmt: skip


def _nested(depth: int, make: Callable[[object], object]) -> object:
    value: object = []
    for _ in range(depth):
        value = make(value)
    return value


class TestJunkNeverCrashes:
    @given(json_values)
    @settings(max_examples=200, deadline=None)
    def test_any_json_value_is_checked_without_crashing(self, value: object) -> None:
        checked(value)

    @given(
        st.sampled_from(sorted(EXIT_1_CODES)),
        st.dictionaries(st.sampled_from(FIELD_NAMES), json_values, max_size=8),
    )
    @settings(max_examples=200, deadline=None)
    def test_any_object_naming_a_game_is_checked_without_crashing(
        self, game: str, fields: dict[str, object]
    ) -> None:
        record = {**fields, "game": game}
        exit_code, result = checked(record)
        # Checking is deterministic, whatever was checked before; and the text of the record
        # checks like the record (compared after JSON, which joins escaped surrogate pairs).
        text = json.dumps(record)
        assert check_text(text) == check_record(json.loads(text))
        assert check_record(record) == (exit_code, result)

    @given(mutated_records())
    @settings(
        max_examples=300,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    def test_a_record_of_the_right_shape_with_junk_in_it_never_crashes(
        self, record: dict[str, object]
    ) -> None:
        checked(record)

    @pytest.mark.parametrize(
        "base",
        [r for bases in HANDMADE.values() for r in bases],
        ids=lambda r: f"{r['game']}-{len(json.dumps(r))}",
    )
    def test_every_field_of_a_record_may_hold_any_junk(self, base: dict[str, object]) -> None:
        for index, _ in enumerate(list(_paths(base, limit_cards=True))):
            for junk in JUNK:
                record = copy.deepcopy(base)
                container, key = list(_paths(record, limit_cards=True))[index]
                container[key] = copy.deepcopy(junk)
                try:
                    checked(record)
                except Exception as error:
                    raise AssertionError(f"{key!r} = {junk!r:.40} in {record!r:.300}") from error

    @pytest.mark.parametrize(
        "base",
        [r for bases in HANDMADE.values() for r in bases],
        ids=lambda r: f"{r['game']}-{len(json.dumps(r))}",
    )
    def test_any_field_missing_is_checked_without_crashing(self, base: dict[str, object]) -> None:
        for index, _ in enumerate(list(_paths(base, limit_cards=True))):
            record = copy.deepcopy(base)
            container, key = list(_paths(record, limit_cards=True))[index]
            del container[key]
            checked(record)

    @pytest.mark.parametrize(
        "make", [lambda v: [v], lambda v: {"piles": v}], ids=["lists", "objects"]
    )
    def test_deeply_nested_junk_in_any_top_level_field_never_crashes(
        self, make: Callable[[object], object]
    ) -> None:
        deep = _nested(100_000, make)
        for base in (r for bases in HANDMADE.values() for r in bases):
            for key in [*base, "extra"]:
                checked({**base, key: deep})

    def test_the_game_modules_are_the_ones_the_checker_dispatches_to(self) -> None:
        assert set(rules.check.GAMES) == set(EXIT_1_CODES)


@pytest.mark.parametrize(
    "module",
    [rules.check, rules.errors, rules.records, rules],
    ids=lambda module: module.__name__,
)
def test_the_docstring_examples_hold(module: object) -> None:
    failed, attempted = doctest.testmod(module)  # type: ignore[arg-type]
    assert attempted > 0
    assert failed == 0
