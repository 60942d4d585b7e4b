"""Singapore's Celery tasks: the players' statistics, rebuilt from the hands in force."""

from __future__ import annotations

from celery import shared_task

from matches.models import Hand


def queue_stats(hand: Hand) -> None:
    """Rebuild the statistics of everyone in ``hand`` once the transaction commits."""
    recompute_stats.delay_on_commit(club_id=hand.club_id, player_ids=None)


@shared_task(name="matches.singapore.recompute_stats")
def recompute_stats(*, club_id: int, player_ids: list[int] | None = None) -> int:
    return 0
