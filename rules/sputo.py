"""Sputo: variants, options, the deal and a replay of the event log (RULES.md "Sputo").

A play puts the top card of one of your piles on a centre pile whose top is one rank
away in the circle ``A 2 ... K A``, whatever the suit; a joker goes on anything and
anything goes on a joker:

>>> goes_on(Card.parse("AS"), Card.parse("KH"))
True
>>> goes_on(Card.parse("3C"), Card.parse("9H"))
False
>>> goes_on(Card.parse("3C"), Card.parse("9C"), suit_match=True)
True
>>> Variant.MODERN.layout, Variant.MODERN.layout_total
((7, 6, 5, 4, 3, 2, 1), 28)
>>> Options.parse(["splash"])
Options(suit_match=False, splash=True)
>>> check_record({"variant": "classic", "players": ["Anna", "Bruno"],
...               "winner": "Bruno", "loser_cards_left": 7})
{'winner': 'Bruno', 'loser_cards_left': 7}

A record is checked in phases, stopping at the first that fails: structure (exit 2),
card tokens (``unknown_card``), counts (``bad_deal``), then the replay, which stops at
the first illegal event with ``at`` = its index.

Rulings on what RULES.md leaves open (each covered by a test):

* ``options`` may be absent or ``null`` (no options); an unknown option name or a
  non-boolean value is ``bad_record``. ``variant`` is required.
* A ``t`` of ``null`` counts as absent (the records helpers' convention); any other
  non-number (a bool included) is ``bad_record``. ``t`` need not increase: the order of
  the events is the order of the list.
* Structure is checked for every event before any card or rule: an event ``type`` not
  among ``flip play splash restock``, a ``player`` who is not one of ``players``, a
  ``pile`` that is not an integer (``true`` included), a ``center`` other than 0 or 1, or
  a ``restock`` whose ``stocks`` are not one card list per player, are ``bad_record``
  (exit 2). A ``pile`` that is an integer but not one of the player's piles (negative, or
  past the variant's number of piles) is ``illegal_play`` at that event, as RULES.md
  says, and so is a play from a pile that has been emptied.
* Within a play the checks run in this order: a restock is due or the game has not
  started (``illegal_play``), the player is blocked by a splash (``blocked``, whatever
  the pile), the pile does not exist, is empty, the centre is empty, the card does not
  fit (each ``illegal_play``).
* Every event type has its own code when it comes at the wrong moment: a play before
  the first flip, on an empty centre pile, or while a restock is due is
  ``illegal_play``; a splash in those cases ``illegal_splash``; a flip while a restock
  is due ``illegal_flip``; a ``restock`` that no flip called for is ``illegal_flip``
  (it is the second half of a flip).
* A play by a player blocked by a splash is ``blocked`` whether or not the card would
  fit. A splash blocks the caller's opponent; if the blocked player calls splash back,
  both are blocked until the next flip. A second splash on the same tops is allowed and
  changes nothing. A splash when the option is off is ``illegal_splash``.
* After a restock the centre piles are empty until the flip turns the new stocks; the
  new stocks may be split unevenly, even leaving one empty (the flip then splits the
  other as usual). Nothing can be played on an empty centre pile (before the first
  flip; after a restock only if the centre held a single card, which no real deal allows).
* The first flip is always allowed, also in ``classic``.
* A record is a short result when ``winner`` or ``loser_cards_left`` is there (not
  ``null``) and a log when ``deal`` or ``events`` is; a short result needs both of its
  fields and a log both of its own. ``not_finished`` has ``at`` = ``null`` (no event is
  at fault); ``bad_deal`` names the player (pile sizes; a ``classic`` deck) or ``"deal"``
  (the decks of ``modern``/``single_deck``), or the index of a bad ``restock``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum
from itertools import chain
from typing import Final, TypeAlias, cast

from rules.cards import JOKER, STANDARD_DECK, Card, Suit, decks, parse_cards, token_codes
from rules.errors import MalformedRecordError, RulesError, RuleViolation, describe, raise_all
from rules.house_rules import parse_house_rules
from rules.records import Phase, bad_record, expect, is_int, player_names
from rules.records import field as required_field

__all__ = [
    "LAYOUTS",
    "LAYOUT_TOTALS",
    "Deal",
    "Event",
    "Flip",
    "Game",
    "Options",
    "Outcome",
    "Play",
    "PlayerDeal",
    "Restock",
    "Splash",
    "Variant",
    "check_record",
    "check_short_result",
    "deal_from_json",
    "events_from_json",
    "goes_on",
    "replay",
    "validate_deal",
]

Time: TypeAlias = "int | float | None"


class Variant(Enum):
    """The three ways to play, each with its own cards and layout of piles."""

    CLASSIC = "classic"
    MODERN = "modern"
    SINGLE_DECK = "single_deck"

    @property
    def layout(self) -> tuple[int, ...]:
        """Cards per pile (face-up top included), in the texts' order."""
        return LAYOUTS[self]

    @property
    def layout_total(self) -> int:
        """Cards in one player's piles: the most ``loser_cards_left`` can be."""
        return LAYOUT_TOTALS[self.value]

    @property
    def decks(self) -> int:
        """52-card decks in play (``classic``: one per player)."""
        return 1 if self is Variant.SINGLE_DECK else 2

    @property
    def jokers(self) -> int:
        """Jokers in play (two with each deck, none in ``classic``)."""
        return 0 if self is Variant.CLASSIC else 2 * self.decks

    @classmethod
    def parse(cls, value: object, at: str = "variant") -> Variant:
        """The variant named ``value``; anything else is ``bad_record``."""
        for variant in cls:
            if value == variant.value:
                return variant
        names = ", ".join(v.value for v in cls)
        raise bad_record(f"{at} must be one of {names}, not {describe(value)}"[:200], at)


