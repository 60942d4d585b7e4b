"""Cards: notation, decks and names.

A card is written rank + suit (``AS``, ``10H``, ``QD``); the joker is ``JK``.
Input is case-insensitive, surrounding spaces are ignored, ``T`` stands for
``10`` and the suit symbols ``♠ ♥ ♦ ♣`` for ``S H D C``; output is canonical.

>>> Card.parse(" th ")
Card.parse('10H')
>>> str(Card.parse("q♠"))
'QS'
>>> Card.parse("JK").is_joker
True
>>> Card.parse("1")
Traceback (most recent call last):
...
rules.errors.UnknownCardError: unknown card '1'
>>> Card.parse("QH").name("it"), Card.parse("QH").name("en")
('Donna di cuori', 'Queen of hearts')
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum, IntEnum
from typing import Literal

from rules.errors import (
    MalformedRecordError,
    RulesError,
    UnknownCardError,
    describe,
    raise_all,
)

Language = Literal["it", "en"]


class Rank(IntEnum):
    """Ranks in their natural order, ace low (1) to king (13)."""

    ACE = 1
    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13

    @property
    def symbol(self) -> str:
        return _RANK_SYMBOLS[self]

    @classmethod
    def from_symbol(cls, symbol: str) -> Rank:
        return _RANKS_BY_SYMBOL[symbol]


_RANK_SYMBOLS = {
    Rank.ACE: "A",
    Rank.JACK: "J",
    Rank.QUEEN: "Q",
    Rank.KING: "K",
    **{Rank(n): str(n) for n in range(2, 11)},
}
_RANKS_BY_SYMBOL = {symbol: rank for rank, symbol in _RANK_SYMBOLS.items()}


class Suit(Enum):
    SPADES = "S"
    HEARTS = "H"
    DIAMONDS = "D"
    CLUBS = "C"

    @property
    def symbol(self) -> str:
        return self.value


_SUIT_SYMBOLS = {"♠": "S", "♥": "H", "♦": "D", "♣": "C"}

_RANK_NAMES: dict[Language, dict[Rank, str]] = {
    "it": {
        Rank.ACE: "Asso",
        Rank.TWO: "Due",
        Rank.THREE: "Tre",
        Rank.FOUR: "Quattro",
        Rank.FIVE: "Cinque",
        Rank.SIX: "Sei",
        Rank.SEVEN: "Sette",
        Rank.EIGHT: "Otto",
        Rank.NINE: "Nove",
        Rank.TEN: "Dieci",
        Rank.JACK: "Fante",
        Rank.QUEEN: "Donna",
        Rank.KING: "Re",
    },
    "en": {
        Rank.ACE: "Ace",
        Rank.TWO: "Two",
        Rank.THREE: "Three",
        Rank.FOUR: "Four",
        Rank.FIVE: "Five",
        Rank.SIX: "Six",
        Rank.SEVEN: "Seven",
        Rank.EIGHT: "Eight",
        Rank.NINE: "Nine",
        Rank.TEN: "Ten",
        Rank.JACK: "Jack",
        Rank.QUEEN: "Queen",
        Rank.KING: "King",
    },
}
_SUIT_NAMES: dict[Language, dict[Suit, str]] = {
    "it": {
        Suit.SPADES: "picche",
        Suit.HEARTS: "cuori",
        Suit.DIAMONDS: "quadri",
        Suit.CLUBS: "fiori",
    },
    "en": {
        Suit.SPADES: "spades",
        Suit.HEARTS: "hearts",
        Suit.DIAMONDS: "diamonds",
        Suit.CLUBS: "clubs",
    },
}
_JOKER_NAMES: dict[Language, str] = {"it": "Jolly", "en": "Joker"}
_OF: dict[Language, str] = {"it": "di", "en": "of"}


@dataclass(frozen=True, slots=True)
class Card:
    """A playing card; the joker has neither rank nor suit.

    Cards compare by (rank, suit) so that sorting gives a stable display order;
    jokers sort last.
    """

    rank: Rank | None
    suit: Suit | None

    def __post_init__(self) -> None:
        if (self.rank is None) != (self.suit is None):
            raise ValueError("a card has both a rank and a suit, or neither (the joker)")

    @classmethod
    def parse(cls, token: str) -> Card:
        """Parse one card token; raises :class:`UnknownCardError` for anything else.

        A token that is not a string at all is a mistyped field:
        :class:`MalformedRecordError` (``bad_record``).
        """
        try:
            return _PARSED[token]
        except (KeyError, TypeError):
            return _parse_slow(token)

    @property
    def is_joker(self) -> bool:
        return self.rank is None

    def name(self, language: Language = "it") -> str:
        """The card's display name in Italian or English."""
        if self.rank is None or self.suit is None:
            return _JOKER_NAMES[language]
        return (
            f"{_RANK_NAMES[language][self.rank]} {_OF[language]} {_SUIT_NAMES[language][self.suit]}"
        )

    def __str__(self) -> str:
        if self.rank is None or self.suit is None:
            return "JK"
        return self.rank.symbol + self.suit.symbol

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Card):
            return NotImplemented
        return _sort_key(self) < _sort_key(other)


