"""Who plays the next hand at a table, by RULES.md's winner-stays rotation.

The rules engine's ``rules.singapore.next_pair`` does the rotation; this module feeds it
a table's seats and its last hand, and rules on what RULES.md leaves to the software:

- The seats passed to the engine are every seat the session ever had, in rotation order;
  people who left count as sitting out. So a loser who left still marks where the next
  challenger is counted from, and a newcomer (seated at the end of the rotation) is found
  in turn.
- The last hand is the latest hand whose result is in force or waiting for confirmation
  (a voided hand does not count; a corrected one counts with its corrected winner).
- The winner of the last hand stays to deal; if the winner has left or sits out, the loser
  stays and deals against the first available seat to the winner's right. If both are gone,
  or before the first hand when the drawn pair is no longer available, the rotation names
  nobody and any two seated players are in turn.
- With fewer than two people available nobody is next.
- A hand is in turn when it is the pair the rotation names **with the dealer it names**
  (the winner stays and deals): the right pair with the challenger dealing is out of turn.
  (The engine's ``is_in_turn`` compares the pair only; it is not used here.)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rules import singapore as engine


@dataclass(frozen=True)
class SeatState:
    player: int  # a player id
    plays: bool  # seated and not sitting out


@dataclass(frozen=True)
class LastHand:
    winner: int
    loser: int


def _order_and_out(seats: Sequence[SeatState]) -> tuple[list[int], set[int]]:
    order = [seat.player for seat in seats]
    out = {seat.player for seat in seats if not seat.plays}
    return order, out


def next_pair(
    seats: Sequence[SeatState], last: LastHand | None, first: tuple[int, int] | None
) -> tuple[int, int] | None:
    """The next hand's (dealer, opponent), or None when the rotation names nobody.

    >>> seats = [SeatState(p, True) for p in (1, 2, 3, 4)]
    >>> next_pair(seats, None, (1, 2)), next_pair(seats, LastHand(1, 2), (1, 2))
    ((1, 2), (1, 3))
    >>> next_pair(seats, LastHand(3, 1), (1, 2))
    (3, 2)
    """
    order, out = _order_and_out(seats)
    if len(order) - len(out) < 2:
        return None
    if last is None:
        if first is not None and all(p in order and p not in out for p in first):
            return first
        return None
    if last.winner not in order or last.loser not in order:
        return None
    if last.winner not in out:
        return engine.next_pair(order, last.winner, last.loser, out)
    if last.loser not in out:
        # The winner is gone: the loser stays, as if he had won, and deals against the
        # first available seat to the winner's right.
        return engine.next_pair(order, last.loser, last.winner, out)
    return None


def in_turn(
    seats: Sequence[SeatState],
    last: LastHand | None,
    first: tuple[int, int] | None,
    players: tuple[int, int],
) -> bool:
    """Whether a hand between ``players`` (dealer, opponent) is the one the rotation calls
    for: the pair **and who deals** (the winner stays and deals, RULES.md), so the right
    pair with the challenger dealing is out of turn.

    >>> seats = [SeatState(p, True) for p in (1, 2, 3)]
    >>> in_turn(seats, LastHand(1, 2), None, (1, 3)), in_turn(seats, LastHand(1, 2), None, (3, 1))
    (True, False)
    """
    order, out = _order_and_out(seats)
    if last is not None and last.winner in order and last.winner not in out:
        if last.loser not in order:
            return False
    expected = next_pair(seats, last, first)
    return expected is None or expected == tuple(players)


def swapped(expected: tuple[int, int] | None, players: tuple[int, int]) -> bool:
    """Whether ``players`` are the expected pair with the wrong one dealing."""
    return expected is not None and expected == (players[1], players[0])
