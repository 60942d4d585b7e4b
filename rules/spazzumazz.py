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
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from operator import itemgetter

from rules.cards import JOKER, STANDARD_DECK, Card, Rank, parse_cards, token_codes
from rules.errors import MalformedRecordError, RulesError, RuleViolation, describe, raise_all
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

    def __init__(self, name: str, dealt: PlayerDeal) -> None:
        self.name = name
        self.label = _short(name)
        self.counts = [0] * len(_CARDS)
        self.ranks = [0] * 14
        self.size = 0
        self.face_up = _codes(dealt.face_up)
        self.face_down = _codes(dealt.face_down)
        self.pickups = 0
        self.out = False
        self.take(_codes(dealt.hand))

    def take(self, codes: Iterable[int]) -> None:
        counts, ranks = self.counts, self.ranks
        n = 0
        for code in codes:
            counts[code] += 1
            ranks[_RANK_OF[code]] += 1
            n += 1
        self.size += n


def _short(name: str) -> str:
    """A player's name for messages: names are free text, so cut long ones."""
    return name if len(name) <= 40 else name[:40] + "..."


def _names(codes: Iterable[int]) -> list[str]:
    return [str(_CARDS[code]) for code in codes]


class Table:
    """A game in play: apply turns one by one; each illegal turn raises RuleViolation.

    The deal is taken as valid (see :func:`read_log`). ``at`` given to :meth:`apply` is the
    turn index reported with an error.

    >>> hand = PlayerDeal(face_down=(), face_up=(), hand=(Card.parse("3S"),))
    >>> table = Table(["Anna", "Bruno"], {"Anna": hand, "Bruno": hand}, stock=())
    >>> table.apply(Play("Anna", (Card.parse("3S"),)))
    >>> table.finished, table.finish_order
    (True, ('Anna', 'Bruno'))
    """

    def __init__(
        self, players: Sequence[str], deal: Mapping[str, PlayerDeal], stock: Sequence[Card]
    ) -> None:
        self._seats = [_Seat(name, deal[name]) for name in players]
        self._stock = _codes(stock)
        self._drawn = 0
        self._pile: list[int] = []
        self._top = 0  # rank of the top card; 0 for an empty pile
        self._run = 0  # how many cards of the top rank lie in a row on top
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
        return not self.finished and self._can_play(self._seats[self._turn])

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
        self._step(_step_of(turn), at)

    def _step(self, step: _Step, at: int) -> None:
        kind, player, codes, ups, index = step
        if self._left <= 1:
            raise RuleViolation("after_end", f"turn {at}: the game is already over", at=at)
        seat = self._seats[self._turn]
        if player != seat.name:
            out = any(s.out and s.name == player for s in self._seats)
            raise RuleViolation(
                "out_of_turn",
                f"turn {at}: it is {seat.label}'s turn, not {describe(player)}'s"
                + (" (who is out)" if out else ""),
                at=at,
            )
        if kind == _PLAY:
            self._play(seat, codes, ups, at)
        elif kind == _PICKUP:
            if self._can_play(seat):
                raise RuleViolation(
                    "must_play",
                    f"turn {at}: {seat.label} can play and so may not pick up the pile",
                    at=at,
                )
            self._pick_up(seat)
            self._pass()
        else:
            self._blind(seat, index, at)

    def _can_play(self, seat: _Seat) -> bool:
        ok = _OK[self._top]
        if seat.size:
            ranks = seat.ranks
            return any(map(ranks.__getitem__, _GOES_INTS[self._top]))
        if self.stock_left:
            return False
        if seat.face_up:
            return any(ok[_RANK_OF[code]] for code in seat.face_up)
        return bool(seat.face_down)

    def _play(self, seat: _Seat, codes: tuple[int, ...], ups: tuple[int, ...], at: int) -> None:
        counts = seat.counts
        if len(codes) == 1 and not ups:  # the commonest play, checked in short
            rank = _RANK_OF[codes[0]]
            if counts[codes[0]] and _OK[self._top][rank]:
                counts[codes[0]] -= 1
                seat.ranks[rank] -= 1
                seat.size -= 1
                self._laid(seat, rank, codes)
                return
        missing = [c for c in set(codes) if counts[c] < codes.count(c)]
        if missing:
            raise RuleViolation(
                "not_in_hand",
                f"turn {at}: {seat.label} does not hold {_names(missing)} in hand",
                at=at,
            )
        if ups:
            left = list(seat.face_up)
            for code in ups:
                if code in left:
                    left.remove(code)
                else:
                    missing.append(code)
            if missing:
                raise RuleViolation(
                    "not_in_hand",
                    f"turn {at}: {seat.label} does not have {_names(missing)} face up",
                    at=at,
                )
        played = codes + ups
        if not played:
            raise RuleViolation("not_in_hand", f"turn {at}: {seat.label} plays no card", at=at)
        rank = _RANK_OF[played[0]]
        if len(played) > 1 and any(_RANK_OF[code] != rank for code in played):
            raise RuleViolation(
                "mixed_ranks", f"turn {at}: {_names(played)} are not all of one rank", at=at
            )
        if ups and not codes and (seat.size or self.stock_left):
            raise RuleViolation(
                "face_up_not_allowed",
                f"turn {at}: {seat.label} may play face-up cards alone only once the hand "
                "and the stock are empty, or else with a card of the same rank from the hand",
                at=at,
            )
        if not _OK[self._top][rank]:
            raise RuleViolation(
                "too_low",
                f"turn {at}: {Rank(rank).symbol} is lower than {Rank(self._top).symbol}",
                at=at,
            )
        # Legal: move the cards.
        if codes:
            ranks = seat.ranks
            for code in codes:
                counts[code] -= 1
            ranks[rank] -= len(codes)
            seat.size -= len(codes)
        if ups:
            seat.face_up = left
        self._laid(seat, rank, played)

    def _laid(self, seat: _Seat, rank: int, played: tuple[int, ...]) -> None:
        """After a legal play (from hand, face up or blind): the pile, maybe a sweep, the
        draw, maybe going out, and the turn."""
        pile = self._pile
        pile.extend(played)
        if rank == self._top:
            self._run += len(played)
        else:
            self._top = rank
            self._run = len(played)
        swept = rank == 10 or self._run >= SWEEP_RUN
        if swept:
            pile.clear()
            self._top = self._run = 0
            self.sweeps += 1
        if seat.size < DRAW_UP_TO and self._drawn < len(self._stock):
            drawn = self._drawn
            self._drawn = min(drawn + DRAW_UP_TO - seat.size, len(self._stock))
            seat.take(self._stock[drawn : self._drawn])
        if seat.size or seat.face_up or seat.face_down:
            if not swept:
                self._turn = self._next[self._turn]
        else:
            self._go_out(seat)

    def _blind(self, seat: _Seat, index: int, at: int) -> None:
        if seat.size or self.stock_left or seat.face_up:
            raise RuleViolation(
                "blind_not_allowed",
                f"turn {at}: {seat.label} may play blind only once hand, stock and face-up "
                "cards are all gone",
                at=at,
            )
        if not 0 <= index < len(seat.face_down):
            raise RuleViolation(
                "not_in_hand",
                f"turn {at}: {seat.label} has {len(seat.face_down)} face-down cards left, "
                f"so no card {describe(index)}",
                at=at,
            )
        code = seat.face_down.pop(index)
        rank = _RANK_OF[code]
        if rank and _OK[self._top][rank]:
            self._laid(seat, rank, (code,))
        else:
            self._pile.append(code)
            self._pick_up(seat)
            self._pass()

    def _go_out(self, seat: _Seat) -> None:
        seat.out = True
        self._finish.append(seat.name)
        self._left -= 1
        if self._left == 1:
            self._finish.extend(s.name for s in self._seats if not s.out)
            return
        # Relink every seat (in or out) to the next seat still in, then pass the turn.
        seats, count = self._seats, len(self._seats)
        following = -1
        for i in [*range(count - 1, -1, -1)] * 2:
            self._next[i] = following
            if not seats[i].out:
                following = i
        self._turn = self._next[self._turn]

    def _pick_up(self, seat: _Seat) -> None:
        seat.take(self._pile)
        seat.pickups += 1
        self._pile = []
        self._top = 0
        self._run = 0

    def _pass(self) -> None:
        self._turn = self._next[self._turn]


