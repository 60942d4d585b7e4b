"""Spazz'u'mazz ("il Gioco dell'idiota"): records, replay and statistics.

RULES.md, "Spazz'u'mazz" and "Details of the records / Spazz'u'mazz", to the letter.
A record is either a short result (``finish_order``) or a full log (``deal``, ``stock``,
``turns``); :func:`check_record` returns the checker's result keys of a valid record or
raises a :class:`~rules.errors.RulesError`. A log is read into a :class:`GameLog` of frozen
:class:`Play` / :class:`Pickup` / :class:`Blind` turns and replayed on a :class:`Table`,
which the bot (:mod:`rules.bots.spazzumazz`) drives too through :meth:`Table.legal_turns`.

>>> goes_on(Rank.FIVE, Rank.SEVEN), goes_on(Rank.ACE, Rank.KING), goes_on(Rank.TWO, Rank.ACE)
(False, True, True)
>>> check_record({"game": "spazzumazz", "players": ["Anna", "Bruno"],
...               "finish_order": ["Bruno", "Anna"]})
{'finish_order': ['Bruno', 'Anna'], 'idiot': 'Anna'}

Checks run in phases, stopping at the first that fails: structure (exit 2: ``players``,
``house_rules``, the ``deal`` entries, every turn's shape and player), cards (every
``unknown_card`` of the deal, the stock and the turns), counts (``bad_deal``, every one),
then the replay, which stops at the first illegal turn with ``at`` = its index.

Rulings on what RULES.md leaves open:

* Within a play turn the checks run in this order: ``not_in_hand`` (a ``play`` card not in
  the hand, or a ``face_up`` card not among the face-up cards, counting copies),
  ``mixed_ranks``, ``face_up_not_allowed``, ``too_low``. A blind turn is first
  ``blind_not_allowed``, then ``not_in_hand``. ``after_end`` comes before ``out_of_turn``.
* Face-up cards alone need both the hand and the stock empty, as the text says.
* Turn shapes are strict: ``null`` counts as absent; ``pickup`` must be ``true``; ``blind``
  must be an integer (``true`` is not); a turn mixing ``pickup``, ``blind`` and the play
  lists (even empty ones) is exit 2. As RULES.md says, a ``blind`` index outside the
  player's remaining face-down cards (negative, or past the end, however large) is
  ``not_in_hand``, and a blind turn before the player may play blind is
  ``blind_not_allowed`` whatever its index.
* The player draws before being checked for going out, so nobody is out while the stock
  lasts. A successful blind card is a play (the stock is empty by then anyway).
* "In a row" counts the cards of the top rank lying consecutively on top of the pile,
  across plays and players; a 2 covering them starts a new run (of 2s).
* ``not_finished`` has ``at`` = the number of turns (the index of the turn that is missing).
* A pickup from a player with no legal play is allowed whatever the pile holds; a blind
  card that cannot go is put on the pile, which the player then takes up (one pickup).
* Played through the Python API (:meth:`Table.apply`), a turn by someone who is not a player
  is ``out_of_turn``; in a record it is exit 2, found before any rule is applied.
* ``bad_deal`` names the field (``deal.<name>.hand`` ...) for a wrong count, and ``stock``
  with the missing and extra cards when the deal and stock are not exactly the decks.
* Statistics: see :func:`renamed_after` for the tie-break.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from itertools import chain
from operator import itemgetter

from rules.cards import JOKER, STANDARD_DECK, Card, Rank, parse_cards, token_codes
from rules.errors import (
    ErrorGroup,
    MalformedRecordError,
    RulesError,
    RuleViolation,
    describe,
    raise_all,
)
from rules.house_rules import SpazzumazzRules, parse_house_rules
from rules.records import Phase, bad_record, field, is_int, player_names

__all__ = [
    "FACE_DOWN_CARDS",
    "FACE_UP_CARDS",
    "HAND_CARDS",
    "DRAW_UP_TO",
    "SWEEP_RUN",
    "Blind",
    "GameLog",
    "Outcome",
    "Pickup",
    "Play",
    "PlayerDeal",
    "PlayerStats",
    "Table",
    "Turn",
    "check_record",
    "deck_count",
    "goes_on",
    "idiot_statistics",
    "read_log",
    "renamed_after",
    "replay",
]

GAME = "spazzumazz"
FACE_DOWN_CARDS = 3
FACE_UP_CARDS = 3
HAND_CARDS = 5
DRAW_UP_TO = 3
#: Four or more cards of one rank in a row on top of the pile sweep it.
SWEEP_RUN = 4


def deck_count(players: int) -> int:
    """Decks for ``players`` players: two, and one more for every three beyond two.

    >>> [deck_count(n) for n in (2, 4, 5, 7, 8, 10, 11)]
    [2, 2, 3, 3, 4, 4, 5]
    """
    return 2 + (players - 2) // 3


# Strength of a rank in the order 3 < 4 < ... < 9 < J < Q < K < A, indexed by int(Rank).
# Index 0 stands for the empty pile. The 2 (resets) and the 10 (sweeps) have strength 0:
# anything goes on them, and they go on anything.
_STRENGTH = (0, 14, 0, 3, 4, 5, 6, 7, 8, 9, 0, 11, 12, 13)
_WILD = frozenset({Rank.TWO, Rank.TEN})
#: For each top rank (0 = empty pile), the ranks that may be played on it.
_GOES: tuple[tuple[Rank, ...], ...] = tuple(
    tuple(r for r in Rank if r in _WILD or _STRENGTH[r] >= _STRENGTH[top]) for top in range(14)
)
_GOES_SETS = tuple(frozenset(ranks) for ranks in _GOES)


def goes_on(rank: Rank, top: Rank | None) -> bool:
    """Whether a card of ``rank`` may be played on a pile topped by ``top`` (None: empty).

    >>> goes_on(Rank.SEVEN, Rank.SEVEN), goes_on(Rank.THREE, Rank.TWO), goes_on(Rank.TEN, Rank.ACE)
    (True, True, True)
    >>> goes_on(Rank.KING, Rank.ACE)
    False
    """
    return rank in _GOES_SETS[0 if top is None else top]


# --- Turns, deal, log, outcome ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Play:
    """Cards of one rank from the hand (``cards``) and/or from the face-up cards.

    >>> Play("Anna", (Card.parse("7S"),), (Card.parse("7H"),)).as_dict()
    {'player': 'Anna', 'play': ['7S'], 'face_up': ['7H']}
    """

    player: str
    cards: tuple[Card, ...] = ()
    face_up: tuple[Card, ...] = ()

    def as_dict(self) -> dict[str, object]:
        return {
            "player": self.player,
            "play": [str(c) for c in self.cards],
            "face_up": [str(c) for c in self.face_up],
        }


@dataclass(frozen=True, slots=True)
class Pickup:
    """The player takes up the whole pile."""

    player: str

    def as_dict(self) -> dict[str, object]:
        return {"player": self.player, "pickup": True}


@dataclass(frozen=True, slots=True)
class Blind:
    """The player turns face-down card ``index`` (0-based, among those left, in dealt order)."""

    player: str
    index: int

    def as_dict(self) -> dict[str, object]:
        return {"player": self.player, "blind": self.index}


Turn = Play | Pickup | Blind


@dataclass(frozen=True, slots=True)
class PlayerDeal:
    """One player's dealt cards."""

    face_down: tuple[Card, ...]
    face_up: tuple[Card, ...]
    hand: tuple[Card, ...]

    def as_dict(self) -> dict[str, list[str]]:
        return {
            "face_down": [str(c) for c in self.face_down],
            "face_up": [str(c) for c in self.face_up],
            "hand": [str(c) for c in self.hand],
        }


