"""Each event's places, read from the results in force: what the standings are made of.

- **A Sputo tournament** (finished): each entrant's final place (``Entrant.place``), ties
  kept: without a third-place match both semi-final losers are 3rd.
- **A Singapore night**: everyone with a balance in the night's hands in force at the
  club's tables (players and bystanders who bet), ranked by their net points of the night,
  the most first. Their games are the hands they played (as dealer or opponent).
- **A Spazz'u'mazz night**: everyone who played a game of the night, ranked by their
  average place, the idiot counted: a place ``p`` of ``n`` counts ``(p - 1) / (n - 1)``
  (0 out first, 1 the idiot, as the idiot statistics count it), the lowest first.

A night is the club night of ``boards.night_bounds`` (06:00 to 06:00). At a night, a
player with fewer games than the rules' ``min_games`` takes no part (ruling: the issue's
"minimum number of games for a night to count" read per player, so that one short visit
neither wins a night nor spoils it for the others; a night where nobody reached it gives
no event). Equal scores share a place (1, 2, 2, 4). Each read costs the event's own rows.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import date
from fractions import Fraction

from django.db.models import Prefetch
from django.utils import timezone

from clubs.models import Season
from matches import boards
from matches.championship.models import EventKind
from matches.results.models import GameRecord, GameSeat
from matches.sputo.models import Entrant, Tournament, TournamentStatus

GAME_OF_NIGHT = {EventKind.SINGAPORE_NIGHT: "singapore", EventKind.SPAZZUMAZZ_NIGHT: "spazzumazz"}
NIGHT_OF_GAME = {game: kind for kind, game in GAME_OF_NIGHT.items()}


@dataclass(frozen=True)
class Placed:
    player: int
    place: int
    games: int = 0


def ranked(scores: dict[int, tuple], games: dict[int, int]) -> list[Placed]:
    """Players ranked by ``scores`` (lowest first), equal scores sharing a place."""
    order = sorted(scores, key=lambda p: (scores[p], p))
    found, place, previous = [], 0, None
    for n, player in enumerate(order, 1):
        if scores[player] != previous:
            place, previous = n, scores[player]
        found.append(Placed(player, place, games.get(player, 0)))
    return found


def tournament_day(tournament: Tournament) -> date:
    return timezone.localtime(tournament.starts_at).date()


def season_of_tournament(tournament: Tournament) -> Season | None:
    if tournament.season_id:
        return tournament.season
    return Season.objects.filter(club_id=tournament.club_id).holding(tournament.starts_at)


def tournament_places(tournament: Tournament) -> list[Placed]:
    if tournament.status != TournamentStatus.FINISHED:
        return []
    rows = Entrant.objects.filter(tournament=tournament, place__isnull=False).values_list(
        "player_id", "place"
    )
    return sorted((Placed(player, place) for player, place in rows), key=lambda p: p.place)


def _records(club_id: int, game: str, day: date):
    start, end = boards.night_bounds(day)
    return (
        GameRecord.objects.in_force()
        .filter(club_id=club_id, game=game, played_at__gte=start, played_at__lt=end)
        .prefetch_related(
            Prefetch(
                "seats",
                queryset=GameSeat.objects.only(
                    "game_record_id", "player_id", "name_in_record", "place"
                ),
            )
        )
        .only("pk", "record", "result")
    )


def singapore_scores(club_id: int, day: date) -> tuple[dict, dict]:
    net: dict[int, int] = defaultdict(int)
    games: dict[int, int] = defaultdict(int)
    for record in _records(club_id, "singapore", day):
        ids = {seat.name_in_record: seat.player_id for seat in record.seats.all()}
        for name, points in (record.result.get("balances") or {}).items():
            net[ids[name]] += points
        stake = record.record.get("stake") or {}
        for role in ("dealer", "opponent"):
            if stake.get(role) in ids:
                games[ids[stake[role]]] += 1
    return {p: (-points,) for p, points in net.items()}, dict(games)


def spazzumazz_scores(club_id: int, day: date) -> tuple[dict, dict]:
    total: dict[int, Fraction] = defaultdict(Fraction)
    games: dict[int, int] = defaultdict(int)
    for record in _records(club_id, "spazzumazz", day):
        seats = [s for s in record.seats.all() if s.place is not None]
        n = len(seats)
        if n < 2:
            continue
        for seat in seats:
            total[seat.player_id] += Fraction(seat.place - 1, n - 1)
            games[seat.player_id] += 1
    return {p: (total[p] / games[p],) for p in total}, dict(games)


SCORES = {
    EventKind.SINGAPORE_NIGHT: singapore_scores,
    EventKind.SPAZZUMAZZ_NIGHT: spazzumazz_scores,
}


def night_places(club_id: int, kind: str, day: date, *, min_games: int) -> list[Placed]:
    scores, games = SCORES[kind](club_id, day)
    taking_part = {p: s for p, s in scores.items() if games.get(p, 0) >= min_games}
    return ranked(taking_part, games)


def nights_of_season(season: Season, kind: str) -> list[date]:
    """Every night of the season with a result in force of the kind's game (the rebuild)."""
    start, _ = boards.night_bounds(season.start)
    _, end = boards.night_bounds(season.end)
    moments = (
        GameRecord.objects.in_force()
        .filter(club_id=season.club_id, game=GAME_OF_NIGHT[kind])
        .filter(played_at__gte=start, played_at__lt=end)
        .values_list("played_at", flat=True)
    )
    return sorted({boards.night_of(moment) for moment in moments})


def tournaments_of_season(season: Season) -> list[Tournament]:
    """The season's finished tournaments (the rebuild): its own, and those without a season
    played in its dates."""
    start, _ = boards.night_bounds(season.start)
    _, end = boards.night_bounds(season.end)
    own = Tournament.objects.filter(club_id=season.club_id, status=TournamentStatus.FINISHED)
    return list(
        own.filter(season=season)
        | own.filter(season__isnull=True, starts_at__gte=start, starts_at__lt=end)
    )
