"""Spazz'u'mazz's Celery tasks: keeping the derived rows (``matches.spazzumazz.stats``) up
to date. Each takes ids, and is safe to run twice and in any order."""

from celery import shared_task

from matches.spazzumazz import stats


@shared_task(acks_late=True)
def update_spazzumazz_stats(club_id: int) -> str:
    """Rebuild what a result changed (queued after commit by the result cycle's hooks)."""
    return stats.refresh(club_id)


@shared_task(acks_late=True)
def rebuild_spazzumazz_stats(club_id: int, player_ids: list[int] | None = None) -> str:
    """Rebuild the club's rows from the first game: a guest merge moved history to
    ``player_ids``."""
    return stats.rebuild_club(club_id)


def house_rules_changed(*, club_id: int, game: str) -> None:
    """``settings.HOUSE_RULES_CHANGED`` (in the transaction that changed the rules): a new
    ``idiot_min_games`` may rename the game."""
    if game == stats.GAME:
        update_spazzumazz_stats.delay_on_commit(club_id=club_id)