@dataclass(frozen=True, slots=True)
class GameLog:
    """A full record: players in turn order, the deal, the stock (top first), the turns."""

    players: tuple[str, ...]
    deal: Mapping[str, PlayerDeal]
    stock: tuple[Card, ...]
    turns: tuple[Turn, ...]

    def as_record(self) -> dict[str, object]:
        """The JSON record of this log, in canonical card notation."""
        return {
            "game": GAME,
            "players": list(self.players),
            "deal": {name: self.deal[name].as_dict() for name in self.players},
            "stock": [str(c) for c in self.stock],
            "turns": [turn.as_dict() for turn in self.turns],
        }


@dataclass(frozen=True, slots=True)
class Outcome:
    """The end of a game as data. ``turns``, ``pickups`` and ``sweeps`` come from a full log
    and are None for a short result.

    >>> Outcome(("Carla", "Anna", "Bruno")).idiot
    'Bruno'
    """

    finish_order: tuple[str, ...]
    turns: int | None = None
    pickups: Mapping[str, int] | None = None
    sweeps: int | None = None

    @property
    def idiot(self) -> str:
        return self.finish_order[-1]

    def place(self, player: str) -> int:
        """The 1-based finishing place of ``player``."""
        return self.finish_order.index(player) + 1

    def as_result(self) -> dict[str, object]:
        """The checker's result keys (RULES.md: Spazz'u'mazz, Out)."""
        result: dict[str, object] = {"finish_order": list(self.finish_order), "idiot": self.idiot}
        if self.turns is not None:
            result["turns"] = self.turns
            result["pickups"] = dict(self.pickups or {})
            result["sweeps"] = self.sweeps
        return result


# --- The table: the state of a game in play ---------------------------------------------------


