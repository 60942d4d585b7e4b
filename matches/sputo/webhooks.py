"""Sputo's events for the clubs' webhooks (``clubs.webhooks``): a match ready to play
(``match.ready``: after the draw, or when results seat its two players) and a tournament
finished (``tournament.finished``), announced in the transaction that caused them."""

from __future__ import annotations

from collections.abc import Iterable

from django.utils import translation

from clubs.models import Player
from clubs.webhooks.services import absolute, emit, emit_many, listens, player_data
from matches.sputo.models import Tournament, TournamentMatch, TournamentStatus


def is_ready(match: TournamentMatch) -> bool:
    """Both players known, no result, nothing for an admin to resolve."""
    return (
        match.player_a_id is not None
        and match.player_b_id is not None
        and not match.result
        and not match.needs_resolution
    )


def ready_seats(matches: Iterable[TournamentMatch]) -> set[tuple[int, int, int]]:
    """``(match, player a, player b)`` of each match ready to play: a match whose players a
    correction changed is ready anew."""
    return {(m.pk, m.player_a_id, m.player_b_id) for m in matches if is_ready(m)}


def tournament_data(tournament: Tournament) -> dict:
    return {
        "id": tournament.pk,
        "name": tournament.name,
        "url": absolute(tournament.get_absolute_url()),
    }


def announce_ready(
    tournament: Tournament,
    matches: Iterable[TournamentMatch],
    *,
    before: set[tuple[int, int, int]] = frozenset(),
) -> None:
    """``match.ready`` for each of ``matches`` ready now and not in ``before`` (the ready
    seats before the change). A constant number of queries."""
    if tournament.status != TournamentStatus.RUNNING:
        return
    fresh = [m for m in matches if is_ready(m) and ready_seats([m]).isdisjoint(before)]
    if not fresh or not listens(club_id=tournament.club_id, event="match.ready"):
        return
    ids = {m.player_a_id for m in fresh} | {m.player_b_id for m in fresh}
    players = Player.objects.in_bulk(ids)
    events = []
    club = tournament.club
    with translation.override(club.language):
        for match in fresh:
            match.tournament, match.club = tournament, club
            events.append(
                (
                    "match.ready",
                    {
                        "tournament": tournament_data(tournament),
                        "match": {
                            "id": match.pk,
                            "url": absolute(match.get_absolute_url()),
                            "round": match.round,
                            "round_label": str(match.round_label),
                            "kind": match.kind,
                            "best_of": match.best_of,
                        },
                        "players": [
                            player_data(players.get(match.player_a_id)),
                            player_data(players.get(match.player_b_id)),
                        ],
                    },
                )
            )
    emit_many(club_id=tournament.club_id, events=events)


def announce_finished(tournament: Tournament, standings: list[tuple[int, int, int]]) -> None:
    """``tournament.finished`` with the final standings (``(place, player, round)``)."""
    if not listens(club_id=tournament.club_id, event="tournament.finished"):
        return
    players = Player.objects.in_bulk([player for _place, player, _round in standings])
    emit(
        club_id=tournament.club_id,
        event="tournament.finished",
        data={
            "tournament": tournament_data(tournament),
            "finished_at": tournament.finished_at,
            "standings": [
                {"place": place, "player": player_data(players.get(player))}
                for place, player, _round in standings
            ],
        },
    )
