"""A tournament's knockout, single or double elimination, behind one door: its matches'
kinds, what follows from their results (``settle``), its standings and what a result
reaches (``fed_from``). The single elimination's is ``matches.sputo.bracket``'s; the double
elimination's ``matches.sputo.formats.double_elimination``'s, planned from the bracket's
size alone (the seats' sources do not depend on how many byes round one has).
"""

from __future__ import annotations

from collections.abc import Mapping

from matches.sputo import bracket
from matches.sputo.formats import double_elimination as de
from matches.sputo.models import Format, Tournament

SINGLE_KINDS = (bracket.MAIN, bracket.THIRD)
DOUBLE_KINDS = (de.WINNERS, de.LOSERS, de.GRAND_FINAL)
KINDS = SINGLE_KINDS + DOUBLE_KINDS

#: The order of the parts of a knockout: a bracket is read part by part, then round by round.
PART_ORDER = {bracket.MAIN: 0, bracket.THIRD: 0, de.WINNERS: 0, de.LOSERS: 1, de.GRAND_FINAL: 2}


def is_double(tournament: Tournament) -> bool:
    return tournament.format == Format.DOUBLE_ELIMINATION or (
        tournament.format == Format.GROUPS_THEN_KNOCKOUT
        and tournament.knockout_format == Format.DOUBLE_ELIMINATION
    )


def planned(tournament: Tournament) -> list[de.Planned]:
    """A double elimination's plan, from the size of its winners' bracket."""
    return de.plan(2 ** max(tournament.rounds, 1), reset=tournament.grand_final_reset)


def settle(
    tournament: Tournament, slots: list[bracket.Slot], awards: Mapping[int, int] | None = None
) -> bracket.Settled:
    if is_double(tournament):
        return de.settle(slots, planned(tournament), awards=awards)
    return bracket.settle(slots, rounds=tournament.rounds, awards=awards)


def standings(tournament: Tournament, slots: list[bracket.Slot]) -> list[tuple[int, int, int]]:
    if is_double(tournament):
        return de.standings(slots)
    return bracket.standings(slots, rounds=tournament.rounds)


def fed_from(tournament: Tournament, kind: str, round_: int, position: int):
    if is_double(tournament):
        return de.fed_from((kind, round_, position), planned(tournament))
    return bracket.fed_from(kind, round_, position, rounds=tournament.rounds)


def order(slot) -> tuple[int, int, bool, int]:
    """A match's place in the reading of its bracket: part, round, the final before the
    third-place match, position."""
    return (PART_ORDER.get(slot.kind, 0), slot.round, slot.kind == bracket.THIRD, slot.position)
