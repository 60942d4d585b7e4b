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

from collections.abc import Mapping
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


# --- What follows from the results (the double elimination's ``bracket.settle``) ------------


def settle(
    slots: list[bracket.Slot], planned: list[Planned], *, awards: Mapping[int, int] | None = None
) -> bracket.Settled:
    """What follows from the results, as ``bracket.settle`` for a single elimination: each
    seat after the winners' first round is the winner or the loser of the match it comes
    from (``planned``), walked in the plan's order (every feeder before what it feeds);
    empty seats give automatic walkovers, played matches with a player who no longer
    belongs there are reset, and an admin's ``awards`` are made in the same walk. The
    grand final's second match is played only if the losers' champion won the first: else
    both its seats are empty (decided without a winner: not needed)."""
    awards = dict(awards or {})
    result = bracket.Settled(slots={s.key: s for s in slots})
    for match in planned:
        if match.part == WINNERS and match.round == 1:
            continue  # the draw seats round one
        current = result.slots.get(match.key)
        if current is None:
            continue
        expected = [_seat_from(source, result.slots) for source in (match.a, match.b)]
        if match.reset:
            first = result.slots.get((GRAND_FINAL, 1, 0))
            if first is None or not first.decided:
                expected = [None, None]
            elif first.winner is None or first.winner == first.a:
                expected = [bracket.NOBODY, bracket.NOBODY]  # not needed
        seated = bracket._seat(current, expected, result.changes)
        if seated.id in awards:
            seated = bracket._award(seated, awards.pop(seated.id), result)
        result.slots[match.key] = seated
    result.refused_awards.extend(sorted(awards))
    return result


def _seat_from(source: From, slots: Mapping[tuple[str, int, int], bracket.Slot]) -> int | None:
    if source.kind == "seed" or source.key is None:
        return None
    return bracket._fed(slots.get(source.key), loser=source.kind == "loser")


def champion(slots: Mapping[tuple[str, int, int], bracket.Slot]) -> tuple[int, int] | None:
    """``(champion, runner-up)`` once the grand final (and its second match, if needed) is
    decided; None before."""
    first = slots.get((GRAND_FINAL, 1, 0))
    if first is None or not first.decided or first.winner is None:
        return None
    second = slots.get((GRAND_FINAL, 2, 0))
    final = first
    if second is not None:
        if not second.decided:
            return None
        if second.winner is not None:
            final = second
    loser = final.loser if final.loser is not None else bracket.NOBODY
    return final.winner, loser


def standings(slots: list[bracket.Slot]) -> list[tuple[int, int, int]]:
    """``(place, player, losers' round reached)`` once the champion is known: 1st and 2nd
    from the grand final, then by the losers' bracket round in which each went out (a later
    round, a better place), those out in the same round sharing their place; those who
    never reached the losers' bracket after the finalists (round 0)."""
    by_key = {s.key: s for s in slots}
    found = champion(by_key)
    if found is None:
        return []
    first, second = found
    ranked = [(1, first, 0)]
    placed = {first}
    if second:
        ranked.append((2, second, 0))
        placed.add(second)
    reached: dict[int, int] = {}
    everyone: set[int] = set()
    for s in slots:
        for player in (s.a, s.b):
            if player:
                everyone.add(player)
                if s.kind == LOSERS:
                    reached[player] = max(reached.get(player, 0), s.round)
    rest = sorted((-reached.get(p, 0), p) for p in everyone - placed)
    place, previous = len(ranked) + 1, None
    for negative, player in rest:
        if negative != previous:
            place, previous = len(ranked) + 1, negative
        ranked.append((place, player, -negative))
    return ranked


def fed_from(key: tuple[str, int, int], planned: list[Planned]) -> list[tuple[str, int, int]]:
    """The keys a match's result can reach, itself first: every match fed by it, at any
    depth (its winner's and its loser's paths), and the grand final's second match."""
    feeds: dict[tuple[str, int, int], list[tuple[str, int, int]]] = {}
    for match in planned:
        for source in (match.a, match.b):
            if source.key is not None:
                feeds.setdefault(source.key, []).append(match.key)
    reached, queue = [key], [key]
    while queue:
        for later in feeds.get(queue.pop(), []):
            if later not in reached:
                reached.append(later)
                queue.append(later)
    return reached
