"""Singapore arrangement search: hands per second, beside two gin-rummy meld searches.

    .venv/bin/python benchmarks/bench_singapore.py

What is timed is :func:`rules.singapore_search.search` on a hand already encoded as card
codes (each engine gets hands in its own encoding, built before the clock starts): the
complete answer the checker needs, i.e. the best arrangement (fewest combinations) with its
melds, or ``not_closed`` / ``same_suit_sequences``.

Peers (optional; ``pip install --no-deps rlcard numpy termcolor`` and
``pip install open_spiel``):

* rlcard's ``gin_rummy.utils.melding.get_best_meld_clusters`` (pure Python);
* OpenSpiel's C++ ``pyspiel.gin_rummy.GinRummyUtils(13, 4, 10).min_deadwood``.

The peer comparison uses one deck without jokers and hands in which no suit holds both the
king and the ace, so that gin's melds and Singapore's combinations are the same thing (no
circular sequence can form). Gin allows two runs of one suit, so "meldable" in gin is
"closes, or closes but for the same-suit rule" here; every hand's three answers are
checked to agree before anything is timed. Two kinds of hand: random deals, and fully
meldable hands built from random melds.

Then the full Singapore rules (two decks, two jokers, ``joker_limit`` "half"): random
deals and closing hands from the bot, and whole records through the checker.

Each figure is the best of a few rounds: other work may share the machine's two cores.
Targets: 10x rlcard on both kinds of peer hand, OpenSpiel's throughput on meldable hands;
150,000 random deals/s and 30,000 closing hands/s under the full rules.
"""

from __future__ import annotations

import json
import random
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rules.bots.singapore import closing_deal_codes, deal_codes, random_record  # noqa: E402
from rules.check import check_record  # noqa: E402
from rules.singapore_search import Status, search  # noqa: E402

HANDS = 20_000
ROUNDS = 5
INSTALL_RLCARD = ".venv/bin/pip install --no-deps rlcard numpy termcolor"
INSTALL_OPENSPIEL = ".venv/bin/pip install open_spiel"


def rate(function: Callable[[Any], object], hands: Sequence[Any], rounds: int = ROUNDS) -> float:
    """Hands per second, best of ``rounds``."""
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        for hand in hands:
            function(hand)
        best = min(best, time.perf_counter() - start)
    return len(hands) / best


# --- one-deck, joker-free hands without K and A of one suit ----------------------------------


def _no_wrap(hand: Iterable[int]) -> bool:
    cards = set(hand)
    return not any(suit * 13 in cards and suit * 13 + 12 in cards for suit in range(4))


def one_deck_deals(rng: random.Random, count: int) -> list[tuple[int, ...]]:
    hands: list[tuple[int, ...]] = []
    while len(hands) < count:
        hand = rng.sample(range(52), 10)
        if _no_wrap(hand):
            hands.append(tuple(hand))
    return hands


def one_deck_meldable(rng: random.Random, count: int) -> list[tuple[int, ...]]:
    """Hands made of gin melds: runs (A low, K high, no wrap) and sets of 3 or 4."""
    hands: list[tuple[int, ...]] = []
    while len(hands) < count:
        cards: set[int] = set()
        for size in rng.choice([(10,), (3, 7), (4, 6), (5, 5), (3, 3, 4), (3, 4, 3), (4, 3, 3)]):
            if size <= 4 and rng.random() < 0.5:
                rank = rng.randrange(13)
                meld = {suit * 13 + rank for suit in rng.sample(range(4), size)}
            else:
                suit, low = rng.randrange(4), rng.randrange(14 - size)
                meld = {suit * 13 + low + i for i in range(size)}
            if cards & meld:
                break
            cards |= meld
        else:
            if _no_wrap(cards):
                hand = list(cards)
                rng.shuffle(hand)
                hands.append(tuple(hand))
    return hands


def ours_meldable(hand: Sequence[int]) -> bool:
    return search(hand).status is not Status.NOT_CLOSED


