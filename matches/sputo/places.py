"""Each entrant's final place, kept on its row (``Entrant.place``): derived from the bracket
(``bracket.standings``), None until the tournament is finished.

A result's plan (``bracket_changes.apply_result``) writes the places when the tournament
finishes, runs again, or its standings change while finished (a correction): the
tournament's entrants, one query to read them and one to write those that changed.
:func:`rebuild` writes every tournament of a club from its brackets (``recompute_stats``;
the migration that added the column did the same for the tournaments already there).
"""

from __future__ import annotations

from matches.sputo import bracket
from matches.sputo.models import Entrant, Tournament, TournamentStatus


def standings_of(tournament: Tournament) -> list[tuple[int, int, int]]:
    """``bracket.standings`` of a finished tournament, from its matches (none otherwise)."""
    if tournament.status != TournamentStatus.FINISHED:
        return []
    slots = [match.as_slot() for match in tournament.matches.all()]
    return bracket.standings(slots, rounds=tournament.rounds)


def write(tournament: Tournament, standings: list[tuple[int, int, int]]) -> int:
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
    """Every tournament's places of the club, from its brackets; how many rows changed."""
    return sum(
        write(tournament, standings_of(tournament))
        for tournament in Tournament.objects.filter(club_id=club_id)
    )
