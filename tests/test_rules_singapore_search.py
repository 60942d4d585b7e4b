"""Singapore closings: combinations, jokers, the same-suit rule and the best arrangement
(RULES.md, Singapore "Combinations", "Which arrangement counts", "The closing's multiplier")."""

from __future__ import annotations

import doctest
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rules.singapore
import rules.singapore_search
from rules.bots.singapore import closing_codes
from rules.cards import Card
from rules.house_rules import SingaporeRules
from rules.singapore import NotClosedError, best_arrangement, multiplier
from rules.singapore_search import (
    JOKER_CODE,
    Status,
    code,
    combination_kind,
    reference_min_combinations,
    search,
)


def cards(text: str) -> list[Card]:
    return [Card.parse(token) for token in text.split()]


def codes(text: str) -> list[int]:
    return [code(token) for token in text.split()]


# (winner's ten, joker_limit, combinations of the best arrangement, multiplier)
CLOSINGS = [
    ("QS KS AS 2S 5H 5D 5C 9D 9D 9C", "half", 3, 1),  # circular Q K A 2
    ("KS AS 2S 5H 5D 5C 9D 9D 9C 9H", "half", 3, 1),
    ("QH QH QS 4C 5C 6C 7C 8C 9C 10C", "half", 2, 2),  # suits repeat in a set
    ("QH QD QC QS QH 3S 4S 5S 6S 7S", "half", 2, 2),  # the text's five queens
    ("AS 2S 3S 4S 5S 6S 7S 8S 9S 10S", "half", 1, 5),
    ("JS QS KS AS 2S 3S 4S 5S 6S 7S", "half", 1, 5),  # ten in a circle
    ("AS 2S 3S 4S 5S 6S 7S 8S JK 10S", "one", 1, 5),
    ("AS 2S 3S 4S JK 6S 7S 8S JK 10S", "half", 1, 5),
    ("QH QH QS QS QD QD QC QC JK JK", "half", 1, 2),  # one set, not a sequence: x2
    ("AS 2S 3S 4S 5S 6S 5H 5D 6H 6D", "half", 3, 1),  # A-4, 5 5 5, 6 6 6
    ("4H 5H 6H 7H 7S 7D 8C 9C 10C JC", "half", 3, 1),
    ("QS QH QD QC QS QH 2D 3D 4D 5D", "half", 2, 2),  # six queens are one set
    ("5S 5H 5D 5C 6S 7S 8S 9S 10S JS", "half", 2, 2),
    ("AH 2H 3H JK 5H 6H 7H 9S 9H 9D", "half", 2, 2),  # a joker bridges the gap
    ("5H 6H JK 9S 9H 9D 9C 2C 3C 4C", "half", 3, 1),  # two naturals, one joker
    ("5H 6H JK JK 9S 9H 9D 2C 3C 4C", "half", 3, 1),  # two and two, "half" allows it
    ("5H JK JK 9S 9H 9D 9C 2C 3C 4C", "free", 3, 1),  # one natural, two jokers: a set
    ("5H 5S JK 9S 9H JK 2C 3C 4C 5C", "one", 3, 1),  # one joker in each of two sets
    ("QS QH QD QC JK JK 5S 5H 5D 5C", "one", 2, 2),  # QQQQ+JK, 5555+JK
    ("QH QH QS QS QD QD QC QC JK JK", "one", 2, 2),  # split: QQQQ+JK, QQQQ+JK
    ("5H 8H JK JK 9S 9H 9D 2C 3C 4C", "half", 3, 1),
    ("QS QH QD QC JK JK 5S 5H 5D 5C", "half", 2, 2),
    ("5S 7S JK JK 9H 9D 9C 2C 3C 4C", "half", 3, 1),  # 5 J 7 J: jokers fill and extend
    ("5S 8S JK JK 9H 9D 9C 2C 3C 4C", "half", 3, 1),  # 5 J J 8
]

