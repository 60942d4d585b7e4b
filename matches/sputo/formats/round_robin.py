"""Everyone meets everyone: the rounds of a round robin by the circle method.

The first seed stays put and the others turn round it one place a round, so that over
``n - 1`` rounds (``n`` even) each pair meets exactly once. An odd count adds an empty
seat: whoever faces it that round rests (``None`` in the pair). With two ``legs`` the
second leg plays the first's rounds again with the seats swapped (who is "A" in a match
changes; in Sputo it says only who is listed first).
"""

from __future__ import annotations

from collections.abc import Sequence

Pair = tuple[int | None, int | None]


def rounds(players: Sequence[int], *, legs: int = 1) -> list[list[Pair]]:
    """The rounds, each a list of pairs (``None`` facing the one who rests); fewer than two
    players play none. ``legs`` is 1 or 2."""
    if legs not in (1, 2):
        raise ValueError("legs is 1 or 2")
    seats: list[int | None] = list(players)
    if len(seats) < 2:
        return []
    if len(seats) % 2:
        seats.append(None)
    n = len(seats)
    first: list[list[Pair]] = []
    for number in range(n - 1):
        pairs = []
        for i in range(n // 2):
            a, b = seats[i], seats[n - 1 - i]
            # The fixed seat alternates sides, so that no one is always listed first.
            pairs.append((b, a) if i == 0 and number % 2 else (a, b))
        first.append(pairs)
        seats = [seats[0], seats[-1], *seats[1:-1]]
    if legs == 1:
        return first
    return first + [[(b, a) for a, b in pairs] for pairs in first]


def rests(pairs: list[Pair]) -> list[int]:
    """Who rests in a round: those facing the empty seat."""
    return [a if b is None else b for a, b in pairs if (a is None) != (b is None)]  # type: ignore[misc]