LAYOUTS: Final[dict[Variant, tuple[int, ...]]] = {
    Variant.CLASSIC: (2, 3, 4, 5, 4, 3, 2),
    Variant.MODERN: (7, 6, 5, 4, 3, 2, 1),
    Variant.SINGLE_DECK: (5, 4, 3, 2, 1),
}

#: Cards in one player's piles per variant name: the bound of ``loser_cards_left``.
LAYOUT_TOTALS: Final[dict[str, int]] = {v.value: sum(layout) for v, layout in LAYOUTS.items()}

OPTION_NAMES: Final = ("suit_match", "splash")


@dataclass(frozen=True, slots=True)
class Options:
    """The two options; each works with any variant.

    ``suit_match``: a card may also go on a centre card of the same suit (classic's rule
    for experts). ``splash``: when the centre tops have the same rank a player may call
    splash, and the opponent may not play until the next flip (modern's rule).
    """

    suit_match: bool = False
    splash: bool = False

    @classmethod
    def parse(cls, value: object, at: str = "options") -> Options:
        """``{"suit_match": bool, "splash": bool}``, a list of names, or ``None``.

        >>> Options.parse({"suit_match": True})
        Options(suit_match=True, splash=False)
        >>> Options.parse(["colour"])
        Traceback (most recent call last):
        ...
        rules.errors.MalformedRecordError: options[0] must be one of suit_match, splash
        """
        if value is None:
            return cls()
        chosen: dict[str, bool] = {}
        if isinstance(value, dict):
            for name, flag in value.items():
                if name not in OPTION_NAMES:
                    raise bad_record(
                        f"unknown option {describe(name)} (known: suit_match, splash)"[:200],
                        f"{at}.{name[:40]}",
                    )
                chosen[name] = expect(flag, bool, f"{at}.{name}")
        elif isinstance(value, list):
            for index, name in enumerate(value):
                if not isinstance(name, str) or name not in OPTION_NAMES:
                    raise bad_record(
                        f"{at}[{index}] must be one of suit_match, splash", f"{at}[{index}]"
                    )
                chosen[name] = True
        else:
            raise bad_record(f"{at} must be an object of option flags or a list of names", at)
        return cls(**chosen)

    def as_dict(self) -> dict[str, bool]:
        return {"suit_match": self.suit_match, "splash": self.splash}


@dataclass(frozen=True, slots=True)
class PlayerDeal:
    """One player's cards: piles bottom -> top, and the stock top first."""

    piles: tuple[tuple[Card, ...], ...]
    stock: tuple[Card, ...]

    @property
    def cards(self) -> list[Card]:
        return [card for pile in self.piles for card in pile] + list(self.stock)

    def as_dict(self) -> dict[str, object]:
        return {
            "piles": [[str(card) for card in pile] for pile in self.piles],
            "stock": [str(card) for card in self.stock],
        }


@dataclass(frozen=True, slots=True)
class Deal:
    """The deal of a game: ``hands[i]`` belongs to ``players[i]``, whose stock feeds
    centre pile ``i``."""

    players: tuple[str, str]
    hands: tuple[PlayerDeal, PlayerDeal]

    def __getitem__(self, player: str) -> PlayerDeal:
        for name, hand in zip(self.players, self.hands, strict=True):
            if name == player:
                return hand
        raise KeyError(player)

    def as_dict(self) -> dict[str, object]:
        return {name: hand.as_dict() for name, hand in zip(self.players, self.hands, strict=True)}


@dataclass(frozen=True, slots=True)
class Flip:
    """Both players turn the top card of their stock onto their centre pile."""

    t: Time = None

    def as_dict(self) -> dict[str, object]:
        return _with_time({"type": "flip"}, self.t)


@dataclass(frozen=True, slots=True)
class Play:
    """``player`` puts the top card of his pile ``pile`` on centre pile ``center``."""

    player: str
    pile: int
    center: int
    t: Time = None

    def as_dict(self) -> dict[str, object]:
        event: dict[str, object] = {
            "type": "play",
            "player": self.player,
            "pile": self.pile,
            "center": self.center,
        }
        return _with_time(event, self.t)


@dataclass(frozen=True, slots=True)
class Splash:
    """``player`` calls splash: the opponent may not play until the next flip."""

    player: str
    t: Time = None

    def as_dict(self) -> dict[str, object]:
        return _with_time({"type": "splash", "player": self.player}, self.t)