def _run(table: Table, steps: Sequence[_Step]) -> Outcome:
    apply = table._step
    for at, step in enumerate(steps):
        apply(step, at)
    if not table.finished:
        still_in = len(table._seats) - len(table.finish_order)
        raise RuleViolation(
            "not_finished",
            f"the log ends after {len(steps)} turns with {still_in} players still in",
            at=len(steps),
        )
    return table.outcome(len(steps))


def replay(log: GameLog) -> Outcome:
    """Replay a log to its end; raises RuleViolation at the first illegal turn, or
    ``not_finished`` if the log stops while two or more players are still in."""
    return _run(Table(log.players, log.deal, log.stock), [_step_of(turn) for turn in log.turns])


# --- Reading records --------------------------------------------------------------------------

_CODE_BY_TOKEN: dict[str, int] = {str(card): code for code, card in enumerate(_CARDS)}
_HAND_FIELDS = (
    ("face_down", FACE_DOWN_CARDS),
    ("face_up", FACE_UP_CARDS),
    ("hand", HAND_CARDS),
)
_LOG_FIELDS = ("deal", "stock", "turns")


def _cards(phase: Phase, tokens: object, at: str) -> tuple[Card, ...]:
    """Parse a card list; canonical tokens take a fast path, the rest go by parse_cards."""
    if type(tokens) is list:
        try:
            return tuple(_CARDS[code] for code in map(_CODE_BY_TOKEN.__getitem__, tokens))
        except (KeyError, TypeError):
            pass
    return tuple(phase.run(parse_cards, tokens, at) or ())


