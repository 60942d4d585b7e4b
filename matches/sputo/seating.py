"""Table numbers for the evening: each ready match of a running tournament with ``tables``
gets the lowest free table, and nobody is in two places at once.

The tables are the club's, numbered 1, 2, …: a tournament's ``tables`` says how many of
them it plays on (the first ``tables``). Two tournaments running the same night share the
room, so a table busy with one is busy for the other.

A table is busy while a match at it is undecided; a decided match keeps its number (the
history says where it was played). A match waits for a table while either of its players
is at another running match with a table (of any of the club's tournaments): so a player
is never called to two tables. The tournaments that started first are served first.

Each match given a table calls its two players through the inbox and Web Push ("Table 3:
you against Bruno"), after the commit.

:func:`assign` runs in the transaction of every write that can make a match ready or free
a table (the draw, a result, a correction, the next stage or round): two reads and one
write of the club's running matches, whatever its history.
"""

from __future__ import annotations

from django.db.models import Q

from matches.results.inbox import after_step
from matches.sputo.models import TournamentMatch, TournamentStatus


def _undecided(club_id: int):
    return TournamentMatch.objects.filter(
        club_id=club_id,
        tournament__status=TournamentStatus.RUNNING,
        result="",
    )


def assign(club_id: int) -> list[TournamentMatch]:
    """Give free tables to the club's ready matches; the matches given one."""
    busy_tables: set[int] = set()  # the club's tables, whichever tournament plays there
    busy_players: set[int] = set()
    for table, a, b in (
        _undecided(club_id)
        .filter(table__isnull=False)
        .values_list("table", "player_a_id", "player_b_id")
    ):
        busy_tables.add(table)
        busy_players.update(p for p in (a, b) if p)
    waiting = (
        _undecided(club_id)
        .filter(
            table__isnull=True,
            needs_resolution=False,
            tournament__tables__isnull=False,
            player_a__isnull=False,
            player_b__isnull=False,
        )
        .exclude(Q(player_a_id__in=busy_players) | Q(player_b_id__in=busy_players))
        .select_related("tournament")
        .order_by("tournament__starts_at", "tournament_id", "round", "position")
    )
    given = []
    for match in waiting:
        if match.player_a_id in busy_players or match.player_b_id in busy_players:
            continue
        free = next(
            (n for n in range(1, match.tournament.tables + 1) if n not in busy_tables),
            None,
        )
        if free is None:
            continue
        match.table = free
        busy_tables.add(free)
        busy_players.update((match.player_a_id, match.player_b_id))
        given.append(match)
    TournamentMatch.objects.bulk_update(given, ["table"])
    for match in given:  # after the commit: its two players called to the table
        after_step.delay_on_commit(
            club_id=club_id, model=match._meta.label_lower, object_id=match.pk
        )
    return given