# Inside the table a card is a small integer code (its index in _CARDS), so that a hand is a
# list of counts: hashing a Card (a dataclass of two enums) costs more than the rest of a turn.
_CARDS: tuple[Card, ...] = (*STANDARD_DECK, JOKER)
_JOKER_CODE = len(STANDARD_DECK)
_CODE_BY_ID = {id(card): code for code, card in enumerate(_CARDS)}  # the interned cards
_CODE_BY_CARD = {card: code for code, card in enumerate(_CARDS)}  # any equal card
_RANK_OF = tuple(int(card.rank or 0) for card in _CARDS)  # 0 for the joker
_GOES_INTS = tuple(tuple(int(r) for r in ranks) for ranks in _GOES)
#: For each top rank, the counts of a hand's ranks that may go on it (at least two: 2, 10).
_GOES_GETTERS = tuple(itemgetter(*ranks) for ranks in _GOES_INTS)
#: _OK[top][rank]: whether a card of ``rank`` goes on a pile topped by ``top`` (0: empty).
_OK = tuple(tuple(r in _GOES_SETS[top] for r in range(14)) for top in range(14))


# A turn as the table takes it: (kind, player, hand codes, face-up codes, blind index).
_PLAY, _PICKUP, _BLIND = 0, 1, 2
_Step = tuple[int, str, tuple[int, ...], tuple[int, ...], int]


def _step_of(turn: Turn) -> _Step:
    if type(turn) is Play:
        return _PLAY, turn.player, tuple(_codes(turn.cards)), tuple(_codes(turn.face_up)), 0
    if type(turn) is Pickup:
        return _PICKUP, turn.player, (), (), 0
    assert isinstance(turn, Blind)
    return _BLIND, turn.player, (), (), turn.index


def _turn_of(step: _Step) -> Turn:
    kind, player, codes, ups, index = step
    if kind == _PLAY:
        return Play(player, tuple(_CARDS[c] for c in codes), tuple(_CARDS[c] for c in ups))
    return Pickup(player) if kind == _PICKUP else Blind(player, index)


def _code(card: Card) -> int:
    code = _CODE_BY_ID.get(id(card))
    return _CODE_BY_CARD[card] if code is None else code


def _codes(cards: Iterable[Card]) -> list[int]:
    """The codes of many cards: by identity at C speed, by value only if one is not interned."""
    cards = list(cards)
    codes = list(map(_CODE_BY_ID.get, map(id, cards)))
    if None in codes:
        return [_CODE_BY_CARD[card] for card in cards]
    return codes  # type: ignore[return-value]


#: One player's dealt cards as codes: face down, face up, in hand.
_HandCodes = tuple[list[int], list[int], list[int]]


class _Seat:
    """One player's cards, as codes. ``counts[code]`` counts the hand's copies of a card,
    ``ranks[rank]`` the hand's cards of a rank, ``size`` all of them."""

    __slots__ = (
        "name",
        "label",
        "counts",
        "ranks",
        "size",
        "face_up",
        "face_down",
        "pickups",
        "out",
    )

    def __init__(self, name: str, dealt: _HandCodes) -> None:
        self.name = name
        self.label = _short(name)
        self.counts = [0] * len(_CARDS)
        self.ranks = [0] * 14
        self.size = 0
        self.face_down, self.face_up, hand = dealt
        self.pickups = 0
        self.out = False
        self.take(hand)

    def take(self, codes: Iterable[int]) -> None:
        counts, ranks = self.counts, self.ranks
        n = 0
        for code in codes:
            counts[code] += 1
            ranks[_RANK_OF[code]] += 1
            n += 1
        self.size += n

    def may_play(self, top: int, stock_left: bool) -> bool:
        """Whether this player, on turn, has a legal play on a pile topped by ``top``."""
        if self.size:
            return any(_GOES_GETTERS[top](self.ranks))
        if stock_left:
            return False
        if self.face_up:
            ok = _OK[top]
            return any(ok[_RANK_OF[code]] for code in self.face_up)
        return bool(self.face_down)


def _short(name: str) -> str:
    """A player's name for messages: names are free text, so cut long ones."""
    return name if len(name) <= 40 else name[:40] + "..."


def _names(codes: Iterable[int]) -> list[str]:
    return [str(_CARDS[code]) for code in codes]


