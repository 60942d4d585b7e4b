"""Singapore records through the checker: results, payouts, every error code, the order of
the checks (RULES.md, Singapore "What the loser pays" and "Details of the records")."""

from __future__ import annotations

import copy
import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.bots.singapore import random_record
from rules.cards import Card
from rules.check import check_record
from rules.house_rules import SingaporeRules
from rules.singapore import card_points, score_hand

WINNER = "QS KS AS 2S 5H 5D 5C 9D 9D 9C"  # closes in three: x1
LOSER = "2H 3H 4H 5H 6H 7H 8H 9H 10H 2C"  # 56 points


def record(winner: str = WINNER, loser: str = LOSER, **extra: object) -> dict[str, object]:
    return {"game": "singapore", "winner": winner.split(), "loser": loser.split(), **extra}


def check(rec: dict[str, object]) -> tuple[int, dict[str, object]]:
    return check_record(json.loads(json.dumps(rec)))


def codes_of(result: dict[str, object]) -> list[str]:
    return [e["code"] for e in result["errors"]]  # type: ignore[index, union-attr]


# --- scoring --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("card", "points"),
    [("JK", 15), ("AS", 11), ("KH", 10), ("QD", 10), ("JC", 10), ("10S", 10), ("9H", 9), ("2C", 2)],
)
def test_each_card_of_the_loser_is_worth_its_points(card: str, points: int) -> None:
    assert card_points(Card.parse(card)) == points


LOSER_70 = "AH AD KH KD QH 3C 4C 5C 4D 2D"
LOSER_71 = "AH AD KH KD QH 3C 4C 5C 5D 2D"
LOSER_74 = "AH AD KH KD KC 3C 4C 5C 4D 6D"
LOSER_75 = "AH AD KH KD QH 3C 4C 5C 4D 7D"
LOSER_BIG = "JK JK AH AD AS AC KH KD KS KC"  # 30 + 44 + 40 = 114


@pytest.mark.parametrize(
    ("loser", "house_rules", "factor", "raw", "rounded", "points"),
    [
        (LOSER_74, {}, 1, 74, 70, 70),
        (LOSER_75, {}, 1, 75, 80, 80),
        (LOSER_71, {"rounding": "up"}, 1, 71, 80, 80),
        (LOSER_70, {"rounding": "up"}, 1, 70, 70, 70),
        (LOSER_74, {"rounding": "none"}, 1, 74, 74, 74),
        (LOSER_70, {}, 2, 70, 70, 140),  # cap on the base: 70 x2
        (LOSER_70, {"cap_applies_to": "total"}, 2, 70, 70, 100),
        (LOSER_BIG, {}, 1, 114, 110, 100),
        (LOSER_BIG, {}, 5, 114, 110, 500),
        (LOSER_BIG, {"cap": None}, 5, 114, 110, 550),
        (LOSER_BIG, {"cap": None, "cap_applies_to": "total"}, 2, 114, 110, 220),
        (LOSER_BIG, {"cap": 50, "cap_applies_to": "total"}, 5, 114, 110, 50),
        (LOSER_70, {"cap": 0}, 2, 70, 70, 0),
    ],
)
def test_the_loser_pays_rounded_capped_and_multiplied_points(
    loser: str, house_rules: dict[str, object], factor: int, raw: int, rounded: int, points: int
) -> None:
    rules = SingaporeRules(**house_rules)  # type: ignore[arg-type]
    score = score_hand(factor, [Card.parse(t) for t in loser.split()], rules)
    assert (score.raw_points, score.rounded_points, score.multiplier, score.points) == (
        raw,
        rounded,
        factor,
        points,
    )


def test_a_valid_record_reports_every_result_key() -> None:
    code, result = check(record())
    assert code == 0
    assert result == {
        "valid": True,
        "melds": [["QS", "KS", "AS", "2S"], ["5H", "5D", "5C"], ["9D", "9D", "9C"]],
        "combinations": 3,
        "multiplier": 1,
        "raw_points": 56,
        "rounded_points": 60,
        "points": 60,
    }