@dataclass(frozen=True, slots=True)
class Restock:
    """The centre cards shuffled into two new stocks: ``(player, cards top first)`` pairs."""

    stocks: tuple[tuple[str, tuple[Card, ...]], ...]
    t: Time = None

    def stock_of(self, player: str) -> tuple[Card, ...]:
        for name, cards in self.stocks:
            if name == player:
                return cards
        return ()

    def as_dict(self) -> dict[str, object]:
        stocks = {name: [str(card) for card in cards] for name, cards in self.stocks}
        return _with_time({"type": "restock", "stocks": stocks}, self.t)


Event: TypeAlias = Flip | Play | Splash | Restock


def _with_time(event: dict[str, object], t: Time) -> dict[str, object]:
    if t is not None:
        event["t"] = t
    return event


@dataclass(frozen=True, slots=True)
class Outcome:
    """The end of a game as data; ``plays`` and ``flips`` only for a replayed log."""

    winner: str
    loser_cards_left: int
    plays: int | None = None
    flips: int | None = None

    def as_dict(self) -> dict[str, object]:
        result: dict[str, object] = {
            "winner": self.winner,
            "loser_cards_left": self.loser_cards_left,
        }
        if self.plays is not None:
            result["plays"] = self.plays
        if self.flips is not None:
            result["flips"] = self.flips
        return result


# -- cards as small integers ----------------------------------------------------------
#
# The replay works on codes ``rank * 4 + suit`` (the joker is 0, rank 0), so that
# "does this card go on that one" is one table lookup on the hot path.

_SUIT_INDEX = {Suit.SPADES: 0, Suit.HEARTS: 1, Suit.DIAMONDS: 2, Suit.CLUBS: 3}
_JOKER_CODE: Final = 0
_CODE: dict[Card, int] = {
    card: int(card.rank) * 4 + _SUIT_INDEX[card.suit]
    for card in STANDARD_DECK
    if card.rank is not None and card.suit is not None
}
_CODE[JOKER] = _JOKER_CODE
_CARD: dict[int, Card] = {code: card for card, code in _CODE.items()}
_CODES = 56

# Hashing a Card goes through its rank and suit enums and dominates a replay's cost, so
# the canonical Card objects (the ones Card.parse returns for canonical tokens, kept
# alive by rules.cards for good) are looked up by identity; other equal Cards by value.
_CODE_BY_ID: dict[int, int] = {id(card): code for card, code in _CODE.items()}


def _encode(cards: Iterable[Card]) -> list[int]:
    by_id = _CODE_BY_ID
    return [by_id[id(card)] if id(card) in by_id else _CODE[card] for card in cards]


def _code_fits(card: int, top: int, suit_match: bool) -> bool:
    card_rank, top_rank = card >> 2, top >> 2
    if card_rank == 0 or top_rank == 0:
        return True
    if (card_rank - top_rank) % 13 in (1, 12):
        return True
    return suit_match and (card & 3) == (top & 3)


# _FITS[suit_match][card][top]
_FITS: Final = tuple(
    tuple(tuple(_code_fits(c, t, suit_match) for t in range(_CODES)) for c in range(_CODES))
    for suit_match in (False, True)
)


def _any_fits(
    piles: Sequence[list[int]], centers: Sequence[list[int]], fits: Sequence[Sequence[bool]]
) -> bool:
    """Whether the top card of one of ``piles`` goes on the top of one of ``centers``."""
    tops = [center[-1] for center in centers if center]
    for pile in piles:
        if pile:
            row = fits[pile[-1]]
            for top in tops:
                if row[top]:
                    return True
    return False


def goes_on(card: Card, top: Card, *, suit_match: bool = False) -> bool:
    """Whether ``card`` may be played on a centre pile topped by ``top``."""
    return _FITS[suit_match][_CODE[card]][_CODE[top]]


def _card_text(code: int) -> str:
    return str(_CARD[code])


def _cards_text(codes: Iterable[int]) -> str:
    return " ".join(str(card) for card in sorted(_CARD[code] for code in codes))


# -- the deal ---------------------------------------------------------------------------


def _difference(have: Counter[int], want: Counter[int]) -> str:
    missing = _cards_text((want - have).elements())
    extra = _cards_text((have - want).elements())
    parts = []
    if missing:
        parts.append("missing " + missing)
    if extra:
        parts.append("extra " + extra)
    return "; ".join(parts)[:300]


_DECKS: Final[dict[Variant, Counter[int]]] = {
    Variant.CLASSIC: Counter(_encode(STANDARD_DECK)),
    Variant.MODERN: Counter(_encode(decks(2, jokers_per_deck=2))),
    Variant.SINGLE_DECK: Counter(_encode(decks(1, jokers_per_deck=2))),
}
#: The same cards as sorted lists: a deal is checked by sorting its codes and comparing
#: once, and counted only to say what is missing or extra.
_SORTED_DECKS: Final[dict[Variant, list[int]]] = {
    variant: sorted(cards.elements()) for variant, cards in _DECKS.items()
}

#: One player's cards as codes: piles bottom -> top, and the stock top first.
_HandCodes: TypeAlias = tuple[list[list[int]], list[int]]