class Table:
    """A game in play: apply turns one by one; each illegal turn raises RuleViolation.

    The deal is taken as valid (see :func:`read_log`). ``at`` given to :meth:`apply` is the
    turn index reported with an error. The checker's replay, the bot and :func:`replay`
    all play through this class.

    >>> hand = PlayerDeal(face_down=(), face_up=(), hand=(Card.parse("3S"),))
    >>> table = Table(["Anna", "Bruno"], {"Anna": hand, "Bruno": hand}, stock=())
    >>> table.apply(Play("Anna", (Card.parse("3S"),)))
    >>> table.finished, table.finish_order
    (True, ('Anna', 'Bruno'))
    """

    def __init__(
        self, players: Sequence[str], deal: Mapping[str, PlayerDeal], stock: Sequence[Card]
    ) -> None:
        hands = [
            (_codes(dealt.face_down), _codes(dealt.face_up), _codes(dealt.hand))
            for dealt in (deal[name] for name in players)
        ]
        self._setup(players, hands, _codes(stock))

    @classmethod
    def _dealt(cls, players: Sequence[str], hands: Sequence[_HandCodes], stock: list[int]) -> Table:
        """A table dealt ``hands`` and ``stock`` (card codes, taken over by the table)."""
        table = cls.__new__(cls)
        table._setup(players, hands, stock)
        return table

    def _setup(self, players: Sequence[str], hands: Sequence[_HandCodes], stock: list[int]) -> None:
        self._seats = [_Seat(name, dealt) for name, dealt in zip(players, hands, strict=True)]
        self._stock = stock
        self._drawn = 0
        self._pile: list[int] = []
        self._top = 0  # rank of the top card; 0 for an empty pile
        self._in_a_row = 0  # how many cards of the top rank lie in a row on top
        self._turn = 0  # index of the seat on turn
        # The seat after each seat among those still in: passing the turn is one lookup.
        self._next = [(i + 1) % len(self._seats) for i in range(len(self._seats))]
        self._left = len(self._seats)
        self._finish: list[str] = []
        self.sweeps = 0
        if self._left == 1:
            self._finish.append(self._seats[0].name)

    # -- what the table shows

    @property
    def finished(self) -> bool:
        return self._left <= 1

    @property
    def current(self) -> str | None:
        """The player on turn; None once the game is over."""
        return None if self.finished else self._seats[self._turn].name

    @property
    def finish_order(self) -> tuple[str, ...]:
        """Players out so far, in order; once the game is over, the idiot last."""
        return tuple(self._finish)

    @property
    def pile(self) -> tuple[Card, ...]:
        """The pile, bottom first."""
        return tuple(_CARDS[code] for code in self._pile)

    @property
    def stock_left(self) -> int:
        return len(self._stock) - self._drawn

    def hand(self, player: str) -> list[Card]:
        """The cards in ``player``'s hand, sorted."""
        seat = self._seat(player)
        return sorted(card for card, n in zip(_CARDS, seat.counts, strict=True) for _ in range(n))

    def face_up(self, player: str) -> tuple[Card, ...]:
        return tuple(_CARDS[code] for code in self._seat(player).face_up)

    def face_down_left(self, player: str) -> int:
        return len(self._seat(player).face_down)

    def pickups(self) -> dict[str, int]:
        return {seat.name: seat.pickups for seat in self._seats}

    def outcome(self, turns: int) -> Outcome:
        return Outcome(self.finish_order, turns, self.pickups(), self.sweeps)

    def can_play(self) -> bool:
        """Whether the player on turn has a legal play (so may not pick up)."""
        return not self.finished and self._seats[self._turn].may_play(
            self._top, bool(self.stock_left)
        )

    def legal_turns(self) -> list[Turn]:
        """The legal turns of the player on turn (none once the game is over).

        Plays use the first copies of each rank (suits do not matter to the rules); a
        pickup is listed only when there is no play, as the main rule says.
        """
        if self.finished:
            return []
        seat = self._seats[self._turn]
        name = seat.name
        ok = _OK[self._top]
        turns: list[Turn] = []
        face_up: dict[int, list[Card]] = {}
        for code in seat.face_up:
            if ok[_RANK_OF[code]]:
                face_up.setdefault(_RANK_OF[code], []).append(_CARDS[code])
        if seat.size:
            hand: dict[int, list[Card]] = {}
            for code, n in enumerate(seat.counts):
                if n and ok[_RANK_OF[code]]:
                    hand.setdefault(_RANK_OF[code], []).extend([_CARDS[code]] * n)
            for rank, cards in hand.items():
                ups = face_up.get(rank, [])
                for n in range(1, len(cards) + 1):
                    for m in range(len(ups) + 1):
                        turns.append(Play(name, tuple(cards[:n]), tuple(ups[:m])))
        elif not self.stock_left:
            if seat.face_up:
                for ups in face_up.values():
                    for m in range(1, len(ups) + 1):
                        turns.append(Play(name, (), tuple(ups[:m])))
            else:
                turns.extend(Blind(name, i) for i in range(len(seat.face_down)))
        return turns or [Pickup(name)]

    def _seat(self, player: str) -> _Seat:
        for seat in self._seats:
            if seat.name == player:
                return seat
        raise KeyError(player)

    # -- applying turns

    def apply(self, turn: Turn, at: int = 0) -> None:
        """Apply ``turn``, or raise RuleViolation (with ``at``) leaving the table unchanged."""
        self._play((_step_of(turn),), at)

    def _play(self, steps: Iterable[_Step], start: int) -> None:
        """Play ``steps``, the first being turn ``start`` of the log; raise
        :class:`RuleViolation` at the first illegal one, the table left as the last legal
        one left it.

        This is the game's only statement of its rules, in one loop: a replay of a
        thousand logs spends most of its time here, and a method call per turn would
        cost more than the turn itself.
        """
        seats, following, stock = self._seats, self._next, self._stock
        stock_size, finish, ok_on, rank_of = len(stock), self._finish, _OK, _RANK_OF
        pile, top, in_a_row, turn = self._pile, self._top, self._in_a_row, self._turn
        drawn, left, sweeps = self._drawn, self._left, self.sweeps
        try:
            for at, (kind, player, codes, ups, index) in enumerate(steps, start):
                if left <= 1:
                    raise RuleViolation("after_end", f"turn {at}: the game is already over", at=at)
                seat = seats[turn]
                if player != seat.name:
                    out = any(s.out and s.name == player for s in seats)
                    raise RuleViolation(
                        "out_of_turn",
                        f"turn {at}: it is {seat.label}'s turn, not {describe(player)}'s"
                        + (" (who is out)" if out else ""),
                        at=at,
                    )
                counts = seat.counts
                if kind == _PLAY:
                    played: Sequence[int] = codes
                    if len(codes) == 1 and not ups and counts[codes[0]]:
                        # The commonest play, one card from the hand: checked in short.
                        code = codes[0]
                        rank = rank_of[code]
                        if not ok_on[top][rank]:
                            raise _too_low(at, rank, top)
                        counts[code] -= 1
                        seat.ranks[rank] -= 1
                        seat.size -= 1
                    else:
                        if len(set(codes)) == len(codes) and all(map(counts.__getitem__, codes)):
                            missing = []  # distinct cards, each held: the commonest case
                        else:
                            missing = [c for c in set(codes) if counts[c] < codes.count(c)]
                        if missing:
                            raise RuleViolation(
                                "not_in_hand",
                                f"turn {at}: {seat.label} does not hold {_names(missing)} in hand",
                                at=at,
                            )
                        if ups:
                            face_up = list(seat.face_up)
                            for code in ups:
                                if code in face_up:
                                    face_up.remove(code)
                                else:
                                    missing.append(code)
                            if missing:
                                raise RuleViolation(
                                    "not_in_hand",
                                    f"turn {at}: {seat.label} does not have {_names(missing)} "
                                    "face up",
                                    at=at,
                                )
                        played = codes + ups
                        if not played:
                            raise RuleViolation(
                                "not_in_hand", f"turn {at}: {seat.label} plays no card", at=at
                            )
                        rank = rank_of[played[0]]
                        # Codes go up with the rank, and the joker (rank 0) is the highest
                        # code: the cards are of one rank if the lowest and highest are.
                        if len(played) > 1 and rank_of[min(played)] != rank_of[max(played)]:
                            raise RuleViolation(
                                "mixed_ranks",
                                f"turn {at}: {_names(played)} are not all of one rank",
                                at=at,
                            )
                        if ups and not codes and (seat.size or drawn < stock_size):
                            raise RuleViolation(
                                "face_up_not_allowed",
                                f"turn {at}: {seat.label} may play face-up cards alone only "
                                "once the hand and the stock are empty, or else with a card of "
                                "the same rank from the hand",
                                at=at,
                            )
                        if not ok_on[top][rank]:
                            raise _too_low(at, rank, top)
                        if codes:
                            for code in codes:
                                counts[code] -= 1
                            seat.ranks[rank] -= len(codes)
                            seat.size -= len(codes)
                        if ups:
                            seat.face_up = face_up
                elif kind == _PICKUP:
                    if seat.may_play(top, drawn < stock_size):
                        raise RuleViolation(
                            "must_play",
                            f"turn {at}: {seat.label} can play and so may not pick up the pile",
                            at=at,
                        )
                    seat.take(pile)
                    seat.pickups += 1
                    pile = []
                    top = in_a_row = 0
                    turn = following[turn]
                    continue
                else:
                    face_down = seat.face_down
                    if seat.size or drawn < stock_size or seat.face_up:
                        raise RuleViolation(
                            "blind_not_allowed",
                            f"turn {at}: {seat.label} may play blind only once hand, stock and "
                            "face-up cards are all gone",
                            at=at,
                        )
                    if not 0 <= index < len(face_down):
                        raise RuleViolation(
                            "not_in_hand",
                            f"turn {at}: {seat.label} has {len(face_down)} face-down cards "
                            f"left, so no card {describe(index)}",
                            at=at,
                        )
                    code = face_down.pop(index)
                    rank = rank_of[code]
                    if not rank or not ok_on[top][rank]:
                        # It cannot go: it is put on the pile, which the player takes up.
                        pile.append(code)
                        seat.take(pile)
                        seat.pickups += 1
                        pile = []
                        top = in_a_row = 0
                        turn = following[turn]
                        continue
                    played = (code,)
                # Cards of ``rank`` went down: maybe a sweep, the draw, maybe going out,
                # and the turn.
                pile.extend(played)
                if rank == top:
                    in_a_row += len(played)
                else:
                    top = rank
                    in_a_row = len(played)
                swept = rank == 10 or in_a_row >= SWEEP_RUN
                if swept:
                    pile.clear()
                    top = in_a_row = 0
                    sweeps += 1
                if seat.size < DRAW_UP_TO and drawn < stock_size:
                    start = drawn
                    drawn = min(drawn + DRAW_UP_TO - seat.size, stock_size)
                    ranks = seat.ranks
                    for code in stock[start:drawn]:  # Seat.take, without a call per draw
                        counts[code] += 1
                        ranks[rank_of[code]] += 1
                    seat.size += drawn - start
                if seat.size or seat.face_up or seat.face_down:
                    if not swept:
                        turn = following[turn]
                    continue
                seat.out = True
                finish.append(seat.name)
                left -= 1
                if left == 1:
                    finish.extend(s.name for s in seats if not s.out)
                    continue
                # Relink every seat (in or out) to the next seat still in, then pass on.
                after = -1
                for i in [*range(len(seats) - 1, -1, -1)] * 2:
                    following[i] = after
                    if not seats[i].out:
                        after = i
                turn = following[turn]
        finally:
            self._pile, self._top, self._in_a_row, self._turn = pile, top, in_a_row, turn
            self._drawn, self._left, self.sweeps = drawn, left, sweeps

    def _finish_log(self, turns: int) -> Outcome:
        """The outcome of a log of ``turns`` turns, or ``not_finished``."""
        if not self.finished:
            still_in = len(self._seats) - len(self._finish)
            raise RuleViolation(
                "not_finished",
                f"the log ends after {turns} turns with {still_in} players still in",
                at=turns,
            )
        return self.outcome(turns)


