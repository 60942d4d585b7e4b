"""A random Spazz'u'mazz bot: from a seed and a number of players, a whole legal game.

Every player on turn picks uniformly at random among :meth:`Table.legal_turns`, which
lists every legal play (each rank that goes, each number of hand copies, each number of
matching face-up cards) and offers a pickup only when there is none, so the main rule
(must play) holds by construction; the table then applies the turn with the same checks
the replay uses.

Termination: a random game almost always ends (sweeps take cards out of the game and
each player's face-down cards only ever leave), but nothing forbids a long run of piles
going back and forth. So every game is capped at ``max_turns`` turns; a game that reaches
the cap is dropped and the cards re-dealt from the next seed in a fixed sequence derived
from ``seed``. Each attempt is bounded, and the chance of reaching the cap is tiny (none
in thousands of seeded games at 2 to 10 players), so the number of attempts is 1 in
practice and finite with probability 1; after ``max_attempts`` attempts the bot gives up
with a RuntimeError rather than loop for ever.

>>> record = play_game(7, players=3)
>>> record["players"]
['Anna', 'Bruno', 'Carla']
>>> from rules.spazzumazz import check_record
>>> check_record(record)["idiot"] in record["players"]
True
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from rules.cards import Card, decks
from rules.spazzumazz import (
    FACE_DOWN_CARDS,
    FACE_UP_CARDS,
    HAND_CARDS,
    GameLog,
    PlayerDeal,
    Table,
    Turn,
    deck_count,
)

__all__ = ["NAMES", "deal", "player_names", "play_game", "play_log"]

NAMES = ("Anna", "Bruno", "Carla", "Dario", "Elena", "Franco", "Gina", "Ivo", "Luca", "Marta")


def player_names(count: int) -> list[str]:
    """``count`` distinct names: the ten of :data:`NAMES`, then ``Player 11`` and on.

    >>> player_names(2), player_names(12)[-2:]
    (['Anna', 'Bruno'], ['Player 11', 'Player 12'])
    """
    if count < 2:
        raise ValueError("Spazz'u'mazz needs two or more players")
    return [NAMES[i] if i < len(NAMES) else f"Player {i + 1}" for i in range(count)]


def deal(rng: random.Random, players: Sequence[str]) -> tuple[dict[str, PlayerDeal], list[Card]]:
    """Shuffle the decks for ``players`` and deal: 3 face down, 3 face up, 5 in hand each."""
    cards = decks(deck_count(len(players)))
    rng.shuffle(cards)
    per_player = FACE_DOWN_CARDS + FACE_UP_CARDS + HAND_CARDS
    dealt = {}
    for i, name in enumerate(players):
        mine = cards[i * per_player : (i + 1) * per_player]
        dealt[name] = PlayerDeal(
            face_down=tuple(mine[:FACE_DOWN_CARDS]),
            face_up=tuple(mine[FACE_DOWN_CARDS : FACE_DOWN_CARDS + FACE_UP_CARDS]),
            hand=tuple(mine[FACE_DOWN_CARDS + FACE_UP_CARDS :]),
        )
    return dealt, cards[len(players) * per_player :]


def _attempt_seed(seed: int, attempt: int) -> int:
    return seed if attempt == 0 else seed * 1_000_003 + attempt


def play_log(
    seed: int,
    players: int | Sequence[str] = 4,
    *,
    max_turns: int | None = None,
    max_attempts: int = 1000,
) -> GameLog:
    """A whole random game, as a :class:`GameLog` that replays to its end.

    ``players`` is a count (names from :func:`player_names`) or the names in turn order.
    ``max_turns`` defaults to 2000 turns per player.
    """
    names = player_names(players) if isinstance(players, int) else list(players)
    if len(names) < 2 or len(set(names)) != len(names):
        raise ValueError("Spazz'u'mazz needs two or more distinct players")
    cap = max_turns if max_turns is not None else 2000 * len(names)
    for attempt in range(max_attempts):
        rng = random.Random(_attempt_seed(seed, attempt))
        dealt, stock = deal(rng, names)
        table = Table(names, dealt, stock)
        turns: list[Turn] = []
        while not table.finished and len(turns) < cap:
            turn = rng.choice(table.legal_turns())
            table.apply(turn, len(turns))
            turns.append(turn)
        if table.finished:
            return GameLog(tuple(names), dealt, tuple(stock), tuple(turns))
    raise RuntimeError(f"no game of seed {seed} ended within {cap} turns in {max_attempts} deals")


def play_game(
    seed: int,
    players: int | Sequence[str] = 4,
    *,
    max_turns: int | None = None,
) -> dict[str, object]:
    """A whole random game as a JSON record (canonical card notation)."""
    return play_log(seed, players, max_turns=max_turns).as_record()