def validate_deal(deal: Deal, variant: Variant) -> None:
    """Raise ``bad_deal`` (every fault found) unless ``deal`` fits ``variant``.

    Pile sizes are compared as a multiset with the layout; ``classic`` needs each
    player's piles and stock to be one 52-card deck; the other variants need the two
    players' cards together to be exactly the decks with their jokers (any cut).
    """
    hands = [([_encode(pile) for pile in hand.piles], _encode(hand.stock)) for hand in deal.hands]
    _validate_codes(deal.players, hands, variant)


def _validate_codes(players: Sequence[str], hands: Sequence[_HandCodes], variant: Variant) -> None:
    errors: list[RulesError] = []
    layout = sorted(variant.layout)
    for name, (piles, _) in zip(players, hands, strict=True):
        sizes = [len(pile) for pile in piles]
        if sorted(sizes) != layout:
            errors.append(
                RuleViolation(
                    "bad_deal",
                    f"{name}'s piles have sizes {sizes}, expected {list(variant.layout)} "
                    f"for {variant.value}"[:300],
                    at=name,
                )
            )
    want = _SORTED_DECKS[variant]
    cards = [[*chain.from_iterable(piles), *stock] for piles, stock in hands]
    if variant is Variant.CLASSIC:
        for name, own in zip(players, cards, strict=True):
            if sorted(own) != want:
                errors.append(
                    RuleViolation(
                        "bad_deal",
                        f"{name}'s piles and stock are not one 52-card deck: "
                        + _difference(Counter(own), _DECKS[variant]),
                        at=name,
                    )
                )
    elif sorted(cards[0] + cards[1]) != want:
        errors.append(
            RuleViolation(
                "bad_deal",
                f"the players' cards together are not {variant.decks} deck(s) with "
                f"{variant.jokers} jokers: "
                + _difference(Counter(cards[0] + cards[1]), _DECKS[variant]),
                at="deal",
            )
        )
    raise_all(errors)


# -- the game ---------------------------------------------------------------------------
#
# The game takes its events as steps: ``(kind, seat, pile, center, stocks, t)``, read once
# from a record (:func:`_read_events`) or made from an event object (:func:`_step_of`).
# ``seat`` is 0 or 1 (0 for a flip or a restock), ``stocks`` a restock's new stocks as
# card codes top first (``None`` otherwise), ``t`` the event's time, kept for the event
# objects and not used by the rules.

_PLAY, _FLIP, _SPLASH, _RESTOCK = 0, 1, 2, 3
_Step: TypeAlias = tuple[int, int, int, int, "tuple[list[int], list[int]] | None", Time]


def _violation(code: str, index: int, message: str) -> RuleViolation:
    return RuleViolation(code, f"event {index}: {message}"[:300], at=index)


