"""Singapore: closings, payouts, stakes and the winner-stays rotation (RULES.md, Singapore).

The typed API the web app calls, each returning a frozen value::

    >>> from rules.cards import Card
    >>> hand = [Card.parse(t) for t in "QH QD QC QS QH 3S 4S 5S 6S 7S".split()]
    >>> arrangement = best_arrangement(hand)
    >>> arrangement.combinations, arrangement.multiplier
    (2, 2)
    >>> [[str(c) for c in meld] for meld in arrangement.melds]
    [['3S', '4S', '5S', '6S', '7S'], ['QS', 'QH', 'QH', 'QD', 'QC']]
    >>> loser = [Card.parse(t) for t in "2H 3H 4H 5H 6H 7H 8H 9H 10H 2C".split()]
    >>> score = score_hand(arrangement, loser)
    >>> score.raw_points, score.rounded_points, score.points
    (56, 60, 120)
    >>> stake = Stake("Anna", "Bruno", 5, "Anna", {"Bruno": 2, "Carla": 1, "Dario": 2})
    >>> dict(settle_stake(stake, 70).balances)
    {'Anna': 350, 'Bruno': -140, 'Carla': -70, 'Dario': -140}
    >>> next_challenger("ABCD", winner="A", loser="B")
    'C'

:func:`check_record` reads a record (``rules.check`` calls it) and returns the result keys.

Rulings where RULES.md leaves room (each also in the report of the change that made it):

* A declared meld is a multiset: its order does not matter (a joker stands wherever the
  meld needs it). One natural card with jokers is a set, never a sequence.
* A declared arrangement is "as good as the best" when it has as many combinations (a
  10-card sequence is one combination; a set of ten is too, and both cannot come from one
  hand). Then it is the one reported, in the declared order, its cards made canonical.
* The best arrangement is reported with sequences first (longest first, then by suit
  S H D C), then sets by rank (A to K); a sequence lists its ranks in order from its
  start, jokers in the places they take; a set lists suits S H D C, jokers last.
* ``joker_sequence_multipliers``: a 10-card sequence pays x5 without jokers, x4 with one,
  x3 with two; any other closing pays as usual.
* Stakes: quotas below 1 or above :data:`MAX_QUOTAS` (1,000,000, as RULES.md says) are
  ``bad_stake``, each reported at its field; a cover or side bet of a non-integer
  (``true`` and ``2.0`` included) is ``bad_record`` (exit 2), and so are names that are
  not non-empty strings (empty or only white space). Messages name a quota of more than
  64 bits as "a very large integer", so no number a record can hold stops the output.
  A cover by the opponent is optional. Balances list the dealer, the opponent, the
  coverers in their order, then the side bettors in theirs, each once.
* Declared melds, in RULES.md's steps: every combination first (one ``bad_meld`` for
  each bad one, and nothing more); then the ten cards (one ``melds_mismatch``); then the
  same-suit rule (one ``same_suit_sequences`` for each sequence of a suit already used,
  ``at`` the later one).
* Rotation: the loser himself comes back only when no other seat can (two players "simply
  play on"); a winner who is sitting out, a player not seated, or seats with repeats are
  errors (:class:`RotationError`). :func:`is_in_turn` compares the pair, not who deals.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from operator import eq
from types import MappingProxyType

from rules import singapore_search as engine
from rules.cards import JOKER, Card, Rank, Suit, parse_cards, token_codes
from rules.errors import RulesError, RuleViolation, describe, raise_all
from rules.house_rules import SingaporeRules, parse_house_rules
from rules.records import Phase, bad_record, is_int
from rules.singapore_search import JOKER_CODE, Status

__all__ = [
    "Arrangement",
    "DEFAULT_RULES",
    "HAND_SIZE",
    "MAX_QUOTAS",
    "NotClosedError",
    "RotationError",
    "Score",
    "SideBet",
    "Stake",
    "Settlement",
    "Transfer",
    "best_arrangement",
    "card_points",
    "check_record",
    "is_in_turn",
    "multiplier",
    "next_challenger",
    "next_pair",
    "score_hand",
    "settle_stake",
]

HAND_SIZE = 10
#: The most quotas a stake, a cover or a side bet may hold (RULES.md: above is ``bad_stake``).
MAX_QUOTAS = 1_000_000
#: RULES.md's defaults for every house rule.
DEFAULT_RULES = SingaporeRules()

_SUITS = tuple(Suit)
_CODE_OF: dict[Card, int] = {
    **{Card(rank, suit): i * 13 + rank - 1 for i, suit in enumerate(_SUITS) for rank in Rank},
    JOKER: JOKER_CODE,
}
_CARD_OF: dict[int, Card] = {code: card for card, code in _CODE_OF.items()}


# Card.parse hands out one shared instance per canonical card, so most cards are found by
# identity; hashing a Card (two enums) costs far more than the search of a hand.
_CODE_BY_ID: dict[int, int] = {id(Card.parse(str(card))): code for card, code in _CODE_OF.items()}


def _codes(cards: Sequence[Card]) -> list[int]:
    by_id = _CODE_BY_ID.get
    codes = [by_id(id(card), -1) for card in cards]
    if -1 in codes:
        codes = [_CODE_OF[card] for card in cards]
    return codes


def _cards(codes: Sequence[int]) -> tuple[Card, ...]:
    return tuple(_CARD_OF[code] for code in codes)


# ---------------------------------------------------------------------------------------
# Arrangements


@dataclass(frozen=True, slots=True)
class Arrangement:
    """A full arrangement of a closer's ten cards into combinations."""

    melds: tuple[tuple[Card, ...], ...]
    multiplier: int

    @property
    def combinations(self) -> int:
        return len(self.melds)

    def as_lists(self) -> list[list[str]]:
        return [[str(card) for card in meld] for meld in self.melds]