def _parse_codes(phase: Phase, tokens: object, at: str) -> tuple[int, ...]:
    """Codes of the cards at ``at`` by way of parse_cards, which names every bad token."""
    cards = phase.run(parse_cards, tokens, at)
    return () if cards is None else tuple(_codes(cards))


def _turn_codes(phase: Phase, tokens: object, index: int, part: str) -> tuple[int, ...]:
    """The codes of a turn's ``part`` (none when absent): canonical tokens by the fast
    path, anything else by :func:`_parse_codes`, which names the fault."""
    if tokens is None:
        return ()
    codes = token_codes(tokens, _CODE_BY_TOKEN)
    if codes is not None:
        return tuple(codes)
    return _parse_codes(phase, tokens, f"turns[{index}].{part}")


def _read_steps(phase: Phase, raw_turns: list[object], players: frozenset[str]) -> list[_Step]:
    """Every turn's shape and cards; the hot loop of reading a log, so canonical card
    tokens take a fast path and field paths are only spelled out for an error."""
    steps: list[_Step] = []
    append = steps.append
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
        pickup = get("pickup")
        blind = get("blind")
        if pickup is None and blind is None:
            codes = _turn_codes(phase, play, index, "play")
            ups = _turn_codes(phase, face_up, index, "face_up")
            if not (play or face_up):  # the raw lists: an unknown card is not "no card"
                raise bad_record(
                    f"turns[{index}] plays no card: it needs play, face_up, pickup or blind",
                    f"turns[{index}]",
                )
            append((_PLAY, player, codes, ups, 0))
        elif pickup is True and blind is None and play is None and face_up is None:
            append((_PICKUP, player, (), (), 0))
        elif pickup is None and is_int(blind) and play is None and face_up is None:
            append((_BLIND, player, (), (), blind))  # type: ignore[arg-type]
        else:
            raise bad_record(
                f"turns[{index}] must be {{player, play, face_up}}, {{player, pickup: true}} "
                "or {player, blind: index}",
                f"turns[{index}]",
            )
    return steps


