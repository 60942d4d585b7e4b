"""House rules: names per game, defaults and bad values (RULES.md, "Details of the records")."""

from __future__ import annotations

import dataclasses
import doctest

import pytest
from hypothesis import given
from hypothesis import strategies as st

import rules
import rules.house_rules
from rules.check import check_record
from rules.errors import MalformedRecordError
from rules.house_rules import (
    SingaporeRules,
    SpazzumazzRules,
    SputoRules,
    as_dict,
    defaults,
    parse_house_rules,
)

# RULES.md's defaults, written out.
DEFAULTS: dict[str, dict[str, object]] = {
    "singapore": {
        "joker_limit": "half",
        "joker_sequence_multipliers": False,
        "rounding": "nearest",
        "cap_applies_to": "base",
        "cap": 100,
    },
    "sputo": {},
    "spazzumazz": {"idiot_min_games": 10},
}

GOOD_VALUES = [
    ("singapore", "joker_limit", "half"),
    ("singapore", "joker_limit", "one"),
    ("singapore", "joker_limit", "free"),
    ("singapore", "joker_sequence_multipliers", False),
    ("singapore", "joker_sequence_multipliers", True),
    ("singapore", "rounding", "nearest"),
    ("singapore", "rounding", "up"),
    ("singapore", "rounding", "none"),
    ("singapore", "cap_applies_to", "base"),
    ("singapore", "cap_applies_to", "total"),
    ("singapore", "cap", 0),
    ("singapore", "cap", 1),
    ("singapore", "cap", 100),
    ("singapore", "cap", 250),
    ("singapore", "cap", 10**30),
    ("singapore", "cap", None),
    ("spazzumazz", "idiot_min_games", 1),
    ("spazzumazz", "idiot_min_games", 10),
    ("spazzumazz", "idiot_min_games", 500),
]

BAD_VALUES = [
    *[
        ("singapore", "joker_limit", value)
        for value in ["two", "HALF", "", " half", None, 1, True, ["half"], {"half": 1}]
    ],
    *[
        ("singapore", "joker_sequence_multipliers", value)
        for value in ["true", "on", 1, 0, None, [], 1.0]
    ],
    *[
        ("singapore", "rounding", value)
        for value in ["down", "Nearest", "", None, 10, False, ["up"]]
    ],
    *[
        ("singapore", "cap_applies_to", value)
        for value in ["cap", "BASE", "", None, 0, True, {"base": True}]
    ],
    *[
        ("singapore", "cap", value)
        for value in [-1, -100, True, False, 1.5, 100.0, "100", "", [100], {"cap": 100}, -(10**30)]
    ],
    *[
        ("spazzumazz", "idiot_min_games", value)
        for value in [0, -1, True, 10.0, 2.5, "10", None, [10], 10**400 * -1]
    ],
]

UNKNOWN_NAMES = [
    ("singapore", "colour"),
    ("singapore", "idiot_min_games"),  # Spazz'u'mazz's
    ("singapore", "Joker_Limit"),
    ("singapore", ""),
    ("sputo", "joker_limit"),
    ("sputo", "variant"),  # a field of the record, not a house rule
    ("sputo", "options"),
    ("sputo", "splash"),
    ("spazzumazz", "cap"),
    ("spazzumazz", "idiot_min_game"),
    ("spazzumazz", "decks"),
]

