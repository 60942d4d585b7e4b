"""Sputo's Celery tasks: the Glicko-2 ratings, rebuilt from the results in force.

``update_sputo_ratings`` is queued after commit by every result that comes into force, is
corrected or voided, and by a guest merge. It takes ids only, locks the club's rating rows
(the club row, for this game's rating writes) and brings them to what the results in force
say:

- **a delta** for a result new at the end (``since``, its time, later than the last rated
  match): the rated matches after the last one stored are rated from their players'
  current ratings and appended. It costs those matches' players, whatever the club's
  history.
- **a check of the whole history** otherwise (a correction, a void, a result set aside, a
  guest merge, or a result older than the last rated one): it finds the first rated match
  whose stored history differs and recomputes from there on. It costs the club's rated
  matches (read) and the ones from that point (rewritten).

Both give the numbers of a recomputation from scratch (the same function in the same
order). Running it twice, or two of them in any order, leaves the same rows.
"""

from __future__ import annotations

from datetime import datetime

from celery import shared_task
from django.contrib.contenttypes.models import ContentType
from django.db import transaction

from clubs.models import Club
from matches import boards
from matches.boards.models import PlayerRating, RatingChange
from matches.results.models import Outcome, OutcomeStatus
from matches.sputo import bracket, places, tally
from matches.sputo.models import TournamentMatch
from matches.sputo.ratings import RatedMatch, Rating, rate

GAME = "sputo"
RATED = (bracket.PLAYED, bracket.RETIREMENT)


def rated_matches(club_id: int, *, since=None) -> list[RatedMatch]:
    """The club's rated matches (decided at ``since`` or later, if given), in rating order
    (two queries)."""
    decided = TournamentMatch.objects.filter(
        club_id=club_id, result__in=RATED, decided_at__isnull=False
    )
    if since is not None:
        decided = decided.filter(decided_at__gte=since)
    matches = {
        pk: (decided_at, a, b)
        for pk, decided_at, a, b in decided.values_list(
            "pk", "decided_at", "player_a_id", "player_b_id"
        )
    }
    in_force = Outcome.objects.filter(
        club_id=club_id,
        content_type=ContentType.objects.get_for_model(TournamentMatch),
        status=OutcomeStatus.CONFIRMED,
        object_id__in=list(matches),
    ).values_list("object_id", "pk", "payload")
    rated = []
    for match_id, outcome_id, payload in in_force:
        wins = tuple(g["winner"] for g in payload.get("games") or [])
        decided_at, a, b = matches[match_id]
        if wins and a and b:
            rated.append(RatedMatch(match_id, outcome_id, decided_at, a, b, wins))
    rated.sort(key=lambda m: (m.at, m.match))
    return rated


def _first_difference(rated: list[RatedMatch], stored: list[int]) -> int:
    for n, (match, outcome) in enumerate(zip(rated, stored, strict=False)):
        if match.outcome != outcome:
            return n
    return min(len(rated), len(stored))


def recompute(club_id: int, *, rated: list[RatedMatch], start: int) -> int:
    """Rewrite the history from the ``start``-th rated match on (0: from scratch)."""
    history = RatingChange.objects.filter(club_id=club_id, game=GAME)
    ratings: dict[int, Rating] = {}
    for player, mu, sigma, volatility in history.filter(sequence__lte=start).values_list(
        "player_id", "mu", "sigma", "volatility"
    ):
        games = ratings[player].games + 1 if player in ratings else 1
        ratings[player] = Rating(mu, sigma, volatility, games)
    later = history.filter(sequence__gt=start)
    affected = set(later.values_list("player_id", flat=True))
    later.delete()
    return _rate(club_id, rated[start:], ratings, affected, first=start + 1)


