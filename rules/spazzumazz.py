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
  must be a non-negative integer (a negative index is malformed: exit 2); a turn mixing
  ``pickup``, ``blind`` and the play lists (even empty ones) is exit 2.
* The player draws before being checked for going out, so nobody is out while the stock
  lasts. A successful blind card is a play (the stock is empty by then anyway).
* "In a row" counts the cards of the top rank lying consecutively on top of the pile,
  across plays and players; a 2 covering them starts a new run (of 2s).
* ``not_finished`` has ``at`` = the number of turns (the index of the turn that is missing).
* ``bad_deal`` names the field (``deal.<name>.hand`` ...) for a wrong count, and ``stock``
  with the missing and extra cards when the deal and stock are not exactly the decks.
* Statistics: see :func:`renamed_after` for the tie-break.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from rules.cards import JOKER, STANDARD_DECK, Card, Rank, decks, parse_cards
from rules.errors import MalformedRecordError, RulesError, RuleViolation, raise_all
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


class _Seat:
    """One player's cards. ``hand`` counts copies; ``ranks`` counts hand cards by rank."""

    __slots__ = ("name", "hand", "ranks", "size", "face_up", "face_down", "pickups", "out")

    def __init__(self, name: str, dealt: PlayerDeal) -> None:
        self.name = name
        self.hand: dict[Card, int] = {}
        self.ranks = [0] * 14
        self.size = 0
        self.face_up = list(dealt.face_up)
        self.face_down = list(dealt.face_down)
        self.pickups = 0
        self.out = False
        self.take(dealt.hand)

    def take(self, cards: Iterable[Card]) -> None:
        hand, ranks = self.hand, self.ranks
        for card in cards:
            hand[card] = hand.get(card, 0) + 1
            ranks[card.rank or 0] += 1
            self.size += 1

    def give(self, cards: Iterable[Card]) -> None:
        hand, ranks = self.hand, self.ranks
        for card in cards:
            left = hand[card] - 1
            if left:
                hand[card] = left
            else:
                del hand[card]
            ranks[card.rank or 0] -= 1
            self.size -= 1

    def has_nothing(self) -> bool:
        return not (self.size or self.face_up or self.face_down)


def _missing_from_hand(hand: Mapping[Card, int], cards: Sequence[Card]) -> list[Card]:
    if len(cards) == 1:
        return [] if cards[0] in hand else list(cards)
    needed = Counter(cards)
    return [card for card, n in needed.items() if hand.get(card, 0) < n]


def _missing_from_list(held: Sequence[Card], cards: Sequence[Card]) -> list[Card]:
    left = list(held)
    missing = []
    for card in cards:
        if card in left:
            left.remove(card)
        else:
            missing.append(card)
    return missing