def _too_low(at: int, rank: int, top: int) -> RuleViolation:
    return RuleViolation(
        "too_low", f"turn {at}: {Rank(rank).symbol} is lower than {Rank(top).symbol}", at=at
    )


def replay(log: GameLog) -> Outcome:
    """Replay a log to its end; raises RuleViolation at the first illegal turn, or
    ``not_finished`` if the log stops while two or more players are still in."""
    table = Table(log.players, log.deal, log.stock)
    table._play([_step_of(turn) for turn in log.turns], 0)
    return table._finish_log(len(log.turns))


# --- Reading records --------------------------------------------------------------------------

_CODE_BY_TOKEN: dict[str, int] = {str(card): code for code, card in enumerate(_CARDS)}
#: A one-card play's codes by its token: a tuple built once, not once a turn.
_ONE_CARD: dict[str, tuple[int, ...]] = {token: (code,) for token, code in _CODE_BY_TOKEN.items()}
_HAND_FIELDS = (
    ("face_down", FACE_DOWN_CARDS),
    ("face_up", FACE_UP_CARDS),
    ("hand", HAND_CARDS),
)
_LOG_FIELDS = ("deal", "stock", "turns")


def _card_codes(phase: Phase, tokens: object, at: str) -> list[int]:
    """The codes of the card list at ``at``: canonical tokens by one lookup each, anything
    else by :func:`parse_cards`, which names every fault."""
    codes = token_codes(tokens, _CODE_BY_TOKEN)
    if codes is not None:
        return codes
    return _codes(phase.run(parse_cards, tokens, at) or ())