# Small records that are valid under the default house rules (RULES.md's own shapes).
VALID_RECORDS: dict[str, dict[str, object]] = {
    "singapore": {
        "game": "singapore",
        "winner": ["QS", "KS", "AS", "2S", "5H", "5D", "5C", "9D", "9D", "9C"],
        "loser": ["2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "10H", "2C"],
    },
    "sputo": {
        "game": "sputo",
        "variant": "classic",
        "options": {"suit_match": False, "splash": False},
        "players": ["Anna", "Bruno"],
        "winner": "Bruno",
        "loser_cards_left": 7,
    },
    "spazzumazz": {
        "game": "spazzumazz",
        "players": ["Anna", "Bruno", "Carla"],
        "finish_order": ["Carla", "Anna", "Bruno"],
    },
}


def _id(value: object) -> str:
    text = repr(value)
    return text if len(text) < 30 else text[:27] + "..."


class TestDefaults:
    @pytest.mark.parametrize("game", DEFAULTS)
    def test_no_house_rules_gives_rules_md_defaults(self, game: str) -> None:
        assert as_dict(parse_house_rules(game, None)) == DEFAULTS[game]
        assert defaults(game) == DEFAULTS[game]

    @pytest.mark.parametrize("game", DEFAULTS)
    def test_an_empty_object_gives_the_defaults_too(self, game: str) -> None:
        assert parse_house_rules(game, {}) == parse_house_rules(game, None)

    @pytest.mark.parametrize(
        ("game", "cls"),
        [("singapore", SingaporeRules), ("sputo", SputoRules), ("spazzumazz", SpazzumazzRules)],
    )
    def test_each_game_has_its_own_settings_type(self, game: str, cls: type) -> None:
        assert type(parse_house_rules(game, None)) is cls

    def test_settings_are_frozen(self) -> None:
        settings = parse_house_rules("singapore", None)
        with pytest.raises(dataclasses.FrozenInstanceError):
            settings.cap = 5  # type: ignore[misc, union-attr]


class TestGoodValues:
    @pytest.mark.parametrize(("game", "name", "value"), GOOD_VALUES, ids=_id)
    def test_every_allowed_value_is_taken(self, game: str, name: str, value: object) -> None:
        settings = as_dict(parse_house_rules(game, {name: value}))
        assert settings == {**DEFAULTS[game], name: value}

    def test_several_rules_are_overridden_at_once(self) -> None:
        settings = parse_house_rules(
            "singapore", {"joker_limit": "free", "rounding": "none", "cap": None}
        )
        assert settings == SingaporeRules(joker_limit="free", rounding="none", cap=None)

    @pytest.mark.parametrize("game", DEFAULTS)
    def test_settings_already_built_pass_through(self, game: str) -> None:
        settings = parse_house_rules(game, None)
        assert parse_house_rules(game, settings) is settings

    @given(
        st.fixed_dictionaries(
            {},
            optional={
                "joker_limit": st.sampled_from(["half", "one", "free"]),
                "joker_sequence_multipliers": st.booleans(),
                "rounding": st.sampled_from(["nearest", "up", "none"]),
                "cap_applies_to": st.sampled_from(["base", "total"]),
                "cap": st.none() | st.integers(min_value=0),
            },
        )
    )
    def test_stored_settings_read_back_the_same(self, overrides: dict[str, object]) -> None:
        settings = parse_house_rules("singapore", overrides)
        assert parse_house_rules("singapore", as_dict(settings)) == settings
        assert as_dict(settings) == {**DEFAULTS["singapore"], **overrides}


class TestBadValues:
    @pytest.mark.parametrize(("game", "name", "value"), BAD_VALUES, ids=_id)
    def test_a_bad_value_is_a_malformed_record_naming_the_rule(
        self, game: str, name: str, value: object
    ) -> None:
        with pytest.raises(MalformedRecordError) as caught:
            parse_house_rules(game, {name: value})
        error = caught.value
        assert (error.code, error.exit_code, error.at) == ("bad_record", 2, f"house_rules.{name}")
        assert name in error.message
        assert len(error.message) < 200

    @pytest.mark.parametrize(("game", "name"), UNKNOWN_NAMES, ids=_id)
    def test_a_name_the_game_does_not_know_is_a_malformed_record_naming_it(
        self, game: str, name: str
    ) -> None:
        with pytest.raises(MalformedRecordError) as caught:
            parse_house_rules(game, {name: 1})
        error = caught.value
        assert (error.code, error.exit_code, error.at) == ("bad_record", 2, f"house_rules.{name}")
        assert repr(name) in error.message
        assert game in error.message

    def test_the_message_for_an_unknown_name_lists_the_known_ones(self) -> None:
        with pytest.raises(MalformedRecordError) as caught:
            parse_house_rules("spazzumazz", {"colour": "red"})
        assert "idiot_min_games" in caught.value.message

    @pytest.mark.parametrize("value", [[], ["cap"], "cap", 1, True, 2.5], ids=_id)
    def test_house_rules_that_are_not_an_object_are_a_malformed_record(self, value: object) -> None:
        with pytest.raises(MalformedRecordError) as caught:
            parse_house_rules("singapore", value)
        assert (caught.value.code, caught.value.at) == ("bad_record", "house_rules")

    @pytest.mark.parametrize("game", ["chess", "", "Singapore", None, 3])
    def test_an_unknown_game_has_no_house_rules(self, game: object) -> None:
        with pytest.raises(MalformedRecordError) as caught:
            parse_house_rules(game, None)  # type: ignore[arg-type]
        assert caught.value.code == "unknown_game"

    def test_one_bad_value_among_good_ones_is_still_refused(self) -> None:
        with pytest.raises(MalformedRecordError) as caught:
            parse_house_rules("singapore", {"rounding": "up", "cap": -5, "joker_limit": "one"})
        assert caught.value.at == "house_rules.cap"


class TestInTheChecker:
    """Each game's checker reads ``house_rules`` and refuses bad ones with exit 2."""

    @pytest.mark.parametrize("game", VALID_RECORDS)
    def test_a_record_with_the_default_house_rules_spelled_out_is_valid(self, game: str) -> None:
        record = {**VALID_RECORDS[game], "house_rules": DEFAULTS[game]}
        assert check_record(record) == check_record(VALID_RECORDS[game])
        assert check_record(record)[0] == 0

    @pytest.mark.parametrize(
        ("game", "house_rules", "at"),
        [
            ("singapore", {"cap": -1}, "house_rules.cap"),
            ("singapore", {"rounding": "down"}, "house_rules.rounding"),
            ("singapore", {"idiot_min_games": 10}, "house_rules.idiot_min_games"),
            ("singapore", "free", "house_rules"),
            ("sputo", {"joker_limit": "half"}, "house_rules.joker_limit"),
            ("sputo", {"variant": "modern"}, "house_rules.variant"),
            ("spazzumazz", {"idiot_min_games": 0}, "house_rules.idiot_min_games"),
            ("spazzumazz", {"cap": 100}, "house_rules.cap"),
            ("spazzumazz", [], "house_rules"),
        ],
        ids=_id,
    )
    def test_a_record_with_a_bad_house_rule_is_exit_2_naming_it(
        self, game: str, house_rules: object, at: str
    ) -> None:
        exit_code, result = check_record({**VALID_RECORDS[game], "house_rules": house_rules})
        assert exit_code == 2
        assert result["valid"] is False
        assert [(e["code"], e["at"]) for e in result["errors"]] == [("bad_record", at)]  # type: ignore[attr-defined]

    @pytest.mark.parametrize("game", VALID_RECORDS)
    def test_null_house_rules_are_the_defaults(self, game: str) -> None:
        assert check_record({**VALID_RECORDS[game], "house_rules": None})[0] == 0


def test_the_package_re_exports_parse_house_rules() -> None:
    assert rules.parse_house_rules is parse_house_rules


def test_the_docstring_examples_hold() -> None:
    failed, attempted = doctest.testmod(rules.house_rules)
    assert attempted > 0
    assert failed == 0


@pytest.mark.parametrize(
    ("game", "first", "then"),
    [
        ("singapore", {"cap": 1}, {"cap": True}),
        ("singapore", {"cap": 1}, {"cap": 1.0}),
        ("singapore", {"joker_sequence_multipliers": True}, {"joker_sequence_multipliers": 1}),
        ("spazzumazz", {"idiot_min_games": 1}, {"idiot_min_games": True}),
    ],
)
def test_a_value_parsed_before_does_not_vouch_for_an_equal_value_of_another_type(
    game: str, first: dict[str, object], then: dict[str, object]
) -> None:
    # Bulk checks parse each distinct house-rules value once; True == 1 == 1.0 in Python.
    for _ in range(2):
        assert parse_house_rules(game, first) == parse_house_rules(game, dict(first))
        with pytest.raises(MalformedRecordError):
            parse_house_rules(game, then)