def _symbol(rank: int) -> str:
    return Rank(rank).symbol


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
        self._stock = tuple(stock)
        self._drawn = 0
        self._pile: list[Card] = []
        self._top = 0  # int(Rank) of the top card; 0 for an empty pile
        self._run = 0  # how many cards of the top rank lie in a row on top
        self._turn = 0  # index of the seat on turn
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
        return tuple(self._pile)

    @property
    def stock_left(self) -> int:
        return len(self._stock) - self._drawn

    def pickups(self) -> dict[str, int]:
        return {seat.name: seat.pickups for seat in self._seats}

    def outcome(self, turns: int) -> Outcome:
        return Outcome(self.finish_order, turns, self.pickups(), self.sweeps)

    def can_play(self) -> bool:
        """Whether the player on turn has a legal play (so may not pick up)."""
        return self._can_play(self._seats[self._turn])

    def legal_turns(self) -> list[Turn]:
        """The legal turns of the player on turn.

        Plays use the first copies of each rank (suits do not matter to the rules); a
        pickup is listed only when there is no play, as the main rule says.
        """
        if self.finished:
            return []
        seat = self._seats[self._turn]
        name = seat.name
        goes = _GOES_SETS[self._top]
        turns: list[Turn] = []
        face_up: dict[Rank, list[Card]] = {}
        for card in seat.face_up:
            if card.rank in goes:
                face_up.setdefault(card.rank, []).append(card)
        if seat.size:
            hand: dict[Rank, list[Card]] = {}
            for card, n in seat.hand.items():
                if card.rank in goes:
                    hand.setdefault(card.rank, []).extend([card] * n)
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

    # -- applying turns

    def apply(self, turn: Turn, at: int = 0) -> None:
        """Apply ``turn``, or raise RuleViolation (with ``at``) leaving the table unchanged."""
        if self._left <= 1:
            raise RuleViolation("after_end", f"turn {at}: the game is already over", at=at)
        seat = self._seats[self._turn]
        if turn.player != seat.name:
            out = any(s.out and s.name == turn.player for s in self._seats)
            raise RuleViolation(
                "out_of_turn",
                f"turn {at}: it is {seat.name}'s turn, not {turn.player}'s"[:300]
                + (f" ({turn.player} is out)"[:100] if out else ""),
                at=at,
            )
        if type(turn) is Play:
            self._play(seat, turn, at)
        elif type(turn) is Pickup:
            if self._can_play(seat):
                raise RuleViolation(
                    "must_play",
                    f"turn {at}: {seat.name} can play and so may not pick up the pile",
                    at=at,
                )
            self._pick_up(seat)
            self._pass()
        else:
            assert isinstance(turn, Blind)
            self._blind(seat, turn.index, at)

    def _can_play(self, seat: _Seat) -> bool:
        if seat.size:
            ranks = seat.ranks
            return any(ranks[r] for r in _GOES[self._top])
        if self.stock_left:
            return False
        if seat.face_up:
            goes = _GOES_SETS[self._top]
            return any(card.rank in goes for card in seat.face_up)
        return bool(seat.face_down)

    def _play(self, seat: _Seat, turn: Play, at: int) -> None:
        cards, ups = turn.cards, turn.face_up
        missing = _missing_from_hand(seat.hand, cards)
        if missing:
            raise RuleViolation(
                "not_in_hand",
                f"turn {at}: {seat.name} does not hold {[str(c) for c in missing]} in hand",
                at=at,
            )
        if ups:
            missing = _missing_from_list(seat.face_up, ups)
            if missing:
                raise RuleViolation(
                    "not_in_hand",
                    f"turn {at}: {seat.name} does not have {[str(c) for c in missing]} face up",
                    at=at,
                )
        if not cards and not ups:
            raise RuleViolation("not_in_hand", f"turn {at}: {seat.name} plays no card", at=at)
        rank = (cards or ups)[0].rank
        if rank is None:  # a joker: never in a valid deal, so never held
            raise RuleViolation("not_in_hand", f"turn {at}: nobody holds a joker", at=at)
        if len(cards) + len(ups) > 1 and any(card.rank != rank for card in cards + ups):
            raise RuleViolation(
                "mixed_ranks",
                f"turn {at}: {[str(c) for c in cards + ups]} are not all of one rank",
                at=at,
            )
        if ups and not cards and (seat.size or self.stock_left):
            raise RuleViolation(
                "face_up_not_allowed",
                f"turn {at}: {seat.name} may play face-up cards alone only once the hand "
                "and the stock are empty, or else with a card of the same rank from the hand",
                at=at,
            )
        if rank not in _GOES_SETS[self._top]:
            raise RuleViolation(
                "too_low", f"turn {at}: {rank.symbol} is lower than {_symbol(self._top)}", at=at
            )
        # Legal: move the cards.
        seat.give(cards)
        for card in ups:
            seat.face_up.remove(card)
        swept = self._lay(rank, cards + ups)
        stock = self._stock
        while seat.size < DRAW_UP_TO and self._drawn < len(stock):
            seat.take((stock[self._drawn],))
            self._drawn += 1
        self._after_play(seat, swept)

    def _blind(self, seat: _Seat, index: int, at: int) -> None:
        if seat.size or self.stock_left or seat.face_up:
            raise RuleViolation(
                "blind_not_allowed",
                f"turn {at}: {seat.name} may play blind only once hand, stock and face-up "
                "cards are all gone",
                at=at,
            )
        if not 0 <= index < len(seat.face_down):
            raise RuleViolation(
                "not_in_hand",
                f"turn {at}: {seat.name} has {len(seat.face_down)} face-down cards left, "
                f"so no card {index}",
                at=at,
            )
        card = seat.face_down.pop(index)
        rank = card.rank
        if rank is not None and rank in _GOES_SETS[self._top]:
            self._after_play(seat, self._lay(rank, (card,)))
        else:
            self._pile.append(card)
            self._pick_up(seat)
            self._pass()

    def _lay(self, rank: Rank, cards: tuple[Card, ...]) -> bool:
        """Put ``cards`` (of ``rank``) on the pile; sweep it if they make it so."""
        self._pile.extend(cards)
        if rank == self._top:
            self._run += len(cards)
        else:
            self._top = rank
            self._run = len(cards)
        if rank == Rank.TEN or self._run >= SWEEP_RUN:
            self._pile.clear()
            self._top = 0
            self._run = 0
            self.sweeps += 1
            return True
        return False

    def _after_play(self, seat: _Seat, swept: bool) -> None:
        if seat.has_nothing():
            seat.out = True
            self._finish.append(seat.name)
            self._left -= 1
            if self._left == 1:
                self._finish.extend(s.name for s in self._seats if not s.out)
                return
            self._pass()
        elif not swept:
            self._pass()

    def _pick_up(self, seat: _Seat) -> None:
        seat.take(self._pile)
        seat.pickups += 1
        self._pile = []
        self._top = 0
        self._run = 0

    def _pass(self) -> None:
        seats = self._seats
        turn = self._turn
        while True:
            turn = (turn + 1) % len(seats)
            if not seats[turn].out:
                self._turn = turn
                return