def _turn_codes(phase: Phase, tokens: object, index: int, part: str) -> tuple[int, ...]:
    """The codes of a turn's ``part`` (none when absent); the path is spelled out only
    when a token is not canonical."""
    if tokens is None:
        return ()
    codes = token_codes(tokens, _CODE_BY_TOKEN)
    if codes is not None:
        return tuple(codes)
    return tuple(_card_codes(phase, tokens, f"turns[{index}].{part}"))


def _read_steps(phase: Phase, raw_turns: list[object], players: frozenset[str]) -> Iterator[_Step]:
    """Every turn's shape and cards, one step a turn, as the replay asks for them (a
    malformed turn raises ``bad_record``, an unknown card is added to ``phase``). The hot
    loop of reading a log, so canonical card tokens take a fast path and field paths are
    only spelled out for an error."""
    code_of, one_card = _CODE_BY_TOKEN, _ONE_CARD
    for index, raw in enumerate(raw_turns):
        if type(raw) is not dict:
            raise bad_record(f"turns[{index}] must be an object", f"turns[{index}]")
        get = raw.get
        player = get("player")
        if type(player) is not str or player not in players:
            raise bad_record(
                f"turns[{index}].player must be one of the players, not {describe(player)}",
                f"turns[{index}].player",
            )
        play = get("play")
        face_up = get("face_up")
        if len(raw) == 3 and play is not None and face_up is not None:
            pickup = blind = None  # its three keys are player, play and face_up
        else:
            pickup = get("pickup")
            blind = get("blind")
        if pickup is None and blind is None:
            if type(play) is list and play and (face_up is None or face_up == []):
                # The commonest turns: cards from the hand only, in canonical notation.
                try:
                    if len(play) == 1:
                        codes = one_card[play[0]]
                    else:
                        codes = tuple(map(code_of.__getitem__, play))
                except (KeyError, TypeError):
                    pass  # named below
                else:
                    yield _PLAY, player, codes, (), 0
                    continue
            codes = _turn_codes(phase, play, index, "play")
            ups = _turn_codes(phase, face_up, index, "face_up")
            if not (play or face_up):  # the raw lists: an unknown card is not "no card"
                raise bad_record(
                    f"turns[{index}] plays no card: it needs play, face_up, pickup or blind",
                    f"turns[{index}]",
                )
            yield _PLAY, player, codes, ups, 0
        elif pickup is True and blind is None and play is None and face_up is None:
            yield _PICKUP, player, (), (), 0
        elif pickup is None and is_int(blind) and play is None and face_up is None:
            yield _BLIND, player, (), (), blind  # type: ignore[misc]
        else:
            raise bad_record(
                f"turns[{index}] must be {{player, play, face_up}}, {{player, pickup: true}} "
                "or {player, blind: index}",
                f"turns[{index}]",
            )


