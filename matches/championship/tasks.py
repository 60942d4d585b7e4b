"""The championship's tasks: keeping the standings up to date after commit (queued through
the outbox). Each takes ids, and is safe to run twice and in any order."""

from __future__ import annotations

from celery import shared_task

from clubs.models import Season
from matches.championship import standings


@shared_task(acks_late=True)
def season_changed(season_id: int) -> str:
    """The season's rules changed (a new version): its standings again under it."""
    season = Season.objects.filter(pk=season_id).first()
    if season is None:
        return "no season"
    return f"{standings.rebuild_season(season)} lines"


@shared_task(acks_late=True)
def rebuild_club_championships(club_id: int, player_ids: list[int] | None = None) -> str:
    """Every championship of the club from scratch (a guest merge moved history)."""
    return standings.rebuild_club(club_id)


def follow(subject) -> set[int]:
    """A step of the result cycle on ``subject`` committed (``results.inbox.after_step``, in
    the worker): the event it belongs to is read again. A subject of no event (a
    tournament's own row) changes nothing."""
    found = standings.event_of(subject)
    if found is None:
        return set()
    kind, key = found
    season, event = standings.season_of_event(subject.club_id, kind, key)
    if season is None:
        return set()
    return standings.refresh_event(season, kind, event)