def test_a_ten_card_sequence_pays_five_times_capped_base() -> None:
    code, result = check(record("10S AS 3S 2S 5S 9S 6S 8S 7S 4S", LOSER_BIG))
    assert code == 0
    assert (result["multiplier"], result["points"]) == (5, 500)


def test_joker_sequence_multipliers_pay_four_and_three_times() -> None:
    rules = {"joker_sequence_multipliers": True}
    one = record("AS 2S 3S 4S 5S 6S 7S 8S JK 10S", LOSER_70, house_rules=rules)
    two = record("AS 2S 3S 4S JK 6S 7S 8S JK 10S", LOSER_70, house_rules=rules)
    assert check(one)[1]["points"] == 280
    assert check(two)[1]["points"] == 210


def test_cards_are_read_in_any_notation_and_reported_canonically() -> None:
    code, result = check(record(" qs K♠ as 2s 5h 5d 5c 9d 9♦ 9c ", "2h 3h 4h 5h 6h 7h 8h 9h th 2c"))
    assert code == 0
    assert result["melds"] == [["QS", "KS", "AS", "2S"], ["5H", "5D", "5C"], ["9D", "9D", "9C"]]


# --- declared melds -------------------------------------------------------------------------


def test_declared_melds_worse_than_the_best_are_paid_as_the_best() -> None:
    winner = "QS QH QD QC QS QH 2D 3D 4D 5D"
    melds = [["QS", "QH", "QD"], ["QC", "QS", "QH"], ["2D", "3D", "4D", "5D"]]
    code, result = check(record(winner, LOSER_74, melds=melds))
    assert code == 0
    assert (result["combinations"], result["multiplier"], result["points"]) == (2, 2, 140)
    assert sorted(map(len, result["melds"])) == [4, 6]  # type: ignore[arg-type]


def test_declared_melds_as_good_as_the_best_are_the_ones_reported() -> None:
    winner = "5S 5H 5D 5C 6S 7S 8S 9S 10S JS"
    for melds in (
        [["5S", "5H", "5D", "5C"], ["6S", "7S", "8S", "9S", "10S", "JS"]],
        [["jS", "5s", "6S", "7S", "8S", "9S", "10S"], ["5H", "5D", "5C"]],
    ):
        code, result = check(record(winner, LOSER_70, melds=melds))
        assert code == 0
        assert result["melds"] == [[str(Card.parse(t)) for t in meld] for meld in melds]
        assert result["multiplier"] == 2


@pytest.mark.parametrize(
    ("winner", "melds", "expected"),
    [
        (
            WINNER,
            [["QS", "KS", "AS", "2S"], ["5H", "5D", "5C"], ["9D", "9C", "9D", "5H"]],
            ["bad_meld"],  # the cards are compared only once every combination is one
        ),
        (
            WINNER,
            [["QS", "KS", "AS", "2S"], ["5H", "5D", "5C"], ["9D", "9D"], ["9C"]],
            ["bad_meld", "bad_meld"],
        ),
        (WINNER, [["QS", "KS", "AS", "2S"], ["5H", "5D", "5C"]], ["melds_mismatch"]),
        (
            WINNER,
            [["QS", "KS", "AS", "2S"], ["5H", "5D", "5C"], ["9D", "9D", "9C"], []],
            ["bad_meld"],
        ),
        (
            WINNER,
            [["QS", "KS", "AS", "2S"], ["5H", "5D", "5C"], ["9D", "9D", "9H"]],
            ["melds_mismatch"],
        ),
        (
            "AS 2S 3S 4S 5S 6S 5H 5D 6H 6D",
            [["AS", "2S", "3S"], ["4S", "5S", "6S"], ["5H", "5D", "6H", "6D"]],
            ["bad_meld"],  # the same-suit rule comes last
        ),
        (
            "AS 2S 3S 4S 5S 6S 5H 5D 6H 6D",
            [["AS", "2S", "3S", "4S"], ["5S", "5H", "5D"], ["6S", "6H", "6D"]],
            [],
        ),
    ],
)
def test_declared_melds_are_checked_combination_by_combination(
    winner: str, melds: list[list[str]], expected: list[str]
) -> None:
    code, result = check(record(winner, LOSER_70, melds=melds))
    if expected:
        assert code == 1
        assert codes_of(result) == expected
    else:
        assert code == 0