class Game:
    """A Sputo game in progress, advanced one event at a time by :meth:`apply`.

    Players are seats 0 and 1 (the order of ``deal.players``); centre pile ``i`` is fed
    by seat ``i``'s stock. The checker's replay, the bot and :func:`replay` all drive
    this class, so what the bot does is what the checker accepts. The deal is not
    validated here (see :func:`validate_deal`).

    >>> deal = deal_from_json(
    ...     {"A": {"piles": [["2S"]], "stock": ["KD"]}, "B": {"piles": [["9C"]], "stock": ["AH"]}},
    ...     ("A", "B"))
    >>> game = Game(deal, Variant.SINGLE_DECK, Options())
    >>> game.apply(Flip(), 0)
    >>> [str(card) for card in game.center_tops]
    ['KD', 'AH']
    >>> game.legal_plays(0)
    [(0, 1)]
    >>> game.apply(Play("A", 0, 1), 1)
    >>> game.outcome()
    Outcome(winner='A', loser_cards_left=1, plays=1, flips=1)
    """

    __slots__ = (
        "players",
        "variant",
        "options",
        "piles",
        "stocks",
        "centers",
        "left",
        "blocked",
        "started",
        "awaiting_restock",
        "winner",
        "plays",
        "flips",
        "_seat",
        "_fits",
    )

    def __init__(self, deal: Deal, variant: Variant, options: Options) -> None:
        hands = [
            ([_encode(pile) for pile in hand.piles], _encode(hand.stock)) for hand in deal.hands
        ]
        self._setup(deal.players, hands, variant, options)

    @classmethod
    def _dealt(
        cls, players: Sequence[str], hands: Sequence[_HandCodes], variant: Variant, options: Options
    ) -> Game:
        """A game dealt ``hands`` (card codes, taken over by the game)."""
        game = cls.__new__(cls)
        game._setup(players, hands, variant, options)
        return game

    def _setup(
        self,
        players: Sequence[str],
        hands: Sequence[_HandCodes],
        variant: Variant,
        options: Options,
    ) -> None:
        self.players = (players[0], players[1])
        self.variant = variant
        self.options = options
        self._seat = {name: seat for seat, name in enumerate(self.players)}
        self._fits = _FITS[options.suit_match]
        #: piles[seat][pile] holds card codes bottom -> top.
        self.piles = [piles for piles, _ in hands]
        #: stocks[seat] holds card codes with the top card LAST (so a flip is a pop).
        self.stocks = [stock[::-1] for _, stock in hands]
        self.centers: list[list[int]] = [[], []]
        self.left = [sum(map(len, piles)) for piles in self.piles]
        self.blocked = [False, False]
        self.started = False
        self.awaiting_restock = False
        self.winner: int | None = None
        self.plays = 0
        self.flips = 0

    # -- what may happen now ----------------------------------------------------------

    @property
    def center_tops(self) -> list[Card | None]:
        return [_CARD[center[-1]] if center else None for center in self.centers]

    @property
    def center_cards(self) -> list[Card]:
        """Every card in the two centre piles (what a restock must hold)."""
        return [_CARD[code] for center in self.centers for code in center]

    def pile_tops(self, seat: int) -> list[Card | None]:
        return [_CARD[pile[-1]] if pile else None for pile in self.piles[seat]]

    def legal_plays(self, seat: int) -> list[tuple[int, int]]:
        """The ``(pile, center)`` plays open to ``seat`` now."""
        if not self._playing() or self.blocked[seat]:
            return []
        return self._fitting(seat)

    def _fitting(self, seat: int) -> list[tuple[int, int]]:
        """The ``(pile, center)`` pairs where the top of one of ``seat``'s piles fits."""
        fits = self._fits
        found = []
        for index, pile in enumerate(self.piles[seat]):
            if pile:
                row = fits[pile[-1]]
                for center, cards in enumerate(self.centers):
                    if cards and row[cards[-1]]:
                        found.append((index, center))
        return found

    def can_play(self, seat: int) -> bool:
        """Whether ``seat`` has a legal play (a player blocked by splash has none)."""
        if not self._playing() or self.blocked[seat]:
            return False
        return _any_fits(self.piles[seat], self.centers, self._fits)

    def may_splash(self) -> bool:
        if not self.options.splash or not self._playing():
            return False
        first, second = self.centers
        return bool(first) and bool(second) and first[-1] >> 2 == second[-1] >> 2

    def _playing(self) -> bool:
        return self.started and not self.awaiting_restock and self.winner is None

    # -- events ------------------------------------------------------------------------

    def apply(self, event: Event, index: int) -> None:
        """Play ``event`` (the ``index``-th of the log), or raise :class:`RuleViolation`."""
        if self.winner is not None:  # whatever the event, and whoever plays it
            raise _after_end(self.players, self.winner, index)
        self._run((_step_of(event, self._seat, index),), index)

    def _run(self, steps: Iterable[_Step], start: int) -> None:
        """Play ``steps``, the first being event ``start`` of the log; raise
        :class:`RuleViolation` at the first illegal one, the game left as the last legal
        one left it.

        This is the game's only statement of its rules, in one loop: a replay of a
        thousand logs spends most of its time here, and a method call per event would
        cost more than the event itself.
        """
        piles, centers, stocks = self.piles, self.centers, self.stocks
        left, blocked, fits, players = self.left, self.blocked, self._fits, self.players
        started, awaiting, winner = self.started, self.awaiting_restock, self.winner
        plays, flips = self.plays, self.flips
        try:
            for index, (kind, seat, pile_index, center_index, restocked, _) in enumerate(
                steps, start
            ):
                if winner is not None:
                    raise _after_end(players, winner, index)
                if kind == _PLAY:
                    if awaiting:
                        raise _violation(
                            "illegal_play", index, "a restock must follow the last flip"
                        )
                    if not started:
                        raise _violation("illegal_play", index, "the game starts with a flip")
                    if blocked[seat]:
                        raise _violation(
                            "blocked",
                            index,
                            f"{players[seat]} may not play until the next flip (splash)",
                        )
                    own = piles[seat]
                    if not 0 <= pile_index < len(own):
                        raise _violation(
                            "illegal_play",
                            index,
                            f"{players[seat]} has no pile {describe(pile_index)}: "
                            f"his piles are 0 to {len(own) - 1}",
                        )
                    pile = own[pile_index]
                    if not pile:
                        raise _violation(
                            "illegal_play", index, f"{players[seat]}'s pile {pile_index} is empty"
                        )
                    center = centers[center_index]
                    card = pile[-1]
                    if not center:
                        raise _violation(
                            "illegal_play",
                            index,
                            f"{_card_text(card)} cannot go on centre {center_index}: it is empty",
                        )
                    if not fits[card][center[-1]]:
                        raise _violation(
                            "illegal_play",
                            index,
                            f"{_card_text(card)} does not go on {_card_text(center[-1])}",
                        )
                    center.append(pile.pop())
                    plays += 1
                    left[seat] -= 1
                    if not left[seat]:
                        winner = seat
                elif kind == _FLIP:
                    if awaiting:
                        raise _violation(
                            "illegal_flip",
                            index,
                            "both stocks are empty: a restock must come first",
                        )
                    if started and self.variant is Variant.CLASSIC:
                        self._refuse_flip_while_a_play_exists(index)
                    started = True
                    flips += 1
                    blocked[0] = blocked[1] = False
                    if stocks[0] or stocks[1]:
                        self._turn()
                    else:
                        awaiting = True
                elif kind == _SPLASH:
                    if not self.options.splash:
                        raise _violation(
                            "illegal_splash", index, "splash is not an option of this game"
                        )
                    if not started or awaiting:
                        why = "a restock is due" if awaiting else "the game starts with a flip"
                        raise _violation("illegal_splash", index, f"no splash now: {why}")
                    first, second = centers
                    if not first or not second or first[-1] >> 2 != second[-1] >> 2:
                        tops = " and ".join(_card_text(c[-1]) if c else "nothing" for c in centers)
                        raise _violation(
                            "illegal_splash", index, f"the centre tops {tops} do not match"
                        )
                    blocked[1 - seat] = True
                else:
                    if not awaiting:
                        raise _violation(
                            "illegal_flip",
                            index,
                            "a restock only follows a flip that finds both stocks empty",
                        )
                    assert restocked is not None
                    self._restock(restocked, index)
                    awaiting = False
                    self._turn()
        finally:
            self.started, self.awaiting_restock, self.winner = started, awaiting, winner
            self.plays, self.flips = plays, flips

    def _refuse_flip_while_a_play_exists(self, index: int) -> None:
        """Classic's flip rule: raise ``illegal_flip`` if either player can play (a
        player blocked by a splash cannot)."""
        for seat in (0, 1):
            if self.blocked[seat] or not _any_fits(self.piles[seat], self.centers, self._fits):
                continue
            plays = self._fitting(seat)
            if plays:
                pile, center = plays[0]
                card = self.piles[seat][pile][-1]
                top = self.centers[center][-1]
                raise _violation(
                    "illegal_flip",
                    index,
                    f"in classic a flip needs both players stuck, but "
                    f"{self.players[seat]} can play {_card_text(card)} on {_card_text(top)}",
                )

    def _turn(self) -> None:
        """Turn each stock's top card onto its centre pile, splitting a lone stock first."""
        stocks = self.stocks
        for owner in (0, 1):
            other = 1 - owner
            if not stocks[other] and stocks[owner]:
                # Top first: the owner keeps the top half rounded up; stocks here hold
                # the top last, so the owner's part is the tail.
                cards = stocks[owner]
                keep = (len(cards) + 1) // 2
                stocks[owner] = cards[len(cards) - keep :]
                stocks[other] = cards[: len(cards) - keep]
                break
        for seat in (0, 1):
            if stocks[seat]:
                self.centers[seat].append(stocks[seat].pop())

    def _restock(self, restocked: tuple[list[int], list[int]], index: int) -> None:
        """The centre cards become the new stocks (given top first), or ``bad_deal``."""
        first, second = restocked
        if sorted(first + second) != sorted(self.centers[0] + self.centers[1]):
            have = Counter(first)
            have.update(second)
            want = Counter(self.centers[0])
            want.update(self.centers[1])
            missing = _cards_text((want - have).elements())
            extra = _cards_text((have - want).elements())
            raise _violation(
                "bad_deal",
                index,
                f"the new stocks are not the centre cards (missing: {missing or 'none'}; "
                f"extra: {extra or 'none'})",
            )
        self.stocks[0], self.stocks[1] = first[::-1], second[::-1]
        self.centers[0].clear()
        self.centers[1].clear()

    # -- the end -----------------------------------------------------------------------

    def outcome(self) -> Outcome | None:
        """The outcome once someone has emptied his piles, else ``None``."""
        if self.winner is None:
            return None
        return Outcome(
            winner=self.players[self.winner],
            loser_cards_left=self.left[1 - self.winner],
            plays=self.plays,
            flips=self.flips,
        )

    def _finish(self, events: int) -> Outcome:
        """The outcome of a log of ``events`` events, or ``not_finished``."""
        outcome = self.outcome()
        if outcome is None:
            raise RuleViolation(
                "not_finished",
                f"the log ends after {events} events with no winner: "
                f"{self.players[0]} has {self.left[0]} cards in his piles, "
                f"{self.players[1]} has {self.left[1]}",
                at=None,
            )
        return outcome