def replay(log: GameLog) -> Outcome:
    """Replay a log to its end; raises RuleViolation at the first illegal turn, or
    ``not_finished`` if the log stops while two or more players are still in."""
    table = Table(log.players, log.deal, log.stock)
    apply = table.apply
    for at, turn in enumerate(log.turns):
        apply(turn, at)
    if not table.finished:
        still_in = len(log.players) - len(table.finish_order)
        raise RuleViolation(
            "not_finished",
            f"the log ends after {len(log.turns)} turns with {still_in} players still in",
            at=len(log.turns),
        )
    return table.outcome(len(log.turns))


# --- Reading records --------------------------------------------------------------------------

_CANONICAL: dict[str, Card] = {str(card): card for card in (*STANDARD_DECK, JOKER)}
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
            return tuple(map(_CANONICAL.__getitem__, tokens))
        except (KeyError, TypeError):
            pass
    return tuple(phase.run(parse_cards, tokens, at) or ())


def _read_turn(phase: Phase, raw: object, index: int, players: frozenset[str]) -> Turn:
    at = f"turns[{index}]"
    if type(raw) is not dict:
        raise bad_record(f"{at} must be an object", at)
    player = raw.get("player")
    if not isinstance(player, str) or player not in players:
        raise bad_record(
            f"{at}.player must be one of the players, not {player!r}"[:200], f"{at}.player"
        )
    pickup = raw.get("pickup")
    blind = raw.get("blind")
    play = raw.get("play")
    face_up = raw.get("face_up")
    if pickup is not None:
        if pickup is not True or blind is not None or play is not None or face_up is not None:
            raise bad_record(f"{at}: a pickup is {{player, pickup: true}} alone", at)
        return Pickup(player)
    if blind is not None:
        if not is_int(blind) or blind < 0 or play is not None or face_up is not None:
            raise bad_record(f"{at}: a blind turn is {{player, blind: index >= 0}} alone", at)
        assert isinstance(blind, int)
        return Blind(player, blind)
    played = _cards(phase, [] if play is None else play, f"{at}.play")
    ups = _cards(phase, [] if face_up is None else face_up, f"{at}.face_up")
    if not (play or face_up):  # judged on the raw lists: unknown cards are not "no card"
        raise bad_record(f"{at} plays no card: it needs play, face_up, pickup or blind", at)
    return Play(player, played, ups)


