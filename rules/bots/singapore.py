"""Singapore hands from a seed: random deals and closing hands, as codes, cards or records.

* :func:`deal_codes` shuffles the 106 cards (two decks, two jokers) and deals ten each.
* :func:`closing_codes` builds a closer's hand from random valid combinations (sets and
  sequences, jokers within the house rule's limit, never two sequences of one suit, never
  more cards than the two decks hold), so it always closes; the loser's ten come from the
  rest of the decks.
* :func:`random_record` wraps either in a full record, optionally with declared melds,
  house rules and a stake with covers and side bets.
* :func:`table_records` plays a table's evening: records with stakes whose dealers and
  opponents follow RULES.md's winner-stays rotation (the winner stays and deals).

>>> record = random_record(7, stake=True)
>>> from rules.check import check_record
>>> check_record(record)[0]
0
>>> deal(1) == deal(1)
True
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

from rules.cards import Card
from rules.house_rules import JokerLimit
from rules.singapore import next_pair
from rules.singapore_search import JOKER_CODE, combination_kind, name

Codes = list[int]

#: The ways to split ten cards into combinations of three or more.
PARTITIONS: tuple[tuple[int, ...], ...] = ((10,), (3, 7), (4, 6), (5, 5), (3, 3, 4))
FULL_DECKS: Counter[int] = Counter({**{c: 2 for c in range(52)}, JOKER_CODE: 2})
NAMES = ("Anna", "Bruno", "Carla", "Dario", "Elena", "Franco", "Gina", "Ivo")


def _rng(seed: int | random.Random) -> random.Random:
    return seed if isinstance(seed, random.Random) else random.Random(seed)


def deal_codes(seed: int | random.Random) -> tuple[Codes, Codes]:
    """Shuffle two decks and two jokers; ten cards to the closer, ten to the loser."""
    rng = _rng(seed)
    cards = rng.sample(list(FULL_DECKS.elements()), 20)
    return cards[:10], cards[10:]


def _jokers_for(rng: random.Random, size: int, limit: JokerLimit, sequence: bool) -> int:
    most = {"half": size // 2, "one": 1, "free": size - 1}[limit]
    if sequence:
        most = min(most, size - 2)  # a sequence holds two naturals at least
    roll = rng.random()
    wanted = 0 if roll < 0.75 else 1 if roll < 0.93 else 2
    return min(wanted, most)


def _combination(
    rng: random.Random, size: int, limit: JokerLimit, free_suits: list[int]
) -> tuple[Codes, int | None]:
    """A random valid combination of ``size`` cards and the suit of its sequence, if any."""
    if free_suits and (size > 8 or rng.random() < 0.5):
        suit = rng.choice(free_suits)
        start = rng.randrange(13)
        jokers = _jokers_for(rng, size, limit, sequence=True)
        holes = set(rng.sample(range(size), jokers))
        cards = [JOKER_CODE if i in holes else suit * 13 + (start + i) % 13 for i in range(size)]
        return cards, suit
    rank = rng.randrange(13)
    jokers = _jokers_for(rng, size, limit, sequence=False)
    cards = [rng.randrange(4) * 13 + rank for _ in range(size - jokers)]
    return cards + [JOKER_CODE] * jokers, None


def closing_codes(
    seed: int | random.Random, limit: JokerLimit = "half"
) -> tuple[Codes, list[Codes]]:
    """A closing hand (shuffled) and the combinations it was built from."""
    rng = _rng(seed)
    while True:
        left = FULL_DECKS.copy()
        free_suits = [0, 1, 2, 3]
        melds: list[Codes] = []
        for size in rng.choice(PARTITIONS):
            for _ in range(20):
                cards, suit = _combination(rng, size, limit, free_suits)
                need = Counter(cards)
                if all(left[c] >= n for c, n in need.items()):
                    break
            else:
                break
            assert combination_kind(cards, limit) is not None, cards
            left -= need
            if suit is not None:
                free_suits.remove(suit)
            melds.append(cards)
        else:
            hand = [c for meld in melds for c in meld]
            rng.shuffle(hand)
            return hand, melds


def closing_deal_codes(
    seed: int | random.Random, limit: JokerLimit = "half"
) -> tuple[Codes, Codes, list[Codes]]:
    """A closing hand, a loser's ten from the rest of the decks, and the closing's melds."""
    rng = _rng(seed)
    hand, melds = closing_codes(rng, limit)
    rest = FULL_DECKS - Counter(hand)
    loser = rng.sample(list(rest.elements()), 10)
    return hand, loser, melds


def _to_cards(codes: Sequence[int]) -> list[Card]:
    return [Card.parse(name(c)) for c in codes]


def deal(seed: int | random.Random) -> tuple[list[Card], list[Card]]:
    """A random deal as cards: (closer's ten, loser's ten)."""
    winner, loser = deal_codes(seed)
    return _to_cards(winner), _to_cards(loser)


def random_stake(
    rng: random.Random,
    winner_is_dealer: bool | None = None,
    *,
    pair: tuple[str, str] | None = None,
    people: Sequence[str] = NAMES,
) -> dict[str, object]:
    """A sound stake: the dealer's quotas, covers within them, a few side bets. ``pair``:
    the (dealer, opponent) to play, the bystanders drawn from the rest of ``people``."""
    if pair is None:
        people = rng.sample(list(people), rng.randint(2, len(people)))
    else:
        rest = [p for p in people if p not in pair]
        people = [*pair, *rng.sample(rest, rng.randint(0, len(rest)))]
    dealer, opponent, *others = people
    quotas = rng.randint(1, 10)
    covers: dict[str, int] = {}
    room = quotas
    for person in [opponent, *others[:3]]:
        if room and rng.random() < 0.8:
            covers[person] = rng.randint(1, room)
            room -= covers[person]
    bystanders = others[3:] or others
    bets = []
    for _ in range(rng.randint(0, 2) if len(bystanders) >= 2 else 0):
        backer, against = rng.sample(bystanders, 2)
        bets.append(
            {"backer_of_winner": backer, "backer_of_loser": against, "quotas": rng.randint(1, 5)}
        )
    if winner_is_dealer is None:
        winner_is_dealer = rng.random() < 0.5
    return {
        "dealer": dealer,
        "opponent": opponent,
        "dealer_quotas": quotas,
        "covers": covers,
        "winner": dealer if winner_is_dealer else opponent,
        "side_bets": bets,
    }


def random_record(
    seed: int | random.Random,
    *,
    closing: bool = True,
    stake: bool = False,
    declare: bool = False,
    house_rules: dict[str, object] | None = None,
) -> dict[str, object]:
    """A full Singapore record. ``closing=False`` deals at random (which rarely closes);
    ``declare`` adds the melds the hand was built from."""
    rng = _rng(seed)
    limit = (house_rules or {}).get("joker_limit", "half")
    assert limit in ("half", "one", "free")
    record: dict[str, object] = {"game": "singapore"}
    if closing:
        hand, loser, melds = closing_deal_codes(rng, limit)
        if declare:
            record["melds"] = [[name(c) for c in meld] for meld in melds]
    else:
        hand, loser = deal_codes(rng)
    record["winner"] = [name(c) for c in hand]
    record["loser"] = [name(c) for c in loser]
    if house_rules:
        record["house_rules"] = dict(house_rules)
    if stake:
        record["stake"] = random_stake(rng)
    return record


def table_records(
    seed: int | random.Random,
    hands: int,
    *,
    seats: Sequence[str] = NAMES[:4],
    closing: bool = True,
    declare: bool = False,
) -> list[dict[str, object]]:
    """``hands`` records with stakes of one table seated ``seats`` (in rotation order), in
    turn: the first two seats play first, then each winner stays and deals against the
    next challenger (:func:`rules.singapore.next_pair`); bystanders are the other seats.
    ``closing`` and ``declare``: as for :func:`random_record`.

    >>> first, second = table_records(3, 2, seats="ABC")
    >>> (first["stake"]["dealer"], first["stake"]["opponent"])
    ('A', 'B')
    >>> second["stake"]["dealer"] == first["stake"]["winner"]
    True
    """
    rng = _rng(seed)
    dealer, opponent = seats[0], seats[1]
    records = []
    for _ in range(hands):
        record = random_record(rng, closing=closing, declare=declare)
        stake = random_stake(rng, pair=(dealer, opponent), people=seats)
        record["stake"] = stake
        records.append(record)
        winner = str(stake["winner"])
        dealer, opponent = next_pair(seats, winner, opponent if winner == dealer else dealer)
    return records