class NotClosedError(RuleViolation):
    """The closer's hand does not close: ``not_closed`` or ``same_suit_sequences``."""


def multiplier(melds: Sequence[Sequence[Card]], rules: SingaporeRules = DEFAULT_RULES) -> int:
    """The closing's multiplier: x1 for three combinations, x2 for two (or one that is not
    a sequence), x5 for a 10-card sequence (x4/x3 with one/two jokers under the house rule
    ``joker_sequence_multipliers``).

    >>> multiplier([[Card.parse(t) for t in "AS 2S 3S 4S 5S 6S 7S 8S JK 10S".split()]],
    ...            SingaporeRules(joker_sequence_multipliers=True))
    4
    """
    if len(melds) >= 3:
        return 1
    if len(melds) == 2:
        return 2
    (meld,) = melds
    if engine.combination_kind(_codes(meld), rules.joker_limit) != "sequence":
        return 2
    if not rules.joker_sequence_multipliers:
        return 5
    return (5, 4, 3)[min(2, sum(card.is_joker for card in meld))]


def best_arrangement(cards: Sequence[Card], rules: SingaporeRules = DEFAULT_RULES) -> Arrangement:
    """The arrangement the payout uses: a 10-card sequence first, then fewest combinations.

    Raises :class:`NotClosedError` (``not_closed``, or ``same_suit_sequences`` when every
    full arrangement holds two sequences of one suit). ``cards`` may hold at most two
    copies of a natural card and two jokers (the game's decks); more is a ValueError.
    """
    codes = _codes(cards)
    counts = Counter(codes)
    if any(n > 2 for n in counts.values()):
        raise ValueError("Singapore has two decks: at most two copies of a card, two jokers")
    found = engine.search(codes, rules.joker_limit)
    if found.status is not Status.CLOSED:
        raise _not_closed(found.status)
    melds = tuple(_cards(meld) for meld in found.melds)
    return Arrangement(melds, multiplier(melds, rules))


# ---------------------------------------------------------------------------------------
# Scoring


