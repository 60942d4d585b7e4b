"""A Sputo bot: deals a game from a seed and plays it to the end at random, legally.

>>> record = random_record(7, variant="single_deck", options={"splash": True})
>>> from rules.check import check_record
>>> exit_code, result = check_record(record)
>>> exit_code, result["winner"] == random_game(7, variant="single_deck",
...                                             options={"splash": True}).outcome.winner
(0, True)

The same seed (and arguments) always gives the same game. The variant and options,
when not given, are drawn from the seed too.

How the bot plays. Both players act through one :class:`rules.sputo.Game`, so every
move is one the checker accepts. At each step:

* after a flip that found both stocks empty it restocks: the centre cards, shuffled and
  cut in two (the cut may be uneven);
* a player may call splash when the option is on and the centre tops match (and his
  opponent is not already blocked);
* otherwise it plays a random legal card of either player; in ``modern`` and
  ``single_deck`` the players sometimes "agree" to flip although a play exists (as real
  players do); in ``classic`` a flip comes only when neither player can play.

Termination. Piles only shrink, and a flip with both stocks empty reshuffles the centre
into new stocks, so a game ends unless no card outside the piles ever fits any pile
top (possible, if very rare, e.g. without jokers). A game that reaches
``max_events`` events is therefore abandoned and re-dealt from the same random stream
(still deterministic per seed); after ``MAX_DEALS`` abandoned deals the bot gives up
with ``RuntimeError`` rather than loop, which in practice never happens.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from rules.cards import STANDARD_DECK, Card, decks
from rules.sputo import (
    Deal,
    Event,
    Flip,
    Game,
    Options,
    Outcome,
    Play,
    PlayerDeal,
    Restock,
    Splash,
    Variant,
)

__all__ = [
    "MAX_DEALS",
    "MAX_EVENTS",
    "BotGame",
    "deal_cards",
    "random_game",
    "random_record",
]

PLAYERS = ("Anna", "Bruno")
MAX_EVENTS = 3000
MAX_DEALS = 100

#: Chance that the players flip although a play exists (not in classic).
FLIP_ANYWAY = 0.08
#: Chance that a player calls splash when the tops match.
SPLASH_CHANCE = 0.5


@dataclass(frozen=True, slots=True)
class BotGame:
    """A finished bot game: everything a full record holds, plus its outcome."""

    variant: Variant
    options: Options
    deal: Deal
    events: tuple[Event, ...]
    outcome: Outcome

    def as_record(self) -> dict[str, object]:
        """The game as a Sputo record (``python -m rules check`` accepts it)."""
        return {
            "game": "sputo",
            "variant": self.variant.value,
            "options": self.options.as_dict(),
            "players": list(self.deal.players),
            "deal": self.deal.as_dict(),
            "events": [event.as_dict() for event in self.events],
        }


def _piles(cards: Sequence[Card], layout: Sequence[int]) -> tuple[tuple[Card, ...], ...]:
    piles = []
    start = 0
    for size in layout:
        piles.append(tuple(cards[start : start + size]))
        start += size
    return tuple(piles)


def deal_cards(rng: random.Random, variant: Variant, players: Sequence[str] = PLAYERS) -> Deal:
    """Shuffle and deal as the texts say; sometimes with the piles in another order."""
    layout = list(variant.layout)
    total = variant.layout_total
    if variant is Variant.CLASSIC:
        parts = []
        for _ in players:
            cards = list(STANDARD_DECK)
            rng.shuffle(cards)
            parts.append(cards)
    else:
        cards = decks(variant.decks, jokers_per_deck=2)
        rng.shuffle(cards)
        # Cut near the middle; each part must at least fill its owner's piles.
        middle = len(cards) // 2
        cut = rng.randint(max(total, middle - 6), min(len(cards) - total, middle + 6))
        parts = [cards[:cut], cards[cut:]]
    hands = []
    for part in parts:
        order = layout[:]
        if rng.random() < 0.2:
            rng.shuffle(order)
        hands.append(PlayerDeal(piles=_piles(part, order), stock=tuple(part[total:])))
    return Deal(players=(players[0], players[1]), hands=(hands[0], hands[1]))


def _variant(value: Variant | str | None, rng: random.Random) -> Variant:
    if value is None:
        return rng.choice(list(Variant))
    return value if isinstance(value, Variant) else Variant.parse(value)


def _options(value: Options | Mapping[str, bool] | None, rng: random.Random) -> Options:
    if value is None:
        return Options(suit_match=rng.random() < 0.3, splash=rng.random() < 0.5)
    return value if isinstance(value, Options) else Options.parse(dict(value))


def random_game(
    seed: int,
    *,
    variant: Variant | str | None = None,
    options: Options | Mapping[str, bool] | None = None,
    players: Sequence[str] = PLAYERS,
    max_events: int = MAX_EVENTS,
    flip_anyway: float = FLIP_ANYWAY,
) -> BotGame:
    """Deal and play a whole game at random; deterministic for a given seed.

    ``flip_anyway`` is the chance that the players flip although a play exists (not in
    ``classic``); a high one runs the stocks out, so splits and restocks come up.
    """
    rng = random.Random(seed)
    chosen = _variant(variant, rng)
    chosen_options = _options(options, rng)
    for _ in range(MAX_DEALS):
        deal = deal_cards(rng, chosen, players)
        game = _play(rng, deal, chosen, chosen_options, max_events, flip_anyway)
        if game is not None:
            return game
    raise RuntimeError(f"no Sputo game finished within {max_events} events in {MAX_DEALS} deals")


def random_record(
    seed: int,
    *,
    variant: Variant | str | None = None,
    options: Options | Mapping[str, bool] | None = None,
    players: Sequence[str] = PLAYERS,
) -> dict[str, object]:
    """:func:`random_game` as a record."""
    return random_game(seed, variant=variant, options=options, players=players).as_record()


def _play(
    rng: random.Random,
    deal: Deal,
    variant: Variant,
    options: Options,
    max_events: int,
    flip_anyway: float,
) -> BotGame | None:
    game = Game(deal, variant, options)
    events: list[Event] = []
    t = rng.randint(200, 1000)
    names = deal.players

    def emit(event: Event) -> None:
        game.apply(event, len(events))
        events.append(event)

    emit(Flip(t))
    while game.winner is None:
        if len(events) >= max_events:
            return None
        t += rng.randint(50, 1500)
        if game.awaiting_restock:
            cards = game.center_cards
            rng.shuffle(cards)
            cut = rng.randint(len(cards) // 2 - 2, len(cards) // 2 + 2)
            cut = min(max(cut, 0), len(cards))
            emit(Restock(((names[0], tuple(cards[:cut])), (names[1], tuple(cards[cut:]))), t))
            continue
        if game.may_splash() and rng.random() < SPLASH_CHANCE:
            callers = [seat for seat in (0, 1) if not game.blocked[1 - seat]]
            if callers:
                emit(Splash(names[rng.choice(callers)], t))
                continue
        plays = [(seat, *play) for seat in (0, 1) for play in game.legal_plays(seat)]
        if plays and (variant is Variant.CLASSIC or rng.random() >= flip_anyway):
            seat, pile, center = rng.choice(plays)
            emit(Play(names[seat], pile, center, t))
        else:
            emit(Flip(t))
    outcome = game.outcome()
    assert outcome is not None
    return BotGame(variant, options, deal, tuple(events), outcome)
