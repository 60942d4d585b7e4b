"""Singapore's Celery tasks: the players' statistics, from the hands in force.

Tasks take ids, are queued after the transaction that changed the hands commits, and are
idempotent and safe in any order: a hand new in force is added to its people's rows, and
anything else rebuilds their rows from what is in force when it runs
(``matches.singapore.stats``).
"""

from __future__ import annotations

from celery import shared_task

from matches.singapore.stats import add_record, rebuild


@shared_task(name="matches.singapore.recompute_stats")
def recompute_stats(
    *,
    club_id: int,
    player_ids: list[int] | None = None,
    season_ids: list | None = None,
    outcome_id: int | None = None,
) -> int:
    """Bring the statistics of ``player_ids`` (all: None) in ``season_ids`` (all: None; a
    None inside means hands outside any season) up to date: with ``outcome_id`` (a hand's
    result new in force, in the one season of ``season_ids``) by adding it to their rows,
    else (or if it cannot be added) by rebuilding them. Called by guest merges with
    ``club_id`` and ``player_ids``."""
    if outcome_id is not None and player_ids and season_ids and len(season_ids) == 1:
        added = add_record(
            club_id, outcome_id=outcome_id, player_ids=player_ids, season_id=season_ids[0]
        )
        if added is not None:
            return added
    return rebuild(club_id, player_ids=player_ids, season_ids=season_ids)
