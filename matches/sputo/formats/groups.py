"""Groups of near-equal size, seeded in a snake: seed 1 to group A, 2 to B, ..., then back
from the last group (A B C C B A A B C ...), so that the top ``k`` seeds sit in ``k``
different groups and each group's seeds add up about the same.

Challonge's pools put the top seeds together (a separate tool exists to fix them); a snake
is what clubs and federations draw by hand.
"""

from __future__ import annotations

from collections.abc import Sequence

import networkx as nx

from matches.sputo import bracket


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


def meeting_round(seed_a: int, seed_b: int, size: int) -> int:
    """The round in which two seeds of a knockout of ``size`` seats would meet if both kept
    winning (1: they meet at once; the last round: only in the final)."""
    order = bracket.seed_order(size)
    i, j = order.index(seed_a), order.index(seed_b)
    return (i ^ j).bit_length()


def crossed(tiers: Sequence[Sequence[tuple[int, int | str]]]) -> list[int]:
    """The knockout's seeds from the groups: ``tiers[t]`` holds the players ``(player,
    group)`` who finished ``t + 1``-th in their group, best first. The first tier takes the
    top seeds, the next the seeds after, and so on. Within a tier the seeds are shared out
    so that players meet those of their own group as late as the bracket allows (the
    earliest such meeting first, then the next), and then the better player takes the better
    seed: so a group's first meets another group's second ("crossed"). The players, in seed
    order (the first the top seed).

    A greedy choice, player by player, paints itself into corners (the last players left
    with the seeds next to their own group's): each tier is an assignment of its players
    to its seeds, solved exactly as a maximum-weight matching (networkx)."""
    total = sum(len(tier) for tier in tiers)
    size = bracket.bracket_size(total)
    rounds = bracket.rounds_for(total)
    seat: dict[int, tuple[int, int | str]] = {}  # seed -> (player, group)
    first = 1
    for tier in tiers:
        seeds = list(range(first, first + len(tier)))
        n = len(tier)
        base = n + 1
        graph = nx.Graph()
        for i, (_player, group) in enumerate(tier):
            mates = [s for s, (_p, g) in seat.items() if g == group]
            for j, seed in enumerate(seeds):
                meets = min((meeting_round(seed, m, size) for m in mates), default=rounds)
                # An earlier meeting costs more than every later one together, and the
                # better player on the better seed counts below any meeting.
                early = base ** (rounds - meets) * (n * n + 1)
                graph.add_edge(("p", i), ("s", j), weight=-early + (n - i) * (n - j))
        # Each edge's weight shifted up: a matching of everyone beats one of fewer.
        shift = 1 + max(-d["weight"] for *_e, d in graph.edges(data=True))
        for *_e, d in graph.edges(data=True):
            d["weight"] += shift
        matched = nx.max_weight_matching(graph, maxcardinality=True)
        for u, v in matched:
            (_p, i), (_s, j) = (u, v) if u[0] == "p" else (v, u)
            seat[seeds[j]] = tier[i]
        first += n
    return [seat[s][0] for s in sorted(seat)]