def _after_end(players: tuple[str, str], winner: int, index: int) -> RuleViolation:
    return _violation("after_end", index, f"the game is over: {players[winner]} has won")


def _step_of(event: Event, seats: dict[str, int], index: int) -> _Step:
    """The step of an event object; a player who is not in the game is ``bad_record``."""
    kind = type(event)
    if kind is Play:
        play: Play = event  # type: ignore[assignment]
        if play.center != 0 and play.center != 1:
            message = f"event {index}: there is no centre {describe(play.center)}: 0 or 1"
            raise bad_record(message[:200], index)
        return _PLAY, _seat_of(seats, play.player, index), play.pile, play.center, None, play.t
    if kind is Flip:
        return _FLIP, 0, 0, 0, None, event.t
    if kind is Splash:
        splash: Splash = event  # type: ignore[assignment]
        return _SPLASH, _seat_of(seats, splash.player, index), 0, 0, None, splash.t
    if kind is Restock:
        restock: Restock = event  # type: ignore[assignment]
        names = list(seats)
        stocks = (_encode(restock.stock_of(names[0])), _encode(restock.stock_of(names[1])))
        return _RESTOCK, 0, 0, 0, stocks, restock.t
    raise bad_record(f"event {index} is not a Sputo event: {type(event).__name__}"[:200], index)


