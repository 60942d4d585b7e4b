"""The result cycle's events for the clubs' webhooks (``clubs.webhooks``): a result in force
(``result.confirmed``) or corrected (``result.corrected``), whatever the game, announced in
the step's transaction (sent after it commits)."""

from __future__ import annotations

from django.conf import settings
from django.utils import translation

from clubs.webhooks.services import emit, listens
from matches.results.adapters import GameAdapter
from matches.results.models import Outcome, OutcomeSubject


def absolute(path: str | None) -> str | None:
    return settings.SITE_URL.rstrip("/") + path if path else None


def player_data(player) -> dict | None:
    return {"id": player.pk, "name": player.display_name} if player is not None else None


def result_data(adapter: GameAdapter, subject: OutcomeSubject, outcome: Outcome) -> dict:
    """What ``result.*`` deliveries carry (``clubs.webhooks.payloads.ResultData``)."""
    return {
        "game": adapter.game,
        "subject": {"id": subject.pk, "url": absolute(adapter.url(subject))},
        "subject_type": subject._meta.model_name,
        "result": {
            "id": outcome.pk,
            "status": outcome.status,
            "payload": outcome.payload,
            "reported_at": outcome.reported_at,
            "confirmed_at": outcome.confirmed_at,
            "supersedes": outcome.supersedes_id,
        },
        "players": [player_data(p) for p in adapter.players(subject)],
    }


def announce_result(
    adapter: GameAdapter, subject: OutcomeSubject, outcome: Outcome, *, corrected: bool
) -> None:
    event = "result.corrected" if corrected else "result.confirmed"
    if not listens(club_id=subject.club_id, event=event):
        return  # one query, and nothing read for nobody
    with translation.override(subject.club.language):
        data = result_data(adapter, subject, outcome)
    emit(club_id=subject.club_id, event=event, data=data)