def _rate(
    club_id: int, rated: list[RatedMatch], ratings: dict[int, Rating], affected: set, *, first
) -> int:
    """Rate ``rated`` in order from ``ratings`` (the players' ratings before them), numbered
    from ``first``; write their rating changes and the current ratings of ``affected`` and
    of their players. Returns how many matches."""
    rows = []
    for sequence, match in enumerate(rated, first):
        new_a, new_b = rate(ratings, match)
        for player, new in ((match.a, new_a), (match.b, new_b)):
            old = ratings.get(player, Rating())
            rows.append(
                RatingChange(
                    club_id=club_id,
                    player_id=player,
                    game=GAME,
                    outcome_id=match.outcome,
                    sequence=sequence,
                    at=match.at,
                    **new.figures(),
                    delta=new.display - old.display if player in ratings else 0.0,
                )
            )
            ratings[player] = new
            affected.add(player)
    RatingChange.objects.bulk_create(rows)
    current = PlayerRating.objects.filter(club_id=club_id, game=GAME)
    current.filter(player_id__in=affected - set(ratings)).delete()
    PlayerRating.objects.bulk_create(
        [
            PlayerRating(
                club_id=club_id,
                player_id=player,
                game=GAME,
                **r.figures(),
                games=r.games,
                provisional=r.provisional,
            )
            for player, r in sorted(ratings.items())
            if player in affected
        ],
        update_conflicts=True,
        unique_fields=["club", "game", "player"],
        update_fields=[
            "mu",
            "sigma",
            "volatility",
            "display",
            "games",
            "provisional",
            "updated_at",
        ],
    )
    return len(rows) // 2


def _append(club_id: int, since) -> int | None:
    """The delta (see the module): the rated matches after the last one stored, appended;
    None if a result at ``since`` is not after the last one stored (the whole check)."""
    last = (
        RatingChange.objects.filter(club_id=club_id, game=GAME)
        .order_by("-sequence")
        .values_list("sequence", "at", "outcome__object_id")
        .first()
    )
    if last is None or not since > last[1]:
        return None
    sequence, at, match = last
    new = [m for m in rated_matches(club_id, since=at) if (m.at, m.match) > (at, match)]
    players = {player for m in new for player in (m.a, m.b)}
    rows = list(PlayerRating.objects.filter(club_id=club_id, game=GAME, player_id__in=players))
    if any(r.volatility is None for r in rows):  # not a row the ratings wrote: the check
        return None
    ratings = {r.player_id: Rating(r.mu, r.sigma, r.volatility, r.games) for r in rows}
    return _rate(club_id, new, ratings, set(), first=sequence + 1)


@shared_task(acks_late=True)
def update_sputo_ratings(
    club_id: int, player_ids: list[int] | None = None, since: str | None = None
) -> str:
    """Bring the club's Sputo ratings up to date with the results in force. With
    ``player_ids`` (a guest merge: who played which match changed) the club's history is
    recomputed from its first match; with ``since`` (a result new at the end, its time)
    the matches after the last one rated are added as a delta."""
    with transaction.atomic():
        # Two runs for one club wait for each other here instead of interleaving rows.
        if Club.objects.select_for_update().filter(pk=club_id).first() is None:
            return "no such club"
        if since is not None and not player_ids:
            added = _append(club_id, datetime.fromisoformat(since))
            if added is not None:
                if added:
                    boards.bump(club_id, "sputo")
                return f"added {added} matches"
        rated = rated_matches(club_id)
        stored = list(
            RatingChange.objects.filter(club_id=club_id, game=GAME)
            .order_by("sequence")
            .values_list("sequence", "outcome_id")
            .distinct()
        )
        outcomes = [outcome for _sequence, outcome in stored]
        start = 0 if player_ids else _first_difference(rated, outcomes)
        if not player_ids and start == len(rated) == len(outcomes):
            return "up to date"
        changed = recompute(club_id, rated=rated, start=start)
        # The boards' pages (leaderboards, player pages) cached for the club are out of date.
        boards.bump(club_id, "sputo")
        return f"recomputed {changed} matches from #{start + 1}"


def recompute_from_scratch(club_id: int) -> int:
    """The club's Sputo ratings from its first match, its entrants' final places from the
    brackets (``matches.sputo.places``) and its players' tallies from both
    (``matches.sputo.tally``); how many matches were rated."""
    with transaction.atomic():
        Club.objects.select_for_update().filter(pk=club_id).first()
        places.rebuild(club_id)
        tally.rebuild_club(club_id)
        RatingChange.objects.filter(club_id=club_id, game=GAME).delete()
        PlayerRating.objects.filter(club_id=club_id, game=GAME).delete()
        return recompute(club_id, rated=rated_matches(club_id), start=0)