class Peers:
    """The peers that are installed, with each hand converted to their encodings."""

    def __init__(self) -> None:
        self.missing: list[str] = []
        self.rlcard: Any = None
        self.openspiel: Any = None
        try:
            from rlcard.games.base import Card as RlcardCard
            from rlcard.games.gin_rummy.utils import melding, utils

            self.rlcard = (RlcardCard, melding, utils)
        except ImportError:
            self.missing.append(f"rlcard (install: {INSTALL_RLCARD})")
        try:
            import pyspiel

            self.openspiel = pyspiel.gin_rummy.GinRummyUtils(13, 4, 10)
        except ImportError:
            self.missing.append(f"OpenSpiel (install: {INSTALL_OPENSPIEL})")

    def rlcard_hands(self, hands: Sequence[Sequence[int]]) -> list[list[Any]]:
        card_class = self.rlcard[0]
        ranks = "A23456789TJQK"
        return [[card_class("SHDC"[c // 13], ranks[c % 13]) for c in hand] for hand in hands]

    def rlcard_meldable(self, hand: list[Any]) -> bool:
        _, melding, utils = self.rlcard
        best = melding.get_best_meld_clusters(hand)
        return bool(best) and utils.get_deadwood_count(hand, best[0]) == 0

    def openspiel_hands(self, hands: Sequence[Sequence[int]]) -> list[list[int]]:
        utils = self.openspiel
        index = {utils.card_string(i).upper(): i for i in range(52)}
        ranks = "A23456789TJQK"
        return [[index[ranks[c % 13] + "SHDC"[c // 13]] for c in hand] for hand in hands]


def peer_figures(peers: Peers, count: int = HANDS) -> dict[str, float]:
    rng = random.Random(20261202)
    result: dict[str, float] = {}
    for kind, hands in (
        ("random deals", one_deck_deals(rng, count)),
        ("meldable hands", one_deck_meldable(rng, count // 4)),
    ):
        ours = [ours_meldable(hand) for hand in hands]
        result[f"peer hands, {kind}: share meldable"] = round(sum(ours) / len(ours), 4)
        result[f"ours: {kind}/s (one deck)"] = round(rate(search, hands))
        if peers.rlcard is not None:
            converted = peers.rlcard_hands(hands[: len(hands) // 10])
            theirs = [peers.rlcard_meldable(hand) for hand in converted]
            assert theirs == ours[: len(converted)], f"rlcard disagrees on {kind}"
            result[f"rlcard: {kind}/s (one deck)"] = round(
                rate(peers.rlcard[1].get_best_meld_clusters, converted, rounds=2)
            )
        if peers.openspiel is not None:
            converted_ints = peers.openspiel_hands(hands)
            deadwood = peers.openspiel.min_deadwood
            theirs = [deadwood(hand) == 0 for hand in converted_ints]
            assert theirs == ours, f"OpenSpiel disagrees on {kind}"
            result[f"openspiel: {kind}/s (one deck)"] = round(rate(deadwood, converted_ints))
    return result


def full_rules_figures(count: int = HANDS) -> dict[str, float]:
    rng = random.Random(1106)
    deals = [tuple(deal_codes(rng)[0]) for _ in range(count)]
    closings = [tuple(closing_deal_codes(rng)[0]) for _ in range(count // 4)]
    assert all(search(hand).closed for hand in closings)
    records = [
        json.loads(json.dumps(random_record(seed, stake=True, declare=seed % 2 == 0)))
        for seed in range(2000)
    ]
    return {
        "singapore: random deals/s (two decks, jokers)": round(rate(search, deals)),
        "singapore: closing hands/s (two decks, jokers)": round(rate(search, closings)),
        "singapore: share of random deals that close": round(
            sum(search(hand).closed for hand in deals) / len(deals), 5
        ),
        "singapore: whole records checked/s (with stake)": round(rate(check_record, records)),
    }


def figures() -> dict[str, float]:
    """Every Singapore figure; peers that are not installed are left out (see
    :func:`missing_peers`)."""
    return {**peer_figures(Peers()), **full_rules_figures()}


def missing_peers() -> list[str]:
    return Peers().missing


if __name__ == "__main__":
    for note in missing_peers():
        print(f"missing peer: {note}")
    for key, value in figures().items():
        print(f"{key}: {value:,}")
