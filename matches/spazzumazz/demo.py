"""The demo's Spazz'u'mazz: about 60 games over two seasons' club nights, played by the
rules engine's bot and recorded through the same service as real results (full turn logs,
checked by the engine), so that the statistics, the charts and the renamed game show."""

from __future__ import annotations

import random
from datetime import date, datetime, timedelta

from django.utils import timezone

from clubs.demo import DEMO_SLUG, SCORER
from clubs.models import Club
from matches.spazzumazz.services import record_spazzumazz_game
from rules.bots import spazzumazz as bot

NIGHTS_PER_SEASON = 6
GAMES_PER_NIGHT = 5
REGULARS = 10


def _nights(start: date, end: date, count: int) -> list[date]:
    if end < start:
        return []
    span = (end - start).days
    return sorted({start + timedelta(days=span * (n + 1) // (count + 1)) for n in range(count)})


def play_nights(*, club: Club, scorer, rng: random.Random, now: datetime) -> int:
    """Record the games of the club's last two seasons' nights; how many were recorded."""
    yesterday = timezone.localdate(now) - timedelta(days=1)
    seasons = list(club.seasons.filter(start__lte=yesterday).order_by("-start")[:2])
    regulars = rng.sample(list(club.players.active().order_by("pk")), REGULARS)
    recorded = 0
    for season in reversed(seasons):
        for night in _nights(season.start, min(season.end, yesterday), NIGHTS_PER_SEASON):
            table = rng.sample(regulars, rng.randint(3, 5))
            at = timezone.make_aware(datetime.combine(night, datetime.min.time())) + timedelta(
                hours=21, minutes=rng.randrange(30)
            )
            for n in range(GAMES_PER_NIGHT):
                names = [p.display_name for p in table]
                record = bot.play_game(rng.randrange(10**9), names)
                record_spazzumazz_game(
                    club=club,
                    players=table,
                    by=scorer,
                    record=record,
                    played_at=at + timedelta(minutes=25 * n),
                )
                recorded += 1
                table = table[1:] + table[:1]  # the next game starts with the next player
    return recorded


def build(demo) -> None:
    """``manage.py demo``'s per-app protocol (``circolo/management/commands/demo.py``)."""

    play_nights(
        club=demo.clubs[DEMO_SLUG],
        scorer=demo.users[SCORER],
        rng=demo.rng("spazzumazz"),
        now=demo.now,
    )
