"""Card notation, names and decks (RULES.md, "Cards" and "Details of the records / General")."""

from __future__ import annotations

import dataclasses
import doctest
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rules
import rules.cards
import rules.errors
from rules.cards import (
    JOKER,
    STANDARD_DECK,
    Card,
    Rank,
    Suit,
    deck,
    decks,
    format_cards,
    parse_cards,
    sort_cards,
)
from rules.errors import ErrorGroup, MalformedRecordError, RulesError, UnknownCardError

# The tables below are written out from RULES.md, not derived from rules.cards.
# (canonical rank symbol, rank, Italian name, English name)
RANKS = [
    ("A", Rank.ACE, 1, "Asso", "Ace"),
    ("2", Rank.TWO, 2, "Due", "Two"),
    ("3", Rank.THREE, 3, "Tre", "Three"),
    ("4", Rank.FOUR, 4, "Quattro", "Four"),
    ("5", Rank.FIVE, 5, "Cinque", "Five"),
    ("6", Rank.SIX, 6, "Sei", "Six"),
    ("7", Rank.SEVEN, 7, "Sette", "Seven"),
    ("8", Rank.EIGHT, 8, "Otto", "Eight"),
    ("9", Rank.NINE, 9, "Nove", "Nine"),
    ("10", Rank.TEN, 10, "Dieci", "Ten"),
    ("J", Rank.JACK, 11, "Fante", "Jack"),
    ("Q", Rank.QUEEN, 12, "Donna", "Queen"),
    ("K", Rank.KING, 13, "Re", "King"),
]
# (canonical suit letter, symbol, suit, Italian name, English name)
SUITS = [
    ("S", "♠", Suit.SPADES, "picche", "spades"),
    ("H", "♥", Suit.HEARTS, "cuori", "hearts"),
    ("D", "♦", Suit.DIAMONDS, "quadri", "diamonds"),
    ("C", "♣", Suit.CLUBS, "fiori", "clubs"),
]

CANONICAL = [(r[0] + s[0], r[1], s[2]) for r in RANKS for s in SUITS]


def _rank_spellings(symbol: str) -> list[str]:
    spellings = {symbol, symbol.lower()}
    if symbol == "10":
        spellings |= {"T", "t"}
    return sorted(spellings)


def _suit_spellings(letter: str, symbol: str) -> list[str]:
    return [letter, letter.lower(), symbol]


SPELLINGS = [
    pytest.param(rank_text + suit_text, rank_symbol + suit_letter, id=rank_text + suit_text)
    for rank_symbol, *_ in RANKS
    for suit_letter, suit_symbol, *_ in SUITS
    for rank_text in _rank_spellings(rank_symbol)
    for suit_text in _suit_spellings(suit_letter, suit_symbol)
]

SURROUNDING_SPACES = [" QH", "QH ", "  QH  ", "\tQH\n", "\r\nqh\t", "\u00a0QH\u3000"]

JOKER_SPELLINGS = ["JK", "jk", "Jk", "jK", " JK ", "\tjk\n"]

UNKNOWN_TOKENS = [
    # The ones RULES.md names.
    "1",
    "11",
    "JOKER",
    "A S",
    "JKS",
    # Empty and partial.
    "",
    " ",
    "A",
    "10",
    "T",
    "S",
    "♠",
    "J",
    "K",
    # Ranks that do not exist.
    "1S",
    "0S",
    "11H",
    "14S",
    "01S",
    "010S",
    "1OS",
    "ZS",
    "TT",
    "10T",
    # Suits that do not exist.
    "AX",
    "AB",
    "10E",
    "Q♤",
    "Q♡",
    "QHH",
    "10♠♠",
    # Spaces inside, order reversed, several cards in one token.
    "Q H",
    "1 0H",
    "J K",
    "SA",
    "♠Q",
    "HQ",
    "AS KS",
    "AS,KS",
    # Jokers with extra bits.
    "JK♠",
    "JKK",
    "JOLLY",
    "MATTA",
    "🃏",
    # Look-alikes that only a Unicode-aware upper() or digit parser would accept.
    "Aſ",
    "ß",
    "１０S",
    "Ｑ♠",
    "QН",
    "\u0661\u0660S",
    "q\u0307s",
    "\x00",
    "QS\x00",
]

NOT_STRINGS = [10, 1.5, None, True, False, ["QS"], {"rank": "Q", "suit": "S"}]

