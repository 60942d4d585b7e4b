"""The standings of a round robin, a group or a Swiss: who stands above whom, and why.

Each row counts a player's decided matches of the stage: played, won, lost, points (a
match won is worth the club's ``points_per_win``, a match lost nothing; a bye is a match
won that is not played), games for and against, and Sputo's own measure, **cards**: the
cards the player's opponents were left holding in the games the player won, less the cards
the player was left holding in the games they lost (as a goal difference: higher is
better). A double forfeit counts as played and lost by both.

The order:

- **round robin and groups**: points, then the games' difference, then games won, then
  cards; then **head to head** among the players still level (the points of the matches
  between them alone); then a **drawn lot** (``lots``: drawn by the caller, once, and
  recorded in the audit, so that the standings read the same every time);
- **Swiss**: points, then **Buchholz** (the sum of the opponents' points), then **median
  Buchholz** (the same without the best and the worst opponent), then head to head, then
  the lot. A bye adds no opponent.

Each row says why it stands above the next (:class:`Above`): the first measure in that
order where they differ, which the pages put in words ("above Bruno: won their match").
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

Reason = Literal[
    "points", "games", "games_for", "cards", "buchholz", "median_buchholz", "head_to_head", "lot"
]


@dataclass(frozen=True)
class Result:
    """A decided match: ``b`` None is ``a``'s bye; ``winner`` None, a double forfeit.
    ``games``: each game's (winner, cards left to the loser)."""

    a: int
    b: int | None
    winner: int | None
    games: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True)
class Above:
    """Why a row stands above the next one: the first measure where they differ."""

    reason: Reason
    other: int  # the next row's player
    won_their_match: bool = False  # head to head between just the two, by their match


@dataclass
class Row:
    player: int
    played: int = 0
    won: int = 0
    lost: int = 0
    points: int = 0
    games_for: int = 0
    games_against: int = 0
    cards: int = 0
    buchholz: int = 0
    median_buchholz: int = 0
    head_to_head: int = 0  # points among the players level with this one
    lot: int = 0
    rank: int = 0
    above: Above | None = None
    opponents: list[int] = field(default_factory=list)


def _count(players: Sequence[int], results: Sequence[Result], per_win: int) -> dict[int, Row]:
    rows = {player: Row(player) for player in players}
    for result in results:
        if result.b is None:
            rows[result.a].won += 1
            rows[result.a].points += per_win
            continue
        for me, other in ((result.a, result.b), (result.b, result.a)):
            row = rows[me]
            row.played += 1
            row.opponents.append(other)
            if result.winner == me:
                row.won += 1
                row.points += per_win
            else:
                row.lost += 1
            for winner, cards_left in result.games:
                if winner == me:
                    row.games_for += 1
                    row.cards += cards_left
                else:
                    row.games_against += 1
                    row.cards -= cards_left
    return rows


def _buchholz(rows: dict[int, Row]) -> None:
    for row in rows.values():
        scores = sorted(rows[o].points for o in row.opponents)
        row.buchholz = sum(scores)
        row.median_buchholz = sum(scores[1:-1]) if len(scores) > 2 else 0


def _measures(row: Row, swiss: bool) -> tuple[tuple[Reason, int], ...]:
    if swiss:
        return (
            ("points", row.points),
            ("buchholz", row.buchholz),
            ("median_buchholz", row.median_buchholz),
        )
    return (
        ("points", row.points),
        ("games", row.games_for - row.games_against),
        ("games_for", row.games_for),
        ("cards", row.cards),
    )


def _head_to_head(rows: dict[int, Row], results: Sequence[Result], per_win: int, swiss: bool):
    """Each player's points in the matches among those level with them on every measure."""
    level: dict[tuple, list[int]] = defaultdict(list)
    for row in rows.values():
        level[tuple(value for _r, value in _measures(row, swiss))].append(row.player)
    for tied in level.values():
        group = set(tied)
        for result in results:
            if result.b is not None and {result.a, result.b} <= group and result.winner:
                rows[result.winner].head_to_head += per_win


def table(
    players: Sequence[int],
    results: Sequence[Result],
    *,
    points_per_win: int = 1,
    swiss: bool = False,
    lots: Mapping[int, int] | None = None,
) -> list[Row]:
    """The standings, first place first; ``lots`` (a player's drawn number, lower first)
    orders those level on everything else (missing: their seed order, as given)."""
    rows = _count(players, results, points_per_win)
    if swiss:
        _buchholz(rows)
    _head_to_head(rows, results, points_per_win, swiss)
    for seed, player in enumerate(players):
        rows[player].lot = (lots or {}).get(player, len(players) + seed)

    def key(row: Row):
        return (*(-value for _r, value in _measures(row, swiss)), -row.head_to_head, row.lot)

    ordered = sorted(rows.values(), key=key)
    if not ordered:
        return []  # nobody yet (a tournament before its draw)
    for rank, (row, below) in enumerate(zip(ordered, [*ordered[1:], None], strict=True), 1):
        row.rank = rank
        if below is not None:
            row.above = _why(row, below, results, swiss)
    return ordered


def _why(row: Row, below: Row, results: Sequence[Result], swiss: bool) -> Above:
    for (reason, mine), (_same, theirs) in zip(
        _measures(row, swiss), _measures(below, swiss), strict=True
    ):
        if mine != theirs:
            return Above(reason, below.player)
    if row.head_to_head != below.head_to_head:
        direct = any(
            {r.a, r.b} == {row.player, below.player} and r.winner == row.player for r in results
        )
        return Above("head_to_head", below.player, won_their_match=direct)
    return Above("lot", below.player)