def _read_deal(phase: Phase, raw: object, players: Sequence[str]) -> dict[str, PlayerDeal]:
    if type(raw) is not dict:
        raise bad_record("deal must be an object with one entry per player", "deal")
    for name in players:
        if name not in raw:
            raise bad_record(f"deal has no entry for {_short(name)}", f"deal.{name}")
    for key in raw:
        if key not in players:
            raise bad_record(f"deal names {describe(key)}, who is not a player", f"deal.{key}")
    deal = {}
    for name in players:
        entry = raw[name]
        if type(entry) is not dict:
            raise bad_record(f"deal.{_short(name)} must be an object", f"deal.{name}")
        hands = [
            tuple(phase.run(parse_cards, field(entry, part, list, at=path), path) or ())
            for part, _ in _HAND_FIELDS
            for path in (f"deal.{name}.{part}",)
        ]
        deal[name] = PlayerDeal(*hands)
    return deal


def _check_counts(
    players: Sequence[str], deal: Mapping[str, PlayerDeal], stock: Sequence[Card]
) -> None:
    errors: list[RulesError] = []
    for name in players:
        dealt = deal[name]
        for part, size in _HAND_FIELDS:
            got = len(getattr(dealt, part))
            if got != size:
                errors.append(
                    RuleViolation(
                        "bad_deal",
                        f"{_short(name)} was dealt {got} cards {part.replace('_', ' ')}, "
                        f"not {size}",
                        at=f"deal.{name}.{part}",
                    )
                )
    count = deck_count(len(players))
    surplus = [-count] * len(_CARDS)  # cards used minus cards in the decks, by code
    surplus[_JOKER_CODE] = 0
    for cards in (stock, *(d.face_down + d.face_up + d.hand for d in deal.values())):
        for code in _codes(cards):
            surplus[code] += 1
    if any(surplus):
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


def _players(record: Mapping[str, object]) -> list[str]:
    if "players" not in record:
        raise bad_record("players is missing", "players")
    return player_names(record["players"], "players", minimum=2)


def _read(
    record: Mapping[str, object], players: Sequence[str]
) -> tuple[dict[str, PlayerDeal], tuple[Card, ...], list[_Step]]:
    """Read a full log: structure (exit 2), then every unknown card, then ``bad_deal``."""
    for name in _LOG_FIELDS:
        if record.get(name) is None:
            raise bad_record(f"{name} is missing", name)
    raw_turns = record["turns"]
    if type(raw_turns) is not list:
        raise bad_record("turns must be a list", "turns")
    with Phase() as phase:
        deal = _read_deal(phase, record["deal"], players)
        stock = _cards(phase, record["stock"], "stock")
        steps = _read_steps(phase, raw_turns, frozenset(players))
    _check_counts(players, deal, stock)
    return deal, stock, steps


def read_log(record: Mapping[str, object]) -> GameLog:
    """The full log of a record (``players``, ``deal``, ``stock``, ``turns``), checked in
    phases: structure (exit 2), then every unknown card, then ``bad_deal``; not replayed."""
    players = _players(record)
    deal, stock, steps = _read(record, players)
    return GameLog(tuple(players), deal, stock, tuple(_turn_of(step) for step in steps))


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
    fast = _replay_legal_log(record, players)
    if fast is not None:
        return fast
    return _check_log(record, players)


def _check_log(record: Mapping[str, object], players: Sequence[str]) -> dict[str, object]:
    """A log through every phase, in RULES.md's order: the result, or every fault of the
    first phase that fails."""
    deal, stock, steps = _read(record, players)
    return _run(Table(players, deal, stock), steps).as_result()


