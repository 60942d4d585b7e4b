"""The demo's Sputo tournaments, played by the rules engine's bots through the same services
as real results: a finished 13-player knockout (byes, a walkover, a correction in its audit),
a running 8-player one, a groups-then-knockout in its knockout, a Swiss in its third
round and a double elimination with its first round played; then the ratings.

``build(demo)`` is a part of ``manage.py demo`` (the parts protocol: ``clubs/demo.py``);
``build_tournaments(club, admin=..., scorer=..., rng=..., now=...)`` does the work.
"""

from __future__ import annotations

import random
from datetime import timedelta

from django.utils import timezone

from clubs.demo import ADMIN, DEMO_SLUG, SCORER
from clubs.models import Club
from matches.results import steps
from matches.sputo import services, stages
from matches.sputo.models import TournamentMatch
from matches.sputo.tasks import recompute_from_scratch
from rules.bots import sputo as bot
from rules.check import check_record

VARIANT = "single_deck"
OPTIONS = {"suit_match": False, "splash": True}


def build(demo) -> None:

    build_tournaments(
        demo.clubs[DEMO_SLUG],
        admin=demo.users[ADMIN],
        scorer=demo.users[SCORER],
        rng=demo.rng("sputo-tournaments"),
        now=demo.now,
    )


def _games(rng: random.Random, match: TournamentMatch) -> list[dict]:
    """Bot games between the match's players until one has won the match."""
    names = [match.player_a.display_name, match.player_b.display_name]
    need = match.best_of // 2 + 1
    wins = dict.fromkeys(names, 0)
    games = []
    while max(wins.values()) < need:
        record = bot.random_record(
            rng.randrange(10**9), variant=VARIANT, options=OPTIONS, players=names
        )
        wins[check_record(record)[1]["winner"]] += 1
        games.append({"record": record})
    return games


def _ready(tournament) -> list[TournamentMatch]:
    return [
        m
        for m in TournamentMatch.objects.filter(tournament=tournament, result="")
        .select_related("player_a", "player_b", "tournament")
        .order_by("round", "kind", "position")
        if m.player_a_id and m.player_b_id
    ]


def _tournament(club: Club, admin, players, *, name, starts_at, rng, **values):
    tournament = services.create_tournament(
        club=club,
        by=admin,
        name=name,
        starts_at=starts_at,
        variant=VARIANT,
        options=OPTIONS,
        seeding="random",
        venue=club.venue or "Sala grande",
        **values,
    )
    tournament.seed = rng.randrange(2**40)
    tournament.save(update_fields=["seed"])
    services.update_tournament(tournament=tournament, by=admin, status="registration")
    for player in players:
        services.add_entrant(tournament=tournament, player=player, by=admin)
    return services.draw_tournament(tournament=tournament, by=admin)


def build_tournaments(club: Club, *, admin, scorer, rng: random.Random, now=None) -> None:
    now = now or timezone.now()
    everyone = list(club.players.active().order_by("pk"))
    members = [p for p in everyone if p.user_id]

    # A finished knockout ten days ago: 13 players, so three byes; one walkover.
    started = now - timedelta(days=10)
    finished = _tournament(
        club,
        admin,
        rng.sample(everyone, 13),
        name="Coppa della Matta",
        starts_at=started,
        rng=rng,
        best_of=1,
        final_best_of=3,
        third_place=True,
    )
    minute = 0
    walkover_done = False
    while ready := _ready(finished):
        for match in ready:
            minute += 20
            at = started + timedelta(minutes=minute)
            if not walkover_done and match.round == 1:
                steps.report_outcome(
                    subject=match, payload={"walkover": match.player_a_id}, by=scorer, at=at
                )
                walkover_done = True
                continue
            steps.report_outcome(
                subject=match, payload={"games": _games(rng, match)}, by=scorer, at=at
            )
    # A correction: the scorer had the cards left wrong in a first-round game.
    first = next(
        m
        for m in TournamentMatch.objects.filter(tournament=finished, round=1, result="played")
        .select_related("player_a", "player_b", "tournament")
        .order_by("position")
    )
    outcome = first.outcome_in_force()
    games = [
        {"winner": g["winner"], "cards_left": max(1, g["cards_left"] - 1)}
        for g in outcome.payload["games"]
    ]
    steps.correct_outcome(
        subject=first,
        by=admin,
        payload={"games": games},
        reason="Carte rimaste trascritte male: una in meno",
    )

    # A knockout running tonight: eight players, the first round half played.
    tonight = now - timedelta(hours=1)
    running = _tournament(
        club,
        admin,
        rng.sample(members, 8),
        name="Sputo del venerdì",
        starts_at=tonight,
        rng=rng,
        best_of=1,
        third_place=True,
    )
    first_round = _ready(running)
    for n, match in enumerate(first_round[:3]):
        steps.report_outcome(
            subject=match,
            payload={"games": _games(rng, match)},
            by=scorer,
            at=tonight + timedelta(minutes=15 * (n + 1)),
        )
    waiting = first_round[3]
    games = _games(rng, waiting)
    steps.report_outcome(subject=waiting, payload={"games": games}, by=waiting.player_a.user)

    _stages(club, admin=admin, scorer=scorer, rng=rng, now=now, members=members)
    recompute_from_scratch(club.pk)


def _play_all(tournament, *, scorer, rng, at, **filters) -> None:
    for n, match in enumerate(m for m in _ready(tournament) if _matches(m, filters)):
        steps.report_outcome(
            subject=match,
            payload={"games": _games(rng, match)},
            by=scorer,
            at=at + timedelta(minutes=5 * n),
        )


def _matches(match: TournamentMatch, filters: dict) -> bool:
    return all(getattr(match, key) == value for key, value in filters.items())


def _stages(club: Club, *, admin, scorer, rng, now, members) -> None:
    """A groups then a knockout a week ago, its groups played and its knockout half; a
    Swiss running tonight, two of its four rounds played and the third paired; a double
    elimination of six, its first round played."""
    started = now - timedelta(days=7)
    grouped = _tournament(
        club,
        admin,
        rng.sample(members, 10),
        name="Gironi d'inverno",
        starts_at=started,
        rng=rng,
        format="groups_then_knockout",
        groups=2,
        advance=2,
        third_place=False,
    )
    _play_all(grouped, scorer=scorer, rng=rng, at=started, kind="group")
    stages.make_knockout(tournament=grouped, by=admin)
    grouped.refresh_from_db()
    semi = _ready(grouped)[0]
    steps.report_outcome(subject=semi, payload={"games": _games(rng, semi)}, by=scorer, at=started)
    tonight = now - timedelta(hours=2)
    swissed = _tournament(
        club,
        admin,
        rng.sample(members, 9),
        name="Svizzero del giovedì",
        starts_at=tonight,
        rng=rng,
        format="swiss",
        swiss_rounds=4,
    )
    for number in (1, 2):
        _play_all(swissed, scorer=scorer, rng=rng, at=tonight, round=number)
        stages.next_round(tournament=swissed, by=admin)
    double = _tournament(
        club,
        admin,
        rng.sample(members, 6),
        name="Doppia del sabato",
        starts_at=now - timedelta(days=3),
        rng=rng,
        format="double_elimination",
    )
    _play_all(double, scorer=scorer, rng=rng, at=now - timedelta(days=3), kind="winners")