# (winner's ten, joker_limit, the closing error)
NOT_CLOSINGS = [
    ("5H 5H 6H 7H 2C 2D 2S KC KD KS", "half", "not_closed"),  # one rank twice in a sequence
    ("AS 2S 3S 4S 5S 6S 7S 8S 9S JH", "half", "not_closed"),
    ("QS KS AS 2S 5H 5D 5C 9D 9D 8C", "half", "not_closed"),
    ("5H JK JK 9S 9H 9D 9C 2C 3C 4C", "half", "not_closed"),  # one natural, two jokers
    ("5H JK JK 9S 9H 9D 9C 2C 3C 4C", "one", "not_closed"),
    ("5H 8H JK JK 9S 9H 9D 2C 3C 4C", "one", "not_closed"),  # 5 J J 8 has two jokers
    ("5S 9S JK JK 9H 9D 9C 2C 3C 4C", "half", "not_closed"),  # 5 J J J 9 needs three
    ("JK JK 2S 2H 2D 2C 2S 2H 2D 7C", "half", "not_closed"),
    ("JK JK 2S 2H 2D 2C 2S 7C 9D KH", "free", "not_closed"),
    ("5H 6H 7H 5H 6H 7H 9S 9H 9D 9C", "half", "same_suit_sequences"),
    ("AH 2H 3H 5H 6H 7H 9S 9H 9D 9C", "half", "same_suit_sequences"),  # A-3 and 5-7 of hearts
    ("AH 2H 3H 5H 6H 7H 9H 10H JH QH", "half", "same_suit_sequences"),
    ("AS 2S 3S 4S 5S 6S 5H 5D 6H 8D", "half", "not_closed"),
]


@pytest.mark.parametrize(("hand", "limit", "combinations", "factor"), CLOSINGS)
def test_a_closing_hand_is_paid_for_its_best_arrangement(
    hand: str, limit: str, combinations: int, factor: int
) -> None:
    rules = SingaporeRules(joker_limit=limit)  # type: ignore[arg-type]
    best = best_arrangement(cards(hand), rules)
    assert (best.combinations, best.multiplier) == (combinations, factor)
    assert sorted(c for meld in best.melds for c in meld) == sorted(cards(hand))
    kinds = [combination_kind(codes(" ".join(map(str, meld))), limit) for meld in best.melds]  # type: ignore[arg-type]
    assert None not in kinds
    sequence_suits = [
        next(c.suit for c in meld if not c.is_joker)
        for meld, kind in zip(best.melds, kinds, strict=True)
        if kind == "sequence"
    ]
    assert len(sequence_suits) == len(set(sequence_suits))


@pytest.mark.parametrize(("hand", "limit", "error"), NOT_CLOSINGS)
def test_a_hand_that_does_not_close_says_why(hand: str, limit: str, error: str) -> None:
    with pytest.raises(NotClosedError) as raised:
        best_arrangement(cards(hand), SingaporeRules(joker_limit=limit))  # type: ignore[arg-type]
    assert raised.value.code == error


@pytest.mark.parametrize(
    ("meld", "limit", "kind"),
    [
        ("QH QH QS", "half", "set"),
        ("QH QD QC QS QH QD QC QS", "half", "set"),
        ("QS KS AS 2S", "half", "sequence"),
        ("KS AS 2S", "half", "sequence"),
        ("2S AS KS", "half", "sequence"),  # order in a declared meld does not matter
        ("5H 5H 6H 7H", "half", None),
        ("5H 6H", "half", None),
        ("5H 6H 8H", "half", None),
        ("5H 6H 7D", "half", None),
        ("5H JK 7H", "half", "sequence"),
        ("5H JK JK", "half", None),
        ("5H JK JK", "one", None),
        ("5H JK JK", "free", "set"),
        ("5H 6H JK JK", "half", "sequence"),
        ("5H 6H JK JK", "one", None),
        ("5H 6H JK JK", "free", "sequence"),
        ("QH QS JK JK", "half", "set"),
        ("QH QS JK JK", "one", None),
        ("JK JK JK", "free", None),
        ("5H 9H JK JK JK", "free", "sequence"),
        ("5H 10H JK JK JK", "free", None),
        ("AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS", "half", "sequence"),
        ("AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS JK", "free", None),
    ],
)
def test_combinations_follow_the_joker_limit(meld: str, limit: str, kind: str | None) -> None:
    assert combination_kind(codes(meld), limit) == kind  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("meld", "sequence_multipliers", "factor"),
    [
        ("AS 2S 3S 4S 5S 6S 7S 8S 9S 10S", False, 5),
        ("AS 2S 3S 4S 5S 6S 7S 8S 9S 10S", True, 5),
        ("AS 2S 3S 4S 5S 6S 7S 8S JK 10S", False, 5),
        ("AS 2S 3S 4S 5S 6S 7S 8S JK 10S", True, 4),
        ("AS 2S 3S 4S JK 6S 7S 8S JK 10S", True, 3),
        ("QH QH QS QS QD QD QC QC JK JK", True, 2),
    ],
)
def test_a_single_combination_pays_by_its_kind_and_jokers(
    meld: str, sequence_multipliers: bool, factor: int
) -> None:
    rules = SingaporeRules(joker_sequence_multipliers=sequence_multipliers)
    assert multiplier([cards(meld)], rules) == factor