def test_two_declared_sequences_of_one_suit_are_refused_when_the_hand_closes_otherwise() -> None:
    winner = "AS 2S 3S 4S 5S 6S 5H 5D 6H 6D"
    melds = [["AS", "2S", "3S"], ["4S", "5S", "6S"], ["5H", "5D", "JK"]]
    code, result = check(record(winner, LOSER_70, melds=melds))
    assert (code, codes_of(result)) == (1, ["melds_mismatch"])  # the cards before the suits


# RULES.md, "Details of the records / Singapore": the declared melds are checked in steps,
# each only when the one before passed: every combination (one bad_meld for each bad one),
# then the ten cards (melds_mismatch), then the same-suit rule (same_suit_sequences).
SAME_SUIT_HAND = "AS 2S 3S 4S 5S 6S 5H 5D 6H 6D"


@pytest.mark.parametrize(
    ("melds", "expected"),
    [
        pytest.param(
            [["AS", "2S", "3S"], ["4S", "5S", "6S"], ["5H", "5D"], ["6H", "6D"]],
            ["bad_meld", "bad_meld"],
            id="step 1: every bad combination, nothing else",
        ),
        pytest.param(
            [["AS", "2S", "3S"], ["4S", "5S", "6S"], ["5H", "5D", "6H"], ["9C", "9C"]],
            ["bad_meld", "bad_meld"],
            id="step 1 hides a mismatch and two sequences of spades",
        ),
        pytest.param(
            [["AS", "2S", "3S"], ["4S", "5S", "6S"], ["5H", "5D", "5C"]],
            ["melds_mismatch"],
            id="step 2 hides two sequences of spades",
        ),
        pytest.param(
            [["AS", "2S", "3S"], ["4S", "5S", "6S"], ["5H", "6H", "5D", "6D"]],
            ["bad_meld"],
            id="a set of two ranks is no combination",
        ),
        pytest.param(
            [["AS", "2S", "3S"], ["4S", "5S", "6S"], ["5H", "5D", "JK"], ["6H", "6D", "JK"]],
            ["melds_mismatch"],
            id="jokers the hand does not hold",
        ),
        pytest.param(
            [["AS", "2S", "3S"], ["4S", "5S", "6S", "5H", "5D", "6H", "6D"]],
            ["bad_meld"],
            id="one meld of everything",
        ),
    ],
)
def test_declared_melds_are_checked_in_steps(melds: list[list[str]], expected: list[str]) -> None:
    code, result = check(record(SAME_SUIT_HAND, LOSER_70, melds=melds))
    assert (code, codes_of(result)) == (1, expected)


def test_valid_declared_combinations_with_two_sequences_of_one_suit_are_same_suit_sequences() -> (
    None
):
    winner = "AS 2S 3S 4S 5S 6S 9H 9D 9C 9S"
    melds = [["AS", "2S", "3S"], ["4S", "5S", "6S"], ["9H", "9D", "9C", "9S"]]
    code, result = check(record(winner, LOSER_70, melds=melds))
    assert (code, codes_of(result)) == (1, ["same_suit_sequences"])
    assert result["errors"][0]["at"] == "melds[1]"  # type: ignore[index]
    # The same cards declared as the one good arrangement are fine.
    best = [["AS", "2S", "3S", "4S", "5S", "6S"], ["9H", "9D", "9C", "9S"]]
    assert check(record(winner, LOSER_70, melds=best))[0] == 0


def test_one_natural_card_with_two_jokers_counts_as_a_set_under_free() -> None:
    winner = "5H JK JK 2S 3S 4S 9D 9C 9H 9S"
    melds = [["5H", "JK", "JK"], ["2S", "3S", "4S"], ["9D", "9C", "9H", "9S"]]
    code, result = check(record(winner, LOSER_70, melds=melds, house_rules={"joker_limit": "free"}))
    assert code == 0, result
    code, result = check(record(winner, LOSER_70, melds=melds))
    assert (code, codes_of(result)) == (1, ["not_closed"])  # under "half" it cannot close