@dataclass(frozen=True, slots=True)
class Score:
    """What each losing quota pays for a closing (RULES.md, "What the loser pays")."""

    raw_points: int
    rounded_points: int
    multiplier: int
    points: int


def card_points(card: Card) -> int:
    """Joker 15, ace 11, J Q K 10, others their face value.

    >>> [card_points(Card.parse(t)) for t in ("JK", "AS", "KD", "7C")]
    [15, 11, 10, 7]
    """
    if card.rank is None:
        return 15
    if card.rank == Rank.ACE:
        return 11
    return min(10, int(card.rank))


def _round(points: int, rounding: str) -> int:
    if rounding == "nearest":
        return (points + 5) // 10 * 10
    if rounding == "up":
        return -(-points // 10) * 10
    return points


def score_hand(
    arrangement: Arrangement | int,
    loser: Sequence[Card],
    rules: SingaporeRules = DEFAULT_RULES,
) -> Score:
    """Score the loser's cards against a closing (an :class:`Arrangement` or a multiplier).

    >>> loser = [Card.parse(t) for t in "AH AD KH KD QH 3C 4C 5C 4D 2D".split()]
    >>> score_hand(2, loser, SingaporeRules(cap_applies_to="total"))
    Score(raw_points=70, rounded_points=70, multiplier=2, points=100)
    """
    factor = arrangement if isinstance(arrangement, int) else arrangement.multiplier
    return _scored(sum(card_points(card) for card in loser), factor, rules)


def _scored(raw: int, factor: int, rules: SingaporeRules) -> Score:
    """The loser's ``raw`` card points rounded, multiplied by ``factor`` and capped as
    ``rules`` say (the cap on the base before the multiplier, or on the total)."""
    rounded = _round(raw, rules.rounding)
    cap = rules.cap
    if rules.cap_applies_to == "base":
        points = (rounded if cap is None else min(rounded, cap)) * factor
    else:
        points = rounded * factor if cap is None else min(rounded * factor, cap)
    return Score(raw, rounded, factor, points)


# ---------------------------------------------------------------------------------------
# Stakes


@dataclass(frozen=True, slots=True)
class SideBet:
    """A bet between two bystanders: the loser's backer pays ``points * quotas``."""

    backer_of_winner: str
    backer_of_loser: str
    quotas: int


@dataclass(frozen=True, slots=True)
class Stake:
    """The quotas riding on one hand."""

    dealer: str
    opponent: str
    dealer_quotas: int
    winner: str
    #: Quotas covered, by name; the opponent's own cover is his entry here, if any.
    covers: Mapping[str, int] = field(default_factory=dict)
    side_bets: tuple[SideBet, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "covers", MappingProxyType(dict(self.covers)))
        object.__setattr__(self, "side_bets", tuple(self.side_bets))

    def violations(self) -> list[RuleViolation]:
        """Every ``bad_stake`` of RULES.md this stake breaks (empty when it is sound)."""
        errors: list[RuleViolation] = []

        def bad(message: str, at: str) -> None:
            errors.append(RuleViolation("bad_stake", message, at=at))

        if self.dealer == self.opponent:
            bad("the dealer and the opponent must be two people", "stake.opponent")
        if self.winner not in (self.dealer, self.opponent):
            bad(
                f"the winner {describe(self.winner)} is neither the dealer nor the opponent",
                "stake.winner",
            )
        quotas_at = [("the dealer's stake", self.dealer_quotas, "stake.dealer_quotas")]
        quotas_at += [
            (f"{name}'s cover", quotas, f"stake.covers.{name}")
            for name, quotas in self.covers.items()
        ]
        quotas_at += [
            (f"side bet {index}", bet.quotas, f"stake.side_bets[{index}]")
            for index, bet in enumerate(self.side_bets)
        ]
        for what, quotas, at in quotas_at:
            if not 1 <= quotas <= MAX_QUOTAS:
                bad(
                    f"{what} must be 1 to {MAX_QUOTAS:,} quotas, not {describe(quotas)}"[:300],
                    at,
                )
        if self.dealer in self.covers:
            bad("the dealer cannot cover his own quotas", f"stake.covers.{self.dealer}")
        covered = sum(self.covers.values())
        if covered > self.dealer_quotas:
            bad(
                f"the covers ({describe(covered)}) exceed the dealer's "
                f"{describe(self.dealer_quotas)} quotas",
                "stake.covers",
            )
        players = (self.dealer, self.opponent)
        for index, bet in enumerate(self.side_bets):
            at = f"stake.side_bets[{index}]"
            if bet.backer_of_winner == bet.backer_of_loser:
                bad(f"side bet {index} has {bet.backer_of_winner} on both sides"[:300], at)
            for name in (bet.backer_of_winner, bet.backer_of_loser):
                if name in players:
                    bad(f"side bet {index} involves {name}, who plays the hand"[:300], at)
        return errors


@dataclass(frozen=True, slots=True)
class Transfer:
    """``points`` passing from one person to another."""

    payer: str
    payee: str
    points: int

    def as_dict(self) -> dict[str, object]:
        return {"from": self.payer, "to": self.payee, "points": self.points}


@dataclass(frozen=True, slots=True)
class Settlement:
    """A hand's transfers (one per cover, then one per side bet) and everyone's balance."""

    transfers: tuple[Transfer, ...]
    balances: Mapping[str, int]


def settle_stake(stake: Stake, points: int) -> Settlement:
    """Who pays whom for a hand worth ``points`` per quota; raises ``bad_stake``.

    The balances always sum to zero and name everyone in the stake.
    """
    raise_all(list(stake.violations()))
    dealer_won = stake.winner == stake.dealer
    transfers: list[Transfer] = []
    for name, quotas in stake.covers.items():
        amount = points * quotas
        if dealer_won:
            transfers.append(Transfer(name, stake.dealer, amount))
        else:
            transfers.append(Transfer(stake.dealer, name, amount))
    for bet in stake.side_bets:
        transfers.append(Transfer(bet.backer_of_loser, bet.backer_of_winner, points * bet.quotas))
    balances: dict[str, int] = {stake.dealer: 0, stake.opponent: 0}
    for name in stake.covers:
        balances.setdefault(name, 0)
    for bet in stake.side_bets:
        balances.setdefault(bet.backer_of_winner, 0)
        balances.setdefault(bet.backer_of_loser, 0)
    for transfer in transfers:
        balances[transfer.payer] -= transfer.points
        balances[transfer.payee] += transfer.points
    return Settlement(tuple(transfers), MappingProxyType(balances))


# ---------------------------------------------------------------------------------------
# The winner-stays rotation


class RotationError(RulesError):
    """Seats and players that make no rotation (a player not seated, repeated seats...)."""

    exit_code = 1

    def __init__(self, message: str) -> None:
        super().__init__("bad_rotation", message)


def next_challenger(
    seats: Sequence[str], winner: str, loser: str, sitting_out: Collection[str] = ()
) -> str:
    """Who plays the winner next: the first seat to the loser's right (seat ``i+1`` is to
    the right of seat ``i``, wrapping) that is neither the winner nor sitting out; the
    loser himself only when nobody else can.

    >>> seats = ["A", "B", "C", "D"]
    >>> next_challenger(seats, "A", "B"), next_challenger(seats, "C", "A")
    ('C', 'B')
    >>> next_challenger(["A", "B"], "B", "A")
    'A'
    """
    seats = list(seats)
    if len(set(seats)) != len(seats):
        raise RotationError("a seat list names someone twice")
    for role, person in (("winner", winner), ("loser", loser)):
        if person not in seats:
            raise RotationError(f"the {role} {describe(person)} is not seated at the table")
    if winner == loser:
        raise RotationError("the winner and the loser must be two people")
    if winner in sitting_out:
        raise RotationError(f"the winner {describe(winner)} stays to deal: he cannot sit out")
    start = seats.index(loser)
    for step in range(1, len(seats) + 1):
        candidate = seats[(start + step) % len(seats)]
        if candidate != winner and candidate not in sitting_out:
            return candidate
    raise RotationError("nobody is left to play the winner")


def next_pair(
    seats: Sequence[str], winner: str, loser: str, sitting_out: Collection[str] = ()
) -> tuple[str, str]:
    """The next hand's (dealer, opponent): the winner deals against the next challenger.

    >>> next_pair("ABCD", "B", "C")
    ('B', 'D')
    """
    return winner, next_challenger(seats, winner, loser, sitting_out)


def is_in_turn(
    seats: Sequence[str],
    previous_winner: str,
    previous_loser: str,
    players: Collection[str],
    sitting_out: Collection[str] = (),
) -> bool:
    """Whether a hand between ``players`` is the one the rotation calls for next.

    >>> is_in_turn("ABCD", "A", "B", {"C", "A"}), is_in_turn("ABCD", "A", "B", {"A", "D"})
    (True, False)
    """
    return set(players) == set(next_pair(seats, previous_winner, previous_loser, sitting_out))


# ---------------------------------------------------------------------------------------
# The record checker


def check_record(record: dict[str, object]) -> dict[str, object]:
    """Check a Singapore record (RULES.md "Details of the records / Singapore") and return
    its result keys; raises the :mod:`rules.errors` family.

    The checker's hot path: cards are looked up as codes (canonical tokens by one dict
    look-up each) and searched, scored and printed as codes, with the same checks and
    results as the typed API above (:func:`best_arrangement`, :func:`score_hand`).
    """
    rules = parse_house_rules("singapore", record.get("house_rules"))
    assert isinstance(rules, SingaporeRules)
    declared_raw = _melds_structure(record.get("melds"))
    stake = _stake_structure(record.get("stake"))
    for name in ("winner", "loser"):
        if name not in record:
            raise bad_record(f"{name} is missing", name)
    # Cards: every token of every field, all unknown cards reported together.
    winner = token_codes(record["winner"], _CODE_OF_TOKEN)
    loser = token_codes(record["loser"], _CODE_OF_TOKEN)
    declared_codes = [token_codes(meld, _CODE_OF_TOKEN) for meld in declared_raw or ()]
    declared: list[list[Card] | None] = [
        None if codes is None else list(_cards(codes)) for codes in declared_codes
    ]
    if winner is None or loser is None or None in declared:
        with Phase() as cards_phase:
            winner_cards = cards_phase.run(parse_cards, record["winner"], "winner")
            loser_cards = cards_phase.run(parse_cards, record["loser"], "loser")
            declared = [
                cards_phase.run(parse_cards, meld, f"melds[{index}]")
                for index, meld in enumerate(declared_raw or [])
            ]
        assert winner_cards is not None and loser_cards is not None
        winner, loser = _codes(winner_cards), _codes(loser_cards)
    if len(winner) != HAND_SIZE or len(loser) != HAND_SIZE:
        with Phase() as sizes:
            for name, hand in (("winner", winner), ("loser", loser)):
                if len(hand) != HAND_SIZE:
                    sizes.add(
                        RuleViolation(
                            "hand_size",
                            f"{name} holds {len(hand)} cards, not {HAND_SIZE}",
                            at=name,
                        )
                    )
    both = sorted(winner + loser)
    if any(map(eq, both, both[2:])):  # some card three times or more
        _too_many_copies(both)
    found = engine.search(winner, rules.joker_limit)
    if found.status is not Status.CLOSED:
        raise _not_closed(found.status)
    best = found.melds
    factor = _multiplier(best, rules)
    used = [[_NAME_OF[code] for code in meld] for meld in best]
    combinations = len(best)
    if declared_raw is not None:
        best_cards = Arrangement(tuple(_cards(meld) for meld in best), factor)
        arrangement = _check_declared(
            [meld for meld in declared if meld is not None], list(_cards(winner)), best_cards, rules
        )
        used, combinations = arrangement.as_lists(), arrangement.combinations
    score = _score(factor, loser, rules)
    result: dict[str, object] = {
        "melds": used,
        "combinations": combinations,
        "multiplier": score.multiplier,
        "raw_points": score.raw_points,
        "rounded_points": score.rounded_points,
        "points": score.points,
    }
    if stake is not None:
        settlement = settle_stake(stake, score.points)
        result["transfers"] = [t.as_dict() for t in settlement.transfers]
        result["balances"] = dict(settlement.balances)
    return result


#: Canonical tokens to codes: most records spell every card canonically.
_CODE_OF_TOKEN: dict[str, int] = {str(card): code for card, code in _CODE_OF.items()}
_NAME_OF: dict[int, str] = {code: str(card) for card, code in _CODE_OF.items()}
#: Each code's card points (RULES.md: joker 15, ace 11, J Q K 10, others face value).
_POINTS: tuple[int, ...] = tuple(
    15 if code == JOKER_CODE else 11 if code % 13 == 0 else min(10, code % 13 + 1)
    for code in range(JOKER_CODE + 1)
)


def _too_many_copies(codes: list[int]) -> None:
    """``too_many_copies`` for every card the two hands hold more than twice."""
    allowed = 2
    with Phase() as copies:
        for code, count in sorted(Counter(codes).items()):
            if count > allowed:
                card = _CARD_OF[code]
                what = "jokers" if card.is_joker else f"copies of {card}"
                copies.add(
                    RuleViolation(
                        "too_many_copies",
                        f"the two hands hold {count} {what}; two decks have {allowed}",
                        at=str(card),
                    )
                )


def _not_closed(status: Status) -> NotClosedError:
    if status is Status.SAME_SUIT_SEQUENCES:
        return NotClosedError(
            "same_suit_sequences",
            "the winner's cards close only with two sequences of one suit, which is not allowed",
        )
    return NotClosedError(
        "not_closed", "the winner's 10 cards cannot all be arranged into combinations"
    )


def _multiplier(melds: Sequence[Sequence[int]], rules: SingaporeRules) -> int:
    """:func:`multiplier` on codes."""
    if len(melds) >= 3:
        return 1
    if len(melds) == 2:
        return 2
    (meld,) = melds
    if engine.combination_kind(meld, rules.joker_limit) != "sequence":
        return 2
    if not rules.joker_sequence_multipliers:
        return 5
    return (5, 4, 3)[min(2, list(meld).count(JOKER_CODE))]


def _score(factor: int, loser: Sequence[int], rules: SingaporeRules) -> Score:
    """:func:`score_hand` on codes."""
    return _scored(sum(map(_POINTS.__getitem__, loser)), factor, rules)


def _check_declared(
    declared: list[list[Card]], winner: list[Card], best: Arrangement, rules: SingaporeRules
) -> Arrangement:
    """Validate the declared melds in RULES.md's steps, each only once the one before has
    passed: every combination (``bad_meld``, one error each), then the ten cards
    (``melds_mismatch``), then the same-suit rule (``same_suit_sequences``). The declared
    arrangement is the one reported if it is as good as the best."""
    errors: list[RulesError] = []
    kinds: list[str | None] = []
    for index, meld in enumerate(declared):
        kind = engine.combination_kind(_codes(meld), rules.joker_limit)
        kinds.append(kind)
        if kind is None:
            text = " ".join(str(card) for card in meld) or "an empty meld"
            errors.append(
                RuleViolation(
                    "bad_meld",
                    f"melds[{index}] ({text}) is neither a set nor a sequence"
                    f" under joker_limit {rules.joker_limit!r}",
                    at=f"melds[{index}]",
                )
            )
    raise_all(errors)
    laid = Counter(code for meld in declared for code in _codes(meld))
    held = Counter(_codes(winner))
    if laid != held:
        missing = Counter(_cards(list((held - laid).elements())))
        extra = Counter(_cards(list((laid - held).elements())))
        parts = []
        if missing:
            parts.append("missing " + " ".join(str(c) for c in sorted(missing.elements())))
        if extra:
            parts.append("not in the hand " + " ".join(str(c) for c in sorted(extra.elements())))
        raise RuleViolation(
            "melds_mismatch",
            "the declared melds do not use exactly the winner's 10 cards: " + "; ".join(parts),
            at="melds",
        )
    sequence_suits: dict[Suit, int] = {}
    for index, (meld, meld_kind) in enumerate(zip(declared, kinds, strict=True)):
        if meld_kind != "sequence":
            continue
        suit = next(card.suit for card in meld if card.suit is not None)
        if suit in sequence_suits:
            errors.append(
                RuleViolation(
                    "same_suit_sequences",
                    f"melds[{sequence_suits[suit]}] and melds[{index}] are two sequences"
                    f" of {suit.name.lower()}",
                    at=f"melds[{index}]",
                )
            )
        else:
            sequence_suits[suit] = index
    raise_all(errors)
    melds = tuple(tuple(meld) for meld in declared)
    if len(melds) == best.combinations:
        return Arrangement(melds, multiplier(melds, rules))
    return best


def _melds_structure(value: object) -> list[object] | None:
    if value is None:
        return None
    if not isinstance(value, list):
        raise bad_record("melds must be a list of lists of cards", "melds")
    for index, meld in enumerate(value):
        if not isinstance(meld, list):
            raise bad_record(f"melds[{index}] must be a list of cards", f"melds[{index}]")
    return value


def _name(value: object, at: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise bad_record(f"{at} must be a non-empty name, not {describe(value)}", at)
    return value


def _quota(value: object, at: str) -> int:
    if not is_int(value):
        raise bad_record(f"{at} must be an integer number of quotas, not {describe(value)}", at)
    assert isinstance(value, int)
    return value


def _stake_structure(value: object) -> Stake | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise bad_record("stake must be an object", "stake")
    for key in ("dealer", "opponent", "dealer_quotas", "winner"):
        if key not in value:
            raise bad_record(f"stake.{key} is missing", f"stake.{key}")
    dealer = _name(value["dealer"], "stake.dealer")
    opponent = _name(value["opponent"], "stake.opponent")
    winner = _name(value["winner"], "stake.winner")
    dealer_quotas = _quota(value["dealer_quotas"], "stake.dealer_quotas")
    covers_raw = value.get("covers")
    covers: dict[str, int] = {}
    if covers_raw is not None:
        if not isinstance(covers_raw, dict):
            raise bad_record("stake.covers must be an object of name: quotas", "stake.covers")
        for name, quotas in covers_raw.items():
            at = f"stake.covers.{describe(name) if not isinstance(name, str) else name}"
            covers[_name(name, at)] = _quota(quotas, at)
    bets_raw = value.get("side_bets")
    bets: list[SideBet] = []
    if bets_raw is not None:
        if not isinstance(bets_raw, list):
            raise bad_record("stake.side_bets must be a list", "stake.side_bets")
        for index, bet in enumerate(bets_raw):
            at = f"stake.side_bets[{index}]"
            if not isinstance(bet, dict):
                raise bad_record(f"{at} must be an object", at)
            for key in ("backer_of_winner", "backer_of_loser", "quotas"):
                if key not in bet:
                    raise bad_record(f"{at}.{key} is missing", f"{at}.{key}")
            bets.append(
                SideBet(
                    _name(bet["backer_of_winner"], f"{at}.backer_of_winner"),
                    _name(bet["backer_of_loser"], f"{at}.backer_of_loser"),
                    _quota(bet["quotas"], f"{at}.quotas"),
                )
            )
    return Stake(dealer, opponent, dealer_quotas, winner, covers, tuple(bets))
