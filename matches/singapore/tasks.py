"""Singapore's Celery tasks: the players' statistics, rebuilt from the hands in force.

Tasks take ids, are queued after the transaction that changed the hands commits, and are
idempotent and safe in any order: each rebuilds its rows from what is in force when it runs
(``matches.singapore.stats``).
"""

from __future__ import annotations

from celery import shared_task

from matches.singapore.stats import rebuild


@shared_task(name="matches.singapore.recompute_stats")
def recompute_stats(
    *, club_id: int, player_ids: list[int] | None = None, season_ids: list | None = None
) -> int:
    """Rebuild the statistics of ``player_ids`` (all: None) in ``season_ids`` (all: None;
    a None inside means hands outside any season). Called by guest merges with
    ``club_id`` and ``player_ids``."""

    return rebuild(club_id, player_ids=player_ids, season_ids=season_ids)