# --- errors and their order -----------------------------------------------------------------

TEN_QH = "QH QH QH 2S 3S 4S 5D 6D 7D 8D"


@pytest.mark.parametrize(
    ("rec", "expected"),
    [
        (record(loser="2H 3H 4H 5H 6H 7H 8H 9H 11H 2C"), ["unknown_card"]),
        (
            record("QS KS AS 2S 5H 5D 5C 9D 9D 1C", "2H 3H 4H 5H 6H 7H 8H 9H JOKER 2C"),
            ["unknown_card", "unknown_card"],
        ),
        (
            record(melds=[["QS", "KS", "AS", "2S"], ["5H", "5D", "5C"], ["9D", "9D", "A S"]]),
            ["unknown_card"],
        ),
        (
            record("QS KS AS 2S 5H 5D 5C 9D 9D", "2H 3H 4H 5H 6H 7H 8H 9H 10H 2C 3C"),
            ["hand_size", "hand_size"],
        ),
        (record(WINNER, "2H 3H 4H 5H 6H 7H 8H 9H 10H"), ["hand_size"]),
        (record(TEN_QH), ["too_many_copies"]),
        (
            record("JK JK 2S 3S 4S 5D 6D 7D 8D 9D", "JK 3H 4H 5H 6H 7H 8H 9H 10H 2C"),
            ["too_many_copies"],
        ),
        (
            record("QH QH 2S 3S 4S 5D 6D 7D 8D 9D", "QH 5C 5C 5C 6H 7H 8H 9H 10H 2C"),
            ["too_many_copies", "too_many_copies"],
        ),
        (record("5H 5H 6H 7H 2C 2D 2S KC KD KS", LOSER_70), ["not_closed"]),
        (
            record("5H 6H 7H 5H 6H 7H 9S 9H 9D 9C", "2S 3S 4S 5S 6S 7S 8S 9D 10S 2C"),
            ["same_suit_sequences"],
        ),
        # Unknown cards win over hand sizes, sizes over copies, copies over the closing, the
        # closing over declared melds, declared melds over the stake.
        (record("QS KS AS 2S 5H 5D 5C 9D 9D", "2H 3H 4H 5H 6H 7H 8H 9H 99H 2C"), ["unknown_card"]),
        (record("QH QH QH 2S 3S 4S 5D 6D 7D", LOSER), ["hand_size"]),
        (record("QH QH QH 2S 3S 4S 5D 6D 7D 9C", LOSER), ["too_many_copies"]),
        (record("5H 5H 6H 7H 2C 2D 2S KC KD KS", LOSER_70, melds=[["5H"]]), ["not_closed"]),
        (
            record(
                melds=[["QS", "KS", "5H"]],
                stake={"dealer": "A", "opponent": "A", "dealer_quotas": 1, "winner": "A"},
            ),
            ["bad_meld"],
        ),
    ],
)
def test_each_broken_rule_has_its_code_and_the_checks_stop_at_the_first_failing_phase(
    rec: dict[str, object], expected: list[str]
) -> None:
    code, result = check(rec)
    assert (code, codes_of(result)) == (1, expected)


def test_every_unknown_card_is_named_with_its_field() -> None:
    rec = record("QS KS AS 2S 5H 5D 5C 9D 9D 1C", "2H 3H 4H 5H 6H 7H 8H 9H JOKER 2C")
    errors = check(rec)[1]["errors"]
    assert [e["at"] for e in errors] == ["winner[9]", "loser[8]"]  # type: ignore[index, union-attr]