def _read_deal(phase: Phase, raw: object, players: Sequence[str]) -> list[_HandCodes]:
    if type(raw) is not dict:
        raise bad_record("deal must be an object with one entry per player", "deal")
    for name in players:
        if name not in raw:
            raise bad_record(f"deal has no entry for {_short(name)}", f"deal.{name}")
    for key in raw:
        if key not in players:
            raise bad_record(f"deal names {describe(key)}, who is not a player", f"deal.{key}")
    hands: list[_HandCodes] = []
    for name in players:
        entry = raw[name]
        if type(entry) is not dict:
            raise bad_record(f"deal.{_short(name)} must be an object", f"deal.{name}")
        face_down, face_up, hand = (
            _card_codes(phase, field(entry, part, list, at=path), path)
            for part, _ in _HAND_FIELDS
            for path in (f"deal.{name}.{part}",)
        )
        hands.append((face_down, face_up, hand))
    return hands


def _check_counts(players: Sequence[str], hands: Sequence[_HandCodes], stock: list[int]) -> None:
    errors: list[RulesError] = []
    for name, dealt in zip(players, hands, strict=True):
        for (part, size), cards in zip(_HAND_FIELDS, dealt, strict=True):
            if len(cards) != size:
                errors.append(
                    RuleViolation(
                        "bad_deal",
                        f"{_short(name)} was dealt {len(cards)} cards {part.replace('_', ' ')}, "
                        f"not {size}",
                        at=f"deal.{name}.{part}",
                    )
                )
    count = deck_count(len(players))
    used = sorted(chain(stock, *chain.from_iterable(hands)))
    if used != _sorted_decks(count):
        surplus = [-count] * len(_CARDS)  # cards used minus cards in the decks, by code
        surplus[_JOKER_CODE] = 0
        for code in used:
            surplus[code] += 1
        missing = [str(_CARDS[c]) for c, n in enumerate(surplus) for _ in range(-n)]
        extra = [str(_CARDS[c]) for c, n in enumerate(surplus) for _ in range(n)]
        errors.append(
            RuleViolation(
                "bad_deal",
                f"the deal and the stock are not exactly {count} decks without jokers: "
                f"missing {missing[:20]}{'...' if len(missing) > 20 else ''}, "
                f"extra {extra[:20]}{'...' if len(extra) > 20 else ''}",
                at="stock",
            )
        )
    raise_all(errors)


@cache
def _sorted_decks(count: int) -> list[int]:
    """The codes of ``count`` decks without jokers, sorted (a deal is checked against it)."""
    return sorted(code for code in range(len(STANDARD_DECK)) for _ in range(count))


def _players(record: Mapping[str, object]) -> list[str]:
    if "players" not in record:
        raise bad_record("players is missing", "players")
    return player_names(record["players"], "players", minimum=2)


def _log_turns(record: Mapping[str, object]) -> list[object]:
    for name in _LOG_FIELDS:
        if record.get(name) is None:
            raise bad_record(f"{name} is missing", name)
    raw_turns = record["turns"]
    if type(raw_turns) is not list:
        raise bad_record("turns must be a list", "turns")
    return raw_turns


def _read(
    record: Mapping[str, object], players: Sequence[str]
) -> tuple[list[_HandCodes], list[int], list[_Step]]:
    """Read a full log: structure (exit 2), then every unknown card, then ``bad_deal``."""
    raw_turns = _log_turns(record)
    with Phase() as phase:
        hands = _read_deal(phase, record["deal"], players)
        stock = _card_codes(phase, record["stock"], "stock")
        steps = list(_read_steps(phase, raw_turns, frozenset(players)))
    _check_counts(players, hands, stock)
    return hands, stock, steps


def read_log(record: Mapping[str, object]) -> GameLog:
    """The full log of a record (``players``, ``deal``, ``stock``, ``turns``), checked in
    phases: structure (exit 2), then every unknown card, then ``bad_deal``; not replayed."""
    players = _players(record)
    hands, stock, steps = _read(record, players)
    deal = {
        name: PlayerDeal(*(tuple(_CARDS[code] for code in part) for part in dealt))
        for name, dealt in zip(players, hands, strict=True)
    }
    stock_cards = tuple(_CARDS[code] for code in stock)
    return GameLog(tuple(players), deal, stock_cards, tuple(_turn_of(step) for step in steps))