def _sort_key(card: Card) -> tuple[int, str]:
    if card.rank is None or card.suit is None:
        return (99, "")
    return (int(card.rank), card.suit.value)


JOKER = Card(None, None)

#: The 52 natural cards of one deck, in rank-then-suit order.
STANDARD_DECK: tuple[Card, ...] = tuple(Card(rank, suit) for rank in Rank for suit in Suit)


def _parse_slow(token: object) -> Card:
    if not isinstance(token, str):
        raise MalformedRecordError(
            "bad_record", f"a card must be a string, not {describe(token)}", at=None
        )
    text = token.strip()
    for symbol, letter in _SUIT_SYMBOLS.items():
        text = text.replace(symbol, letter)
    # Only ASCII past this point: str.upper() would turn "ſ" into "S" and "ß" into "SS".
    if not text.isascii():
        raise UnknownCardError(token)
    text = text.upper()
    if text == "JK":
        return JOKER
    rank_text, suit_text = text[:-1], text[-1:]
    if rank_text == "T":
        rank_text = "10"
    rank = _RANKS_BY_SYMBOL.get(rank_text)
    if rank is None or suit_text not in "SHDC" or not suit_text:
        raise UnknownCardError(token)
    return Card(rank, Suit(suit_text))


# Canonical tokens, parsed once: most records use them, so parsing is a dict lookup.
_PARSED: dict[str, Card] = {str(card): card for card in (*STANDARD_DECK, JOKER)}


def deck(*, jokers: int = 0) -> list[Card]:
    """One 52-card deck, plus ``jokers`` jokers."""
    return [*STANDARD_DECK, *([JOKER] * jokers)]


def decks(count: int, *, jokers_per_deck: int = 0) -> list[Card]:
    """``count`` decks shuffled together (unshuffled here: the caller shuffles)."""
    cards: list[Card] = []
    for _ in range(count):
        cards.extend(deck(jokers=jokers_per_deck))
    return cards


def parse_cards(tokens: object, field: str) -> list[Card]:
    """Parse a list of card tokens found at ``field`` of a record.

    A value that is not a list, or a token that is not a string, is a malformed
    record (exit 2, ``bad_record``); every string that is not a card is reported
    as ``unknown_card`` (all of them together, at ``field[i]``).
    """
    if not isinstance(tokens, list):
        raise MalformedRecordError("bad_record", f"{field} must be a list of cards", at=field)
    for index, token in enumerate(tokens):
        if not isinstance(token, str):
            raise MalformedRecordError(
                "bad_record",
                f"{field}[{index}] must be a card string, not {describe(token)}",
                at=f"{field}[{index}]",
            )
    cards: list[Card] = []
    errors: list[RulesError] = []
    for index, token in enumerate(tokens):
        try:
            cards.append(Card.parse(token))
        except UnknownCardError:
            errors.append(UnknownCardError(token, at=f"{field}[{index}]"))
    raise_all(errors)
    return cards


def token_codes(tokens: object, codes: Mapping[str, int]) -> list[int] | None:
    """The codes of a list of canonical card tokens in a game's table ``codes``; ``None``
    for anything else (the game's fast paths then leave it to :func:`parse_cards`, which
    names every fault)."""
    if type(tokens) is not list:
        return None
    try:
        return list(map(codes.__getitem__, tokens))
    except (KeyError, TypeError):
        return None


def format_cards(cards: Iterable[Card]) -> list[str]:
    """Canonical tokens of ``cards``."""
    return [str(card) for card in cards]


def sort_cards(cards: Sequence[Card]) -> list[Card]:
    return sorted(cards)