# (card, Italian name, English name)
NAMES = [
    ("AS", "Asso di picche", "Ace of spades"),
    ("2H", "Due di cuori", "Two of hearts"),
    ("7D", "Sette di quadri", "Seven of diamonds"),
    ("10C", "Dieci di fiori", "Ten of clubs"),
    ("JS", "Fante di picche", "Jack of spades"),
    ("QH", "Donna di cuori", "Queen of hearts"),
    ("KD", "Re di quadri", "King of diamonds"),
    ("JK", "Jolly", "Joker"),
]


def all_cards() -> list[Card]:
    return [Card(rank, suit) for _, rank, suit in CANONICAL] + [JOKER]


class TestNotation:
    @pytest.mark.parametrize(("token", "rank", "suit"), CANONICAL, ids=[c[0] for c in CANONICAL])
    def test_every_canonical_token_parses_to_its_rank_and_suit(
        self, token: str, rank: Rank, suit: Suit
    ) -> None:
        card = Card.parse(token)
        assert (card.rank, card.suit) == (rank, suit)
        assert not card.is_joker

    @pytest.mark.parametrize(("spelling", "canonical"), SPELLINGS)
    def test_every_accepted_spelling_prints_canonically(
        self, spelling: str, canonical: str
    ) -> None:
        assert str(Card.parse(spelling)) == canonical

    @pytest.mark.parametrize("spelling", SURROUNDING_SPACES)
    def test_surrounding_spaces_are_ignored(self, spelling: str) -> None:
        assert Card.parse(spelling) == Card(Rank.QUEEN, Suit.HEARTS)

    @pytest.mark.parametrize("spelling", JOKER_SPELLINGS)
    def test_the_joker_is_jk_in_any_case(self, spelling: str) -> None:
        card = Card.parse(spelling)
        assert card == JOKER
        assert card.is_joker
        assert (card.rank, card.suit) == (None, None)
        assert str(card) == "JK"

    def test_ranks_have_their_face_values(self) -> None:
        assert [(int(rank), rank.symbol) for _, rank, *_ in RANKS] == [
            (value, symbol) for symbol, _, value, *_ in RANKS
        ]
        assert list(Rank) == [rank for _, rank, *_ in RANKS]

    def test_suits_print_as_their_letters(self) -> None:
        assert [suit.symbol for *_, suit, _, _ in SUITS] == ["S", "H", "D", "C"]
        assert list(Suit) == [suit for *_, suit, _, _ in SUITS]


class TestUnknownCards:
    @pytest.mark.parametrize("token", UNKNOWN_TOKENS)
    def test_a_string_that_is_not_a_card_is_an_unknown_card(self, token: str) -> None:
        with pytest.raises(UnknownCardError) as caught:
            Card.parse(token)
        error = caught.value
        assert error.code == "unknown_card"
        assert error.exit_code == 1
        assert error.token == token
        assert repr(token) in error.message

    @pytest.mark.parametrize("token", NOT_STRINGS, ids=repr)
    def test_a_token_that_is_not_a_string_is_a_malformed_record(self, token: object) -> None:
        with pytest.raises(MalformedRecordError) as caught:
            Card.parse(token)  # type: ignore[arg-type]
        assert caught.value.code == "bad_record"
        assert caught.value.exit_code == 2

    def test_a_long_token_is_cut_short_in_the_message(self) -> None:
        token = "Q" * 100_000
        with pytest.raises(UnknownCardError) as caught:
            Card.parse(token)
        assert len(caught.value.message) < 100
        assert caught.value.token == token

    @given(st.text(max_size=8))
    @settings(max_examples=300)
    def test_any_text_parses_to_a_card_or_is_an_unknown_card(self, token: str) -> None:
        try:
            card = Card.parse(token)
        except UnknownCardError as error:
            assert error.code == "unknown_card"
        else:
            assert Card.parse(str(card)) == card