def test_two_combinations_double_and_three_are_simple() -> None:
    assert multiplier([cards("QH QD QC QS QH"), cards("3S 4S 5S 6S 7S")]) == 2
    assert multiplier([cards("QS KS AS 2S"), cards("5H 5D 5C"), cards("9D 9D 9C")]) == 1


def test_a_ten_card_sequence_is_preferred_and_reported_in_order_with_its_jokers() -> None:
    best = best_arrangement(cards("10S AS 3S 2S 5S JK 6S 8S 7S 4S"))
    assert best.as_lists() == [["AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "JK", "10S"]]


def test_more_than_two_copies_of_a_card_are_refused_by_the_typed_api() -> None:
    with pytest.raises(ValueError, match="two decks"):
        best_arrangement(cards("QH QH QH 2S 3S 4S 5D 5D 5D 5C"))


def test_the_search_module_doctests_pass() -> None:
    for module in (rules.singapore_search, rules.singapore):
        assert doctest.testmod(module).failed == 0


# --- properties ---------------------------------------------------------------------------

LIMITS = st.sampled_from(["half", "one", "free"])


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32), limit=LIMITS)
def test_any_hand_built_from_valid_combinations_closes(seed: int, limit: str) -> None:
    hand, melds = closing_codes(seed, limit)  # type: ignore[arg-type]
    found = search(hand, limit)  # type: ignore[arg-type]
    assert found.status is Status.CLOSED
    assert found.combinations <= len(melds)
    assert sorted(c for meld in found.melds for c in meld) == sorted(hand)


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32), limit=LIMITS, data=st.data())
def test_card_order_never_changes_the_arrangement(
    seed: int, limit: str, data: st.DataObject
) -> None:
    rng = random.Random(seed)
    hand = closing_codes(rng, limit)[0] if seed % 2 else rng.sample(_DENSE_POOL, 10)  # type: ignore[arg-type]
    shuffled = data.draw(st.permutations(hand))
    assert search(shuffled, limit) == search(hand, limit)  # type: ignore[arg-type]


# Few ranks and suits, and jokers: hands that often close, in many ways, or nearly.
_DENSE_POOL = [s * 13 + r for s in range(3) for r in (0, 1, 2, 3, 11, 12)] * 2 + [JOKER_CODE] * 2


@st.composite
def dense_hands(draw: st.DrawFn) -> list[int]:
    ranks = draw(st.lists(st.integers(0, 12), min_size=3, max_size=5, unique=True))
    suits = draw(st.lists(st.integers(0, 3), min_size=2, max_size=4, unique=True))
    jokers = draw(st.integers(0, 2))
    pool = [s * 13 + r for s in suits for r in ranks] * 2  # at most two copies of a card
    return draw(st.permutations(pool))[: 10 - jokers] + [JOKER_CODE] * jokers


@settings(max_examples=400, deadline=None)
@given(hand=dense_hands(), limit=LIMITS)
def test_the_fast_search_agrees_with_the_plain_tree_search(hand: list[int], limit: str) -> None:
    found = search(hand, limit)  # type: ignore[arg-type]
    expected = reference_min_combinations(hand, limit)  # type: ignore[arg-type]
    assert (found.combinations if found.closed else None) == expected
    if not found.closed:
        relaxed = reference_min_combinations(hand, limit, same_suit_rule=False)  # type: ignore[arg-type]
        assert (found.status is Status.SAME_SUIT_SEQUENCES) == (relaxed is not None)
