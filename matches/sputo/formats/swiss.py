"""A Swiss round: players paired by score with no rematch, the bye to the lowest player who
has had none, forbidden pairings kept apart, and each pairing explained.

**Which engine, and why.** The pairing is the FIDE Dutch system (C.04.3) of
``caissify-pairings`` (Apache-2.0, maintained, cross-checked against the FIDE-endorsed
bbpPairings on 70,000 rounds without a discrepancy): a maximum-weight matching over the
score groups, which is what "paired by score with no rematch" means when done right, and
what lichess's and the federations' pairings are judged against. Writing our own would be
a greedy pairing that paints itself into corners in the last rounds. What Sputo is not,
the engine is told plainly:

- the seeds are its starting numbers (the top seed first) and stand in for ratings;
- a win is a point (a bye too, as in chess: the player had no one to beat), a loss none;
  Sputo has no draw;
- chess colours become the seats: A is "white". Sputo does not care who sits where, so the
  colour preferences only break ties between equally good pairings;
- the floats (paired up or down a score group) are derived from the rounds played, as the
  engine's contract asks.

**Forbidden pairings** (a couple, a family: the admin's) are given to the engine as pairs
that have met already, which it never pairs again. **When no pairing avoids a rematch**
(five players, a fifth round) the engine answers with byes for all; then rematches are let
in, the pairs that met least first, and each explanation says so. If even then the
forbidden pairings leave no way, :class:`NoPairing` says so.
"""

from __future__ import annotations

import warnings
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from caissify_pairings import generate_pairings

#: A played match of an earlier round: (seat A, seat B, winner); B None is A's bye, and a
#: winner None a match without one (a double forfeit: nobody scores).
Played = tuple[int, int | None, int | None]


class NoPairing(ValueError):
    """No pairing of the round keeps the forbidden pairings apart."""


@dataclass(frozen=True)
class Why:
    """Why two players meet (or one has the bye), for the explanation in words."""

    a: int
    b: int | None  # None: a's bye
    score_a: int
    score_b: int | None
    met_a: tuple[int, ...] = ()  # whom a has met, in the order of the rounds
    met_b: tuple[int, ...] = ()
    rematch: bool = False  # no pairing without one was left
    byes_before: int = 0  # for a bye: how many a had had (0 but when unavoidable)


@dataclass
class Standing:
    """A player's score and history after the rounds given (:func:`standings`)."""

    player: int
    seed: int  # 1 for the top seed
    wins: int = 0
    byes: int = 0
    met: list[int] = field(default_factory=list)
    seats: list[str] = field(default_factory=list)  # the engine's colours, a round each
    floats: list[str] = field(default_factory=list)


def standings(players: Sequence[int], rounds: Sequence[Sequence[Played]]) -> dict[int, Standing]:
    """Each player's wins, byes, opponents, seats and floats over the ``rounds`` played."""
    table = {player: Standing(player, seed) for seed, player in enumerate(players, 1)}
    for played in rounds:
        before = {player: row.wins for player, row in table.items()}
        for a, b, winner in played:
            if b is None:
                row = table[a]
                row.byes += 1
                row.wins += 1
                row.seats.append("none")
                row.floats.append("none")
                continue
            for me, other, seat in ((a, b, "white"), (b, a, "black")):
                row = table[me]
                row.met.append(other)
                row.seats.append(seat)
                row.wins += winner == me
                diff = before[me] - before[other]
                row.floats.append("down" if diff > 0 else "up" if diff < 0 else "none")
    return table


def _engine(table: dict[int, Standing], avoid: set[tuple[int, int]], number: int, total: int):
    players = [
        {
            "id": row.player,
            "name": str(row.player),
            "score": float(row.wins),
            "rating": 10_000 - row.seed,
            "starting_number": row.seed,
            "color_hist": row.seats,
            "float_history": row.floats,
            "bye_count": row.byes,
        }
        for row in sorted(table.values(), key=lambda r: r.seed)
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # its notes on forced byes: we check the answer
        found = generate_pairings(
            system="dutch",
            players=players,
            previous_pairings=avoid,
            round_number=number,
            total_rounds=max(total, number),
        )
    return [(p["white_id"], p.get("black_id")) for p in found]


def _whole(pairs, players: set[int], avoid: set[tuple[int, int]]) -> bool:
    """A pairing of everyone once, with one bye at most (an odd count), and no pair avoided."""
    seen = [p for pair in pairs for p in pair if p is not None]
    byes = sum(1 for _a, b in pairs if b is None)
    return (
        sorted(seen) == sorted(players)
        and byes == len(players) % 2
        and not any(b is not None and _key(a, b) in avoid for a, b in pairs)
    )


def _key(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a < b else (b, a)


def pair(
    players: Sequence[int],
    rounds: Sequence[Sequence[Played]],
    *,
    total_rounds: int,
    forbidden: Iterable[tuple[int, int]] = (),
) -> list[Why]:
    """The next round's pairings of ``players`` (in seed order) after ``rounds``, each with
    why; the bye last. Rematches only when no pairing is left without one."""
    table = standings(players, rounds)
    never = {_key(a, b) for a, b in forbidden}
    met = Counter(_key(a, b) for played in rounds for a, b, _w in played if b is not None)
    number = len(rounds) + 1
    # First no rematch at all; then the pairs met most often kept apart, the least let in.
    limits = [0, *sorted(set(met.values()))]
    for allowed in limits:
        avoid = never | {pair for pair, times in met.items() if times > allowed}
        # The engine's first round is its fixed initial pairing, which knows no pairs to
        # keep apart: with forbidden ones, it pairs it as a later round (the same halves
        # of the same score group, matched with those pairs kept apart).
        asked = 2 if number == 1 and avoid else number
        pairs = _engine(table, avoid, asked, total_rounds)
        if _whole(pairs, set(players), avoid):
            break
    else:
        raise NoPairing("no pairing keeps the forbidden pairings apart")
    return _explained(pairs, table, met)


def _explained(pairs, table: dict[int, Standing], met: Counter) -> list[Why]:
    whys = []
    for a, b in sorted(pairs, key=lambda p: p[1] is None):
        row_a = table[a]
        if b is None:
            whys.append(Why(a, None, row_a.wins, None, tuple(row_a.met), byes_before=row_a.byes))
            continue
        row_b = table[b]
        whys.append(
            Why(
                a,
                b,
                row_a.wins,
                row_b.wins,
                tuple(row_a.met),
                tuple(row_b.met),
                rematch=met[_key(a, b)] > 0,
            )
        )
    return whys