class TestRoundTrips:
    @pytest.mark.parametrize("card", all_cards(), ids=str)
    def test_parsing_the_printed_card_gives_the_card_back(self, card: Card) -> None:
        assert Card.parse(str(card)) == card

    @pytest.mark.parametrize("card", all_cards(), ids=str)
    def test_the_repr_pastes_back_as_code(self, card: Card) -> None:
        assert eval(repr(card), {"Card": Card}) == card

    def test_the_53_distinct_cards_print_53_distinct_tokens(self) -> None:
        assert len({str(card) for card in all_cards()}) == 53

    @given(
        card=st.sampled_from(all_cards()),
        upper=st.lists(st.booleans(), min_size=3, max_size=3),
        before=st.sampled_from(["", " ", "\t", "  \n"]),
        after=st.sampled_from(["", " ", "\r\n", "\t "]),
        ten_as_t=st.booleans(),
        symbol=st.booleans(),
    )
    def test_any_mix_of_accepted_spellings_parses_to_the_same_card(
        self,
        card: Card,
        upper: list[bool],
        before: str,
        after: str,
        ten_as_t: bool,
        symbol: bool,
    ) -> None:
        text = str(card)
        if card.rank == Rank.TEN and ten_as_t:
            text = "T" + text[2:]
        if symbol and card.suit is not None:
            text = text[:-1] + {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}[text[-1]]
        text = "".join(
            ch.upper() if up else ch.lower()
            for ch, up in zip(text, upper[: len(text)], strict=True)
        )
        assert Card.parse(before + text + after) == card


class TestNames:
    @pytest.mark.parametrize(("token", "italian", "english"), NAMES)
    def test_cards_have_italian_and_english_names(
        self, token: str, italian: str, english: str
    ) -> None:
        card = Card.parse(token)
        assert card.name("it") == italian
        assert card.name("en") == english

    def test_names_are_italian_by_default(self) -> None:
        assert Card.parse("QH").name() == "Donna di cuori"

    @pytest.mark.parametrize(
        ("symbol", "italian", "english"), [(r[0], r[3], r[4]) for r in RANKS], ids=str
    )
    def test_every_rank_is_named_in_both_languages(
        self, symbol: str, italian: str, english: str
    ) -> None:
        for suit_letter, _, _, suit_it, suit_en in SUITS:
            card = Card.parse(symbol + suit_letter)
            assert card.name("it") == f"{italian} di {suit_it}"
            assert card.name("en") == f"{english} of {suit_en}"

    @pytest.mark.parametrize("language", ["it", "en"])
    def test_every_card_has_its_own_name(self, language: rules.cards.Language) -> None:
        assert len({card.name(language) for card in all_cards()}) == 53


class TestDecks:
    def test_one_deck_is_the_52_natural_cards_once_each(self) -> None:
        cards = deck()
        assert len(cards) == 52
        assert set(cards) == {Card(rank, suit) for _, rank, suit in CANONICAL}
        assert JOKER not in cards

    @pytest.mark.parametrize("jokers", [0, 1, 2, 3])
    def test_a_deck_with_jokers_adds_them(self, jokers: int) -> None:
        cards = deck(jokers=jokers)
        assert len(cards) == 52 + jokers
        assert cards.count(JOKER) == jokers
        assert set(cards) - {JOKER} == set(deck())

    @pytest.mark.parametrize(
        ("count", "jokers_per_deck"), [(0, 0), (1, 0), (2, 0), (3, 0), (4, 1), (2, 2)]
    )
    def test_several_decks_hold_each_card_once_per_deck(
        self, count: int, jokers_per_deck: int
    ) -> None:
        cards = decks(count, jokers_per_deck=jokers_per_deck)
        assert len(cards) == count * (52 + jokers_per_deck)
        counts = Counter(cards)
        assert counts[JOKER] == count * jokers_per_deck
        assert all(counts[card] == count for card in deck())

    def test_singapore_plays_two_decks_and_two_jokers_106_cards(self) -> None:
        assert len(decks(2, jokers_per_deck=1)) == 106

    def test_sputo_modern_plays_two_decks_with_their_jokers(self) -> None:
        assert Counter(decks(2, jokers_per_deck=2))[JOKER] == 4

    def test_each_call_gives_a_fresh_list(self) -> None:
        first = deck()
        first.clear()
        assert len(deck()) == 52

    def test_the_standard_deck_is_in_rank_then_suit_order(self) -> None:
        assert len(STANDARD_DECK) == 52
        ranks = [card.rank for card in STANDARD_DECK]
        assert ranks == sorted(ranks)  # type: ignore[type-var]