def _short_result(raw: object, players: Sequence[str]) -> Outcome:
    order = raw if type(raw) is list else None
    if (
        order is None
        or len(order) != len(players)
        or not all(isinstance(name, str) for name in order)
        or set(order) != set(players)
    ):
        raise bad_record("finish_order must name every player once, the idiot last", "finish_order")
    return Outcome(tuple(order))


def check_record(record: dict[str, object]) -> dict[str, object]:
    """The result keys of a valid Spazz'u'mazz record, or a RulesError (see module doc)."""
    parse_house_rules(GAME, record.get("house_rules"))
    players = _players(record)
    has_short = record.get("finish_order") is not None
    has_log = any(record.get(name) is not None for name in _LOG_FIELDS)
    if has_short and has_log:
        raise MalformedRecordError(
            "bad_record", "a record holds either a finish_order or a log, not both", at=None
        )
    if has_short:
        return _short_result(record["finish_order"], players).as_result()
    return check_log(record, players).as_result()


def check_log(record: Mapping[str, object], players: Sequence[str]) -> Outcome:
    """A log in RULES.md's phases: structure, cards, counts, then the replay to the first
    illegal turn. The outcome, or every fault of the first phase that fails.

    The turns are read as the replay plays them, in one pass; once it stops (at an illegal
    turn, or never started: a card or count of the deal is wrong) the rest are still read,
    so that a malformed turn or an unknown card anywhere comes first, as the phases say.
    """
    raw_turns = _log_turns(record)
    phase = Phase()
    hands = _read_deal(phase, record["deal"], players)
    stock = _card_codes(phase, record["stock"], "stock")
    steps = _read_steps(phase, raw_turns, frozenset(players))
    fault: RulesError | None = None
    table = None
    if not phase.errors:
        try:
            _check_counts(players, hands, stock)
            table = Table._dealt(players, hands, stock)
            table._play(steps, 0)
        except RuleViolation as error:  # an ErrorGroup of bad_deal faults is one too
            fault = error
        except ErrorGroup as error:
            fault = error
    for _ in steps:  # the turns the replay did not reach: their shapes and cards
        pass
    raise_all(phase.errors)
    if fault is not None:
        raise fault
    assert table is not None
    return table._finish_log(len(raw_turns))


# --- Statistics -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PlayerStats:
    """One player's record over many games: places are 1-based, the idiot is last.

    >>> s = PlayerStats(games=4, times_idiot=1, total_place=10)
    >>> s.idiot_rate, s.average_place
    (0.25, 2.5)
    """

    games: int = 0
    times_idiot: int = 0
    total_place: int = 0

    @property
    def idiot_rate(self) -> float:
        return self.times_idiot / self.games if self.games else 0.0

    @property
    def average_place(self) -> float:
        return self.total_place / self.games if self.games else 0.0


def idiot_statistics(finish_orders: Iterable[Sequence[str]]) -> dict[str, PlayerStats]:
    """Per player: games, times idiot, and the sum of finishing places (for the average).

    Each finish order lists every player of one game once, the idiot last; one with fewer
    than two players or a repeated name raises ValueError.

    >>> stats = idiot_statistics([["Anna", "Bruno"], ["Bruno", "Carla", "Anna"]])
    >>> stats["Anna"]
    PlayerStats(games=2, times_idiot=1, total_place=4)
    >>> stats["Carla"].average_place
    2.0
    """
    games: Counter[str] = Counter()
    idiots: Counter[str] = Counter()
    places: Counter[str] = Counter()
    for order in finish_orders:
        if len(order) < 2 or len(set(order)) != len(order):
            raise ValueError("a finish order names two or more distinct players")
        for place, name in enumerate(order, 1):
            games[name] += 1
            places[name] += place
        idiots[order[-1]] += 1
    return {name: PlayerStats(games[name], idiots[name], places[name]) for name in games}


def renamed_after(
    stats: Mapping[str, PlayerStats], min_games: int = SpazzumazzRules().idiot_min_games
) -> str | None:
    """The player a club's game is renamed after: the highest idiot rate among players with
    at least ``min_games`` games (house rule ``idiot_min_games``).

    Ties go to the player idiot more often (the rate rests on more evidence), then to the
    worse average place, then to the name that sorts first. None when nobody has enough
    games or no qualifying player was ever the idiot.

    >>> stats = idiot_statistics([["Anna", "Bruno"]] * 3 + [["Bruno", "Anna"]] * 2)
    >>> renamed_after(stats, min_games=5)
    'Bruno'
    >>> renamed_after(stats, min_games=6) is None
    True
    """
    qualified = [
        (name, s) for name, s in stats.items() if s.games >= min_games and s.times_idiot > 0
    ]
    if not qualified:
        return None

    def badness(item: tuple[str, PlayerStats]) -> tuple[Fraction, int, Fraction]:
        s = item[1]
        return (Fraction(s.times_idiot, s.games), s.times_idiot, Fraction(s.total_place, s.games))

    worst = max(badness(item) for item in qualified)
    return min(name for name, s in qualified if badness((name, s)) == worst)
