"""The matches of a double elimination: a winners' bracket, a losers' bracket and a grand
final (with its reset, if the tournament has one), and where each match's players come
from.

- **The winners' bracket** is the single elimination's (``bracket.draw``): byes to the top
  seeds in round one.
- **The losers' bracket** of a bracket of ``P`` seats has ``2 (r - 1)`` rounds, ``r`` the
  winners' rounds: its odd rounds pair its own survivors (round 1: the losers of the
  winners' round 1), its even rounds take in the losers of the next winners' round, one
  into each match. Those who drop in are taken in reversed order, then with the halves
  swapped, and so on in turn, so that a player who drops meets someone from the other side
  of the bracket rather than the one they just met: the usual remedy for early rematches
  (a rematch can still come late, when few are left, where the bracket allows no other).
- **The grand final**: the winners' champion against the losers' champion. With
  ``reset``, if the losers' champion wins it, a second match decides (each then has lost
  once): so everyone but the champion is out after exactly two lost matches.
- A seat fed by nobody (a bye's loser, a loser of a match that had no opponent) is empty;
  a match with one empty seat passes its player on without a match, as a bye.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from matches.sputo import bracket

WINNERS, LOSERS, GRAND_FINAL = "winners", "losers", "grand_final"
Part = Literal["winners", "losers", "grand_final"]


@dataclass(frozen=True)
class From:
    """Where a seat's player comes from: a seed (round one of the winners), or the winner
    or the loser of another match (``key``); None as a seed is an empty seat."""

    kind: Literal["seed", "winner", "loser"]
    seed: int | None = None
    key: tuple[str, int, int] | None = None


@dataclass(frozen=True)
class Planned:
    part: Part
    round: int
    position: int
    a: From
    b: From
    reset: bool = False  # the grand final's second match, played only if the first is lost

    @property
    def key(self) -> tuple[str, int, int]:
        return (self.part, self.round, self.position)


def _dropping(losers: list[tuple[str, int, int]], turn: int) -> list[tuple[str, int, int]]:
    """The losers of a winners' round in the order they drop in (see the module)."""
    if turn % 2 == 0:
        return losers[::-1]
    half = len(losers) // 2
    return losers[half:] + losers[:half] if half else losers


def plan(entrants: int, *, reset: bool = True) -> list[Planned]:
    """Every match of a double elimination of seeds 1 to ``entrants`` (two at least)."""
    if entrants < 2:
        raise ValueError("a double elimination needs at least two players")
    matches: list[Planned] = []
    rounds = bracket.rounds_for(entrants)
    for drawn in bracket.draw(entrants):  # the winners' bracket
        if drawn.round == 1:
            a, b = From("seed", drawn.seed_a), From("seed", drawn.seed_b)
        else:
            a, b = (
                From("winner", key=(WINNERS, drawn.round - 1, 2 * drawn.position + side))
                for side in (0, 1)
            )
        matches.append(Planned(WINNERS, drawn.round, drawn.position, a, b))
    winners_final = (WINNERS, rounds, 0)
    champion_from = From("winner", key=winners_final)
    if rounds == 1:  # two players: the loser of the one match gets a second chance
        losers_champion = From("loser", key=winners_final)
    else:
        survivors = [
            From("loser", key=(WINNERS, 1, p)) for p in range(bracket.bracket_size(entrants) // 2)
        ]
        lb_round = 0
        for winners_round in range(1, rounds + 1):
            if winners_round > 1:  # an even round: the next winners' round drops in
                lb_round += 1
                dropping = _dropping(
                    [(WINNERS, winners_round, p) for p in range(len(survivors))],
                    winners_round,
                )
                survivors = _play(
                    matches, lb_round, survivors, [From("loser", key=k) for k in dropping]
                )
            if len(survivors) > 1:  # an odd round: the survivors among themselves
                lb_round += 1
                survivors = _play(matches, lb_round, survivors[0::2], survivors[1::2])
        (losers_champion,) = survivors
    matches.append(Planned(GRAND_FINAL, 1, 0, champion_from, losers_champion))
    if reset:
        first = From("winner", key=(GRAND_FINAL, 1, 0))
        matches.append(
            Planned(GRAND_FINAL, 2, 0, first, From("loser", key=(GRAND_FINAL, 1, 0)), reset=True)
        )
    return matches


def _play(matches: list[Planned], round_: int, side_a: list[From], side_b: list[From]):
    """A losers' round of ``side_a[i]`` against ``side_b[i]``; its winners, in order."""
    for position, (a, b) in enumerate(zip(side_a, side_b, strict=True)):
        matches.append(Planned(LOSERS, round_, position, a, b))
    return [From("winner", key=(LOSERS, round_, p)) for p in range(len(side_a))]


def loser_to(matches: list[Planned]) -> dict[tuple[str, int, int], tuple[str, int, int]]:
    """Where each match's loser goes (the API's ``loser_to``): the losers' bracket match
    fed by it (or the grand final, for the winners' final of two players); the matches
    whose loser is out are not in it."""
    return {
        seat.key: match.key
        for match in matches
        for seat in (match.a, match.b)
        if seat.kind == "loser" and seat.key is not None and not match.reset
    }