class TestCardValues:
    def test_cards_are_frozen(self) -> None:
        card = Card.parse("QH")
        with pytest.raises(dataclasses.FrozenInstanceError):
            card.rank = Rank.KING  # type: ignore[misc]

    def test_equal_cards_hash_alike_so_two_decks_count_twice(self) -> None:
        assert Counter([Card.parse("QH"), Card.parse("qh"), Card.parse("Q♥")]) == {
            Card(Rank.QUEEN, Suit.HEARTS): 3
        }

    @pytest.mark.parametrize(("rank", "suit"), [(Rank.ACE, None), (None, Suit.SPADES)])
    def test_a_card_with_a_rank_but_no_suit_cannot_be_built(
        self, rank: Rank | None, suit: Suit | None
    ) -> None:
        with pytest.raises(ValueError):
            Card(rank, suit)

    def test_sorting_orders_by_rank_and_puts_jokers_last(self) -> None:
        cards = [Card.parse(t) for t in ["JK", "KS", "2H", "AS", "10D", "JK", "2C"]]
        ordered = sort_cards(cards)
        assert [card.rank for card in ordered[:5]] == [
            Rank.ACE,
            Rank.TWO,
            Rank.TWO,
            Rank.TEN,
            Rank.KING,
        ]
        assert ordered[5:] == [JOKER, JOKER]
        assert Counter(ordered) == Counter(cards)

    def test_format_cards_prints_canonical_tokens(self) -> None:
        assert format_cards(Card.parse(t) for t in ["th", " q♠", "jk"]) == ["10H", "QS", "JK"]


class TestParseCards:
    def test_a_list_of_tokens_parses_in_order(self) -> None:
        assert parse_cards(["as", "T♦", " jk "], "winner") == [
            Card(Rank.ACE, Suit.SPADES),
            Card(Rank.TEN, Suit.DIAMONDS),
            JOKER,
        ]

    def test_an_empty_list_is_no_cards(self) -> None:
        assert parse_cards([], "hand") == []

    @pytest.mark.parametrize("value", ["QS KS", None, 5, {"0": "QS"}, ("QS",)], ids=repr)
    def test_a_field_that_is_not_a_list_is_a_malformed_record_naming_the_field(
        self, value: object
    ) -> None:
        with pytest.raises(MalformedRecordError) as caught:
            parse_cards(value, "winner")
        assert caught.value.code == "bad_record"
        assert caught.value.at == "winner"
        assert "winner" in caught.value.message

    @pytest.mark.parametrize("token", NOT_STRINGS, ids=repr)
    def test_a_token_that_is_not_a_string_is_a_malformed_record_naming_its_index(
        self, token: object
    ) -> None:
        with pytest.raises(MalformedRecordError) as caught:
            parse_cards(["QS", "KS", token, "9X"], "loser")
        assert caught.value.code == "bad_record"
        assert caught.value.exit_code == 2
        assert caught.value.at == "loser[2]"
        assert "loser[2]" in caught.value.message

    def test_every_unknown_card_of_a_field_is_reported_at_its_index(self) -> None:
        with pytest.raises(RulesError) as caught:
            parse_cards(["QS", "11H", "KS", "JOKER", "1"], "hand")
        errors = caught.value.errors
        assert isinstance(caught.value, ErrorGroup)
        assert caught.value.exit_code == 1
        assert [(e.code, e.at) for e in errors] == [
            ("unknown_card", "hand[1]"),
            ("unknown_card", "hand[3]"),
            ("unknown_card", "hand[4]"),
        ]
        assert ["'11H'" in errors[0].message, "'JOKER'" in errors[1].message] == [True, True]

    def test_a_single_unknown_card_is_raised_alone(self) -> None:
        with pytest.raises(UnknownCardError) as caught:
            parse_cards(["QS", "A S"], "hand")
        assert caught.value.at == "hand[1]"
        assert caught.value.errors == (caught.value,)

    @pytest.mark.parametrize(
        "junk",
        [10**400, -(10**400), "Q" * 100_000, list(range(100_000))],
        ids=["huge int", "huge negative int", "long string", "long list"],
    )
    def test_huge_junk_gives_a_short_message(self, junk: object) -> None:
        with pytest.raises(RulesError) as caught:
            parse_cards(["QS", junk], "hand")
        assert len(caught.value.message) < 200

    def test_deeply_nested_junk_is_a_malformed_record_not_a_crash(self) -> None:
        nested: list[object] = []
        for _ in range(100_000):
            nested = [nested]
        with pytest.raises(MalformedRecordError) as caught:
            parse_cards(["QS", nested], "hand")
        assert caught.value.at == "hand[1]"


def test_the_package_re_exports_the_card_names() -> None:
    assert rules.Card is Card
    assert rules.parse_cards is parse_cards
    assert rules.JOKER is JOKER
    assert issubclass(rules.RulesError, ValueError)


@pytest.mark.parametrize("module", [rules.cards, rules.errors, rules], ids=lambda m: m.__name__)
def test_the_docstring_examples_hold(module: object) -> None:
    failed, attempted = doctest.testmod(module)  # type: ignore[arg-type]
    assert attempted > 0
    assert failed == 0
