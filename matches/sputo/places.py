"""Each entrant's final place, kept on its row (``Entrant.place``): derived from the bracket
(``bracket.standings``) or the table (``matches.sputo.tables``), None until the tournament
is finished.

- a knockout: 1st and 2nd from the final, and so on (``bracket.standings``);
- a round robin or a Swiss: the table's ranks, each its own (the lot breaks the last ties);
- groups then a knockout: the knockout's places, then those who did not go through, by
  their place in their group: every group's third shares the next place, and so on.

A result's plan (``bracket_changes.apply_result``, ``stages.apply_result``) writes the
places when the tournament finishes, runs again, or its standings change while finished (a
correction): the tournament's entrants, one query to read them and one to write those that
changed. :func:`rebuild` writes every tournament of a club from its matches
(``recompute_stats``; the migration that added the column did the same for the
tournaments already there).
"""

from __future__ import annotations

from matches.sputo import knockout, tables
from matches.sputo.models import Entrant, Format, Tournament, TournamentStatus

Standings = list[tuple[int, int, int]]  # (place, player, round reached)


def table_places(tournament: Tournament) -> Standings:
    """A round robin's or a Swiss's final places: the table's ranks."""
    (group,) = tables.groups_of(tournament)
    return [(row.rank, row.player, 0) for row in group.rows]


def with_groups(tournament: Tournament, knockout: Standings) -> Standings:
    """``knockout``'s places, then (groups then a knockout) those who did not go through,
    by their place in their group, those of the same place sharing it."""
    if tournament.format != Format.GROUPS_THEN_KNOCKOUT or not knockout:
        return knockout
    placed = {player for _place, player, _round in knockout}
    out: dict[int, list[int]] = {}
    for group in tables.groups_of(tournament):
        for row in group.rows:
            if row.player not in placed:
                out.setdefault(row.rank, []).append(row.player)
    found = list(knockout)
    for _rank, players in sorted(out.items()):
        place = len(found) + 1
        found.extend((place, player, 0) for player in sorted(players))
    return found


def standings_of(tournament: Tournament) -> Standings:
    """The final places of a finished tournament, from its matches (none otherwise)."""
    if tournament.status != TournamentStatus.FINISHED:
        return []
    if tournament.format in (Format.ROUND_ROBIN, Format.SWISS):
        return table_places(tournament)
    slots = [match.as_slot() for match in tournament.matches.filter(kind__in=knockout.KINDS)]
    return with_groups(tournament, knockout.standings(tournament, slots))


def write(tournament: Tournament, standings: Standings) -> int:
    """Each entrant's place from ``standings`` (empty: none); how many rows changed."""
    places = {player: place for place, player, _reached in standings}
    changed = []
    for entrant in Entrant.objects.filter(tournament=tournament).only("pk", "player", "place"):
        place = places.get(entrant.player_id)
        if entrant.place != place:
            entrant.place = place
            changed.append(entrant)
    Entrant.objects.bulk_update(changed, ["place"])
    return len(changed)


def rebuild(club_id: int) -> int:
    """Every tournament's places of the club, from its matches; how many rows changed."""
    return sum(
        write(tournament, standings_of(tournament))
        for tournament in Tournament.objects.filter(club_id=club_id)
    )