def _read_deal(phase: Phase, raw: object, players: Sequence[str]) -> dict[str, PlayerDeal]:
    if type(raw) is not dict:
        raise bad_record("deal must be an object with one entry per player", "deal")
    for name in players:
        if name not in raw:
            raise bad_record(f"deal has no entry for {name}", f"deal.{name}")
    for key in raw:
        if key not in players:
            raise bad_record(f"deal names {key!r}, who is not a player"[:200], f"deal.{key}")
    deal = {}
    for name in players:
        entry = raw[name]
        if type(entry) is not dict:
            raise bad_record(f"deal.{name} must be an object", f"deal.{name}")
        hands = [
            _cards(phase, field(entry, part, list, at=f"deal.{name}.{part}"), f"deal.{name}.{part}")
            for part, _ in _HAND_FIELDS
        ]
        deal[name] = PlayerDeal(*hands)
    return deal


def _check_counts(log: GameLog) -> None:
    errors: list[RulesError] = []
    for name in log.players:
        dealt = log.deal[name]
        for part, size in _HAND_FIELDS:
            got = len(getattr(dealt, part))
            if got != size:
                errors.append(
                    RuleViolation(
                        "bad_deal",
                        f"{name} was dealt {got} cards {part.replace('_', ' ')}, not {size}",
                        at=f"deal.{name}.{part}",
                    )
                )
    used = Counter(log.stock)
    for dealt in log.deal.values():
        used.update(dealt.face_down)
        used.update(dealt.face_up)
        used.update(dealt.hand)
    count = deck_count(len(log.players))
    wanted = Counter(decks(count))
    if used != wanted:
        missing = sorted((wanted - used).elements())
        extra = sorted((used - wanted).elements())
        errors.append(
            RuleViolation(
                "bad_deal",
                f"the deal and the stock are not exactly {count} decks without jokers: "
                f"missing {[str(c) for c in missing[:20]]}{'...' if len(missing) > 20 else ''}, "
                f"extra {[str(c) for c in extra[:20]]}{'...' if len(extra) > 20 else ''}",
                at="stock",
            )
        )
    raise_all(errors)


def read_log(record: Mapping[str, object], players: Sequence[str]) -> GameLog:
    """Read a full log: structure (exit 2), then every unknown card, then ``bad_deal``."""
    for name in _LOG_FIELDS:
        if name not in record:
            raise bad_record(f"{name} is missing", name)
    names = frozenset(players)
    raw_turns = record["turns"]
    if type(raw_turns) is not list:
        raise bad_record("turns must be a list", "turns")
    with Phase() as phase:
        deal = _read_deal(phase, record["deal"], players)
        stock = _cards(phase, record["stock"], "stock")
        turns = tuple(_read_turn(phase, raw, i, names) for i, raw in enumerate(raw_turns))
    log = GameLog(tuple(players), deal, stock, turns)
    _check_counts(log)
    return log


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
    players = player_names(field(record, "players", list), "players", minimum=2)
    has_short = record.get("finish_order") is not None
    has_log = any(record.get(name) is not None for name in _LOG_FIELDS)
    if has_short and has_log:
        raise MalformedRecordError(
            "bad_record", "a record holds either a finish_order or a log, not both", at=None
        )
    if has_short:
        return _short_result(record["finish_order"], players).as_result()
    return replay(read_log(record, players)).as_result()


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
            raise ValueError(f"a finish order names two or more distinct players: {order!r}")
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
