"""Groups of near-equal size, seeded in a snake: seed 1 to group A, 2 to B, ..., then back
from the last group (A B C C B A A B C ...), so that the top ``k`` seeds sit in ``k``
different groups and each group's seeds add up about the same.

Challonge's pools put the top seeds together (a separate tool exists to fix them); a snake
is what clubs and federations draw by hand.
"""

from __future__ import annotations

from collections.abc import Sequence


def name(index: int) -> str:
    """A group's name: A, B, ..., Z, then AA, AB, ..."""
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(ord("A") + rest) + letters
    return letters


def snake(players: Sequence[int], groups: int) -> list[list[int]]:
    """``players`` (in seed order) in ``groups`` groups, each in seed order. Sizes differ by
    at most one. ``groups`` is from 1 to half the players (a group holds two at least)."""
    if groups < 1 or len(players) < 2 * groups:
        raise ValueError("each group needs two players at least")
    drawn: list[list[int]] = [[] for _ in range(groups)]
    for n, player in enumerate(players):
        lap, place = divmod(n, groups)
        drawn[place if lap % 2 == 0 else groups - 1 - place].append(player)
    return drawn