def _seat_of(seats: dict[str, int], player: str, index: int) -> int:
    seat = seats.get(player)
    if seat is None:
        raise bad_record(f"event {index}: {describe(player)} is not a player"[:200], index)
    return seat


def replay(
    deal: Deal,
    events: Sequence[Event],
    variant: Variant,
    options: Options = Options(),
    *,
    check_deal: bool = True,
) -> Outcome:
    """Replay a full log; the outcome, or the first :class:`RuleViolation` (``at`` = index).

    The deal is validated first (``bad_deal``) unless ``check_deal`` is false.
    """
    if check_deal:
        validate_deal(deal, variant)
    game = Game(deal, variant, options)
    for index, event in enumerate(events):
        game.apply(event, index)
    return game._finish(len(events))


# -- reading records --------------------------------------------------------------------

_CODE_OF_TOKEN: Final[dict[str, int]] = {str(card): code for card, code in _CODE.items()}


def _read_deal_structure(value: object, players: Sequence[str]) -> dict[str, dict[str, object]]:
    deal = expect(value, dict, "deal")
    if set(deal) != set(players):
        raise bad_record(
            f"deal must have exactly one entry per player ({', '.join(players)})"[:200], "deal"
        )
    hands: dict[str, dict[str, object]] = {}
    for name in players:
        # A field's path is spelled out only for its error: this runs for every log.
        hand = deal[name]
        if type(hand) is not dict:
            expect(hand, dict, f"deal.{name}")
        piles = hand.get("piles")
        if type(piles) is not list:
            piles = required_field(hand, "piles", list, at=f"deal.{name}.piles")
        for index, pile in enumerate(piles):
            if type(pile) is not list:
                expect(pile, list, f"deal.{name}.piles[{index}]")
        if type(hand.get("stock")) is not list:
            required_field(hand, "stock", list, at=f"deal.{name}.stock")
        hands[name] = hand
    return hands


def deal_from_json(value: object, players: Sequence[str]) -> Deal:
    """A :class:`Deal` from a record's ``deal``; structure errors are ``bad_record``, and
    every unknown card is reported (``unknown_card``, all together)."""
    hands = _read_deal_structure(value, players)
    with Phase() as phase:
        parsed = [phase.run(_hand_codes, hands[name], name) for name in players]
    first, second = (
        PlayerDeal(
            tuple(tuple(_CARD[code] for code in pile) for pile in piles),
            tuple(_CARD[code] for code in stock),
        )
        for piles, stock in cast(list[_HandCodes], parsed)
    )
    return Deal(players=(players[0], players[1]), hands=(first, second))


def _hand_codes(hand: dict[str, object], name: str) -> _HandCodes:
    """The codes of one player's piles and stock (their structure checked); every unknown
    card of them is reported together."""
    piles: list[object] = hand["piles"]  # type: ignore[assignment]
    with Phase() as phase:
        codes = [_codes_at(phase, pile, name, ".piles[", index) for index, pile in enumerate(piles)]
        stock = _codes_at(phase, hand["stock"], name, ".stock", None)
    return codes, stock


def _codes_at(phase: Phase, tokens: object, name: str, part: str, index: int | None) -> list[int]:
    """The codes of the card list at ``deal.<name><part>[index]``: canonical tokens by one
    lookup each, anything else by :func:`parse_cards`, which names every fault."""
    codes = token_codes(tokens, _CODE_OF_TOKEN)
    if codes is not None:
        return codes
    at = f"deal.{name}{part}" if index is None else f"deal.{name}{part}{index}]"
    return _encode(phase.run(parse_cards, tokens, at) or ())


_EVENT_TYPES: Final = ("flip", "play", "splash", "restock")


def _read_events(value: object, players: Sequence[str]) -> list[_Step]:
    """The steps of a record's ``events``: every event's structure is checked first
    (``bad_record``), then the restocks' cards (every ``unknown_card`` together)."""
    raw = expect(value, list, "events")
    seats = {players[0]: 0, players[1]: 1}
    steps: list[_Step] = []
    append = steps.append
    restocks: list[tuple[int, dict[str, object]]] = []
    for index, event in enumerate(raw):
        if type(event) is not dict:
            raise bad_record(f"events[{index}] must be an object", f"events[{index}]")
        get = event.get
        t = get("t")
        if t is not None and type(t) is not int and type(t) is not float:
            at = f"events[{index}].t"
            raise bad_record(f"{at} must be a number, not {describe(t)}"[:200], at)
        kind = get("type")
        if kind == "play":
            pile, center = get("pile"), get("center")
            if type(pile) is not int:
                at = f"events[{index}].pile"
                raise bad_record(f"{at} must be an integer, not {describe(pile)}"[:200], at)
            if type(center) is not int or (center != 0 and center != 1):
                at = f"events[{index}].center"
                raise bad_record(f"{at} must be 0 or 1, not {describe(center)}"[:200], at)
            try:
                seat = seats[get("player")]  # type: ignore[index]
            except (KeyError, TypeError):  # not a player, or not even a name
                raise _not_a_player(get("player"), index) from None
            append((_PLAY, seat, pile, center, None, t))
        elif kind == "flip":
            append((_FLIP, 0, 0, 0, None, t))
        elif kind == "splash":
            try:
                seat = seats[get("player")]  # type: ignore[index]
            except (KeyError, TypeError):
                raise _not_a_player(get("player"), index) from None
            append((_SPLASH, seat, 0, 0, None, t))
        elif kind == "restock":
            stocks = get("stocks")
            if type(stocks) is not dict or set(stocks) != set(players):
                at = f"events[{index}].stocks"
                raise bad_record(f"{at} must hold one card list per player", at)
            for name in players:
                expect(stocks[name], list, f"events[{index}].stocks.{name}")
            restocks.append((len(steps), stocks))
            append((_RESTOCK, 0, 0, 0, ([], []), t))  # its cards are read below
        else:
            at = f"events[{index}].type"
            raise bad_record(
                f"{at} must be one of {', '.join(_EVENT_TYPES)}, not {describe(kind)}"[:200], at
            )
    if restocks:
        with Phase() as phase:
            for index, stocks in restocks:
                first, second = (
                    _encode(
                        phase.run(parse_cards, stocks[name], f"events[{index}].stocks.{name}") or ()
                    )
                    for name in players
                )
                steps[index] = (_RESTOCK, 0, 0, 0, (first, second), steps[index][5])
    return steps