@pytest.mark.parametrize(
    "rec",
    [
        {"game": "singapore", "winner": WINNER, "loser": LOSER.split()},
        {"game": "singapore", "winner": WINNER.split()},
        {"game": "singapore", "loser": LOSER.split()},
        {"game": "singapore", "winner": [*WINNER.split()[:9], 5], "loser": LOSER.split()},
        {"game": "singapore", "winner": [*WINNER.split()[:9], None], "loser": LOSER.split()},
        record(melds="QS KS AS"),
        record(melds=[["QS", "KS", "AS", "2S"], "5H 5D 5C"]),
        record(melds=[["QS", "KS", "AS", "2S"], [["5H"]]]),
        record(house_rules={"colour": "red"}),
        record(house_rules={"joker_limit": "two"}),
        record(house_rules={"cap": -1}),
        record(house_rules={"cap": True}),
        record(stake="Anna"),
        record(stake={"dealer": "A", "opponent": "B", "winner": "A"}),
        record(stake={"dealer": "A", "opponent": "B", "dealer_quotas": True, "winner": "A"}),
        record(stake={"dealer": "A", "opponent": "B", "dealer_quotas": 2.0, "winner": "A"}),
        record(stake={"dealer": "A", "opponent": "B", "dealer_quotas": "2", "winner": "A"}),
        record(
            stake={
                "dealer": "A",
                "opponent": "B",
                "dealer_quotas": 2,
                "winner": "A",
                "covers": {"B": False},
            }
        ),
        record(
            stake={
                "dealer": "A",
                "opponent": "B",
                "dealer_quotas": 2,
                "winner": "A",
                "covers": [["B", 1]],
            }
        ),
        record(stake={"dealer": 1, "opponent": "B", "dealer_quotas": 2, "winner": "A"}),
        record(stake={"dealer": "", "opponent": "B", "dealer_quotas": 2, "winner": "A"}),
        record(
            stake={
                "dealer": "A",
                "opponent": "B",
                "dealer_quotas": 2,
                "winner": "A",
                "side_bets": {},
            }
        ),
        record(
            stake={
                "dealer": "A",
                "opponent": "B",
                "dealer_quotas": 2,
                "winner": "A",
                "side_bets": [{"backer_of_winner": "C", "backer_of_loser": "D"}],
            }
        ),
        record(
            stake={
                "dealer": "A",
                "opponent": "B",
                "dealer_quotas": 2,
                "winner": "A",
                "side_bets": [{"backer_of_winner": "C", "backer_of_loser": "D", "quotas": True}],
            }
        ),
        record(
            stake={
                "dealer": "A",
                "opponent": "B",
                "dealer_quotas": 2,
                "winner": "A",
                "side_bets": ["C"],
            }
        ),
        record(
            stake={
                "dealer": "A",
                "opponent": "B",
                "dealer_quotas": 10**400,
                "winner": "A",
                "covers": {"B": [1] * 10},
            }
        ),
    ],
)
def test_a_malformed_record_is_exit_2_naming_the_field(rec: dict[str, object]) -> None:
    code, result = check_record(rec)
    assert code == 2
    assert result["valid"] is False
    assert all(e["code"] == "bad_record" and e["at"] for e in result["errors"])  # type: ignore[index, union-attr]


def test_fields_not_named_in_the_rules_are_ignored() -> None:
    assert check(record(table=7, notes={"x": [1, 2]}))[0] == 0


# --- properties -----------------------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**32), limit=st.sampled_from(["half", "one", "free"]))
def test_a_bot_record_is_valid_and_its_result_ignores_card_order(seed: int, limit: str) -> None:
    rec = random_record(seed, stake=True, declare=seed % 2 == 0, house_rules={"joker_limit": limit})
    code, result = check(rec)
    assert code == 0, result
    shuffled = copy.deepcopy(rec)
    rng = random.Random(seed)
    rng.shuffle(shuffled["winner"])  # type: ignore[arg-type]
    rng.shuffle(shuffled["loser"])  # type: ignore[arg-type]
    assert check(shuffled) == (code, result)


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**32))
def test_a_random_deal_is_checked_without_crashing(seed: int) -> None:
    code, result = check(random_record(seed, closing=False))
    assert code in (0, 1)
    if code:
        assert set(codes_of(result)) <= {"not_closed", "same_suit_sequences"}