# --- The checker's fast path -------------------------------------------------------------------
#
# Bulk imports are mostly valid logs. _replay_legal_log reads and replays a log in one pass,
# on card codes and local variables (no turn objects, no method calls per turn), and gives up
# (``None``) at the first thing that is not plainly legal: a card token that is not
# canonical, a deal that is not right, any malformed or illegal turn, a log that does not
# end with its last turn. The checker then runs the phases from the start (_check_log), which
# report every fault in RULES.md's order. So the fast path decides nothing on its own: it
# accepts only what the phases accept, with the same outcome; the tests replay logs both ways.
# Each step below is the Table method of the same name, inlined.


def _replay_legal_log(
    record: Mapping[str, object], players: Sequence[str]
) -> dict[str, object] | None:
    """The result of a canonical, legal, finished log; ``None`` for anything else."""
    raw_deal, raw_turns = record.get("deal"), record.get("turns")
    if type(raw_deal) is not dict or type(raw_turns) is not list or len(raw_deal) != len(players):
        return None
    stock = token_codes(record.get("stock"), _CODE_BY_TOKEN)
    if stock is None:
        return None
    count = len(players)
    surplus = [-deck_count(count)] * len(_CARDS)  # cards used minus cards in the decks
    surplus[_JOKER_CODE] = 0
    for code in stock:
        surplus[code] += 1
    rank_of = _RANK_OF
    hands: list[list[int]] = []  # per seat: copies held of each card code
    ranks: list[list[int]] = []  # per seat: cards held of each rank
    sizes: list[int] = []
    face_ups: list[list[int]] = []
    face_downs: list[list[int]] = []
    for name in players:
        entry = raw_deal.get(name)
        if type(entry) is not dict:
            return None
        parts = []
        for part, size in _HAND_FIELDS:
            codes = token_codes(entry.get(part), _CODE_BY_TOKEN)
            if codes is None or len(codes) != size:
                return None
            for code in codes:
                surplus[code] += 1
            parts.append(codes)
        dealt_down, dealt_up, dealt = parts
        held = [0] * len(_CARDS)
        by_rank = [0] * 14
        for code in dealt:
            held[code] += 1
            by_rank[rank_of[code]] += 1
        hands.append(held)
        ranks.append(by_rank)
        sizes.append(len(dealt))
        face_ups.append(dealt_up)
        face_downs.append(dealt_down)
    if any(surplus):
        return None

    ok_on = _OK
    goes_getters = _GOES_GETTERS
    code_of = _CODE_BY_TOKEN
    pickups = [0] * count
    out = [False] * count
    following = [(seat + 1) % count for seat in range(count)]
    finish: list[str] = []
    pile: list[int] = []
    top = run = sweeps = drawn = turn = 0
    still_in = count
    stock_size = len(stock)
    for raw in raw_turns:
        if type(raw) is not dict or still_in <= 1:
            return None
        get = raw.get
        seat = turn
        if get("player") != players[seat]:
            return None
        play, face_up = get("play"), get("face_up")
        # Three keys, player, play and face_up, leave no room for pickup or blind.
        if (len(raw) == 3 and play is not None and face_up is not None) or (
            get("pickup") is None and get("blind") is None
        ):
            # A play: cards of one rank from the hand and/or the face-up cards.
            held = hands[seat]
            if (
                type(play) is list
                and play
                and not face_up
                and (face_up is None or type(face_up) is list)
            ):
                # The commonest turns, cards from the hand only, in short (Table._play).
                played = len(play)
                try:
                    if played == 1:
                        code = code_of[play[0]]
                        rank = rank_of[code]
                        if not held[code] or not ok_on[top][rank]:
                            return None
                        held[code] -= 1
                        pile.append(code)
                    else:
                        codes = list(map(code_of.__getitem__, play))
                        rank = rank_of[codes[0]]
                        if not ok_on[top][rank]:
                            return None
                        for code in codes:
                            if not held[code] or rank_of[code] != rank:
                                return None
                            held[code] -= 1
                        pile.extend(codes)
                except (KeyError, TypeError):
                    return None
                ranks[seat][rank] -= played
                sizes[seat] -= played
            else:
                codes = [] if play is None else token_codes(play, _CODE_BY_TOKEN)
                ups = [] if face_up is None else token_codes(face_up, _CODE_BY_TOKEN)
                if codes is None or ups is None:
                    return None
                cards = codes + ups
                if not cards:
                    return None
                rank = rank_of[cards[0]]
                if not ok_on[top][rank] or any(rank_of[code] != rank for code in cards):
                    return None
                if ups:
                    if not codes and (sizes[seat] or drawn < stock_size):
                        return None
                    remaining = list(face_ups[seat])
                    for code in ups:
                        if code not in remaining:
                            return None
                        remaining.remove(code)
                    face_ups[seat] = remaining
                for code in codes:
                    if not held[code]:
                        return None
                    held[code] -= 1
                ranks[seat][rank] -= len(codes)
                sizes[seat] -= len(codes)
                pile.extend(cards)
                played = len(cards)
        elif play is None and face_up is None:
            pickup, blind = get("pickup"), get("blind")
            down = face_downs[seat]
            if pickup is True and blind is None:
                # A pickup, only without a legal play (Table._can_play).
                if sizes[seat]:
                    if any(goes_getters[top](ranks[seat])):
                        return None
                elif drawn >= stock_size:
                    if face_ups[seat]:
                        ok = ok_on[top]
                        if any(ok[rank_of[code]] for code in face_ups[seat]):
                            return None
                    elif down:
                        return None
            elif type(blind) is int and pickup is None:
                # A blind card: only once hand, stock and face-up cards are gone.
                if sizes[seat] or drawn < stock_size or face_ups[seat]:
                    return None
                if not 0 <= blind < len(down):
                    return None
                code = down.pop(blind)
                rank = rank_of[code]
                if rank and ok_on[top][rank]:
                    pile.append(code)
                    played = 1
                    pickup = None
                else:
                    pile.append(code)  # it cannot go: it is taken up with the pile
                    pickup = True
            else:
                return None
            if pickup:
                # Table._pick_up, then the turn passes.
                held, by_rank = hands[seat], ranks[seat]
                for code in pile:
                    held[code] += 1
                    by_rank[rank_of[code]] += 1
                sizes[seat] += len(pile)
                pickups[seat] += 1
                pile = []
                top = run = 0
                turn = following[turn]
                continue
        else:
            return None
        # Table._laid: maybe a sweep, the draw, maybe going out, and the turn.
        if rank == top:
            run += played
        else:
            top = rank
            run = played
        swept = rank == 10 or run >= SWEEP_RUN
        if swept:
            pile.clear()
            top = run = 0
            sweeps += 1
        size = sizes[seat]
        if drawn < stock_size and size < DRAW_UP_TO:
            start = drawn
            drawn = min(drawn + DRAW_UP_TO - size, stock_size)
            held, by_rank = hands[seat], ranks[seat]
            for code in stock[start:drawn]:
                held[code] += 1
                by_rank[rank_of[code]] += 1
            sizes[seat] += drawn - start
        if sizes[seat] or face_ups[seat] or face_downs[seat]:
            if not swept:
                turn = following[turn]
            continue
        # Table._go_out
        out[seat] = True
        finish.append(players[seat])
        still_in -= 1
        if still_in == 1:
            finish.extend(name for name, gone in zip(players, out, strict=True) if not gone)
            continue
        after = -1
        for index in [*range(count - 1, -1, -1)] * 2:
            following[index] = after
            if not out[index]:
                after = index
        turn = following[turn]
    if still_in > 1:
        return None
    return {
        "finish_order": finish,
        "idiot": finish[-1],
        "turns": len(raw_turns),
        "pickups": dict(zip(players, pickups, strict=True)),
        "sweeps": sweeps,
    }


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