def _not_a_player(player: object, index: int) -> MalformedRecordError:
    at = f"events[{index}].player"
    return bad_record(f"{at} must be one of the players, not {describe(player)}"[:200], at)


def events_from_json(value: object, players: Sequence[str], variant: Variant) -> list[Event]:
    """The events of a record's ``events``: every event's structure is checked first
    (``bad_record``), then the restocks' cards (every ``unknown_card`` together)."""
    events: list[Event] = []
    for kind, seat, pile, center, restocked, t in _read_events(value, players):
        if kind == _PLAY:
            events.append(Play(players[seat], pile, center, t))
        elif kind == _FLIP:
            events.append(Flip(t))
        elif kind == _SPLASH:
            events.append(Splash(players[seat], t))
        else:
            assert restocked is not None
            stocks = tuple(
                (name, tuple(_CARD[code] for code in codes))
                for name, codes in zip(players, restocked, strict=True)
            )
            events.append(Restock(stocks, t))
    return events


def check_short_result(
    winner: object, loser_cards_left: object, players: Sequence[str], variant: Variant
) -> Outcome:
    """A short result, checked for plausibility (anything impossible is ``bad_record``)."""
    if not isinstance(winner, str) or winner not in players:
        raise bad_record(
            f"winner must be one of the players, not {describe(winner)}"[:200], "winner"
        )
    top = variant.layout_total
    if not is_int(loser_cards_left) or not 1 <= loser_cards_left <= top:  # type: ignore[operator]
        raise bad_record(
            f"loser_cards_left must be an integer from 1 to {top} for {variant.value}, "
            f"not {describe(loser_cards_left)}"[:200],
            "loser_cards_left",
        )
    return Outcome(winner, loser_cards_left)  # type: ignore[arg-type]


_SHORT: Final = ("winner", "loser_cards_left")
_LOG: Final = ("deal", "events")


def check_record(record: dict[str, object]) -> dict[str, object]:
    """Check a Sputo record; the result keys of a valid one, or raise :class:`RulesError`."""
    parse_house_rules("sputo", record.get("house_rules"))
    variant = Variant.parse(record.get("variant"))
    options = Options.parse(record.get("options"))
    players = player_names(record.get("players"), "players", minimum=2, maximum=2)
    short = [name for name in _SHORT if record.get(name) is not None]
    log = [name for name in _LOG if record.get(name) is not None]
    if short and log:
        raise bad_record(
            "a record holds either a short result (winner, loser_cards_left) or a log "
            "(deal, events), not both",
            short[0],
        )
    if not log:
        for name in _SHORT:
            if record.get(name) is None:
                raise bad_record(f"{name} is missing (or give a full log: deal, events)", name)
        return check_short_result(
            record["winner"], record["loser_cards_left"], players, variant
        ).as_dict()
    for name in _LOG:
        if record.get(name) is None:
            raise bad_record(f"{name} is missing", name)
    hands = _read_deal_structure(record["deal"], players)
    return check_log(hands, record["events"], players, variant, options).as_dict()


def check_log(
    hands: dict[str, dict[str, object]],
    raw_events: object,
    players: Sequence[str],
    variant: Variant,
    options: Options,
) -> Outcome:
    """A log in RULES.md's phases: the structure of every event, every card token (of the
    deal and the restocks), the deal's counts, then the replay to the first illegal event.
    The outcome, or every fault of the first phase that fails."""
    with Phase() as phase:
        dealt = [phase.run(_hand_codes, hands[name], name) for name in players]
        steps = phase.run(_read_events, raw_events, players)
    hands_codes = cast(list[_HandCodes], dealt)
    events = cast(list[_Step], steps)
    _validate_codes(players, hands_codes, variant)
    game = Game._dealt(players, hands_codes, variant, options)
    game._run(events, 0)
    return game._finish(len(events))
