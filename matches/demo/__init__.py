"""The demo's club nights: each game's part is a module of this package (``singapore.py``,
``sputo.py``, ``spazzumazz.py``, ...), found by ``manage.py demo`` on its own (see
``clubs/demo.py`` for the protocol). A new game, or a new way of playing one, adds its own
module here; the helpers below are what the parts share.
"""

from datetime import datetime, timedelta

from django.utils import timezone

from clubs.demo import DEMO_SLUG, SCORER, Demo
from clubs.models import Club, Player
from matches.models import GameRecord
from matches.results.records import record_game

EVENINGS = 60  # the games are spread over the last 60 evenings


def club(demo: Demo) -> Club:
    """The demo club the games are played at."""
    return demo.clubs[DEMO_SLUG]


def people(demo: Demo) -> list[Player]:
    return list(club(demo).players.active())


def evening(demo: Demo, rng, n: int, of: int) -> datetime:
    """When the n-th of ``of`` games was played: spread over the last evenings, in order."""
    day = timezone.localtime(demo.now - timedelta(days=EVENINGS * (of - n) // of + 1))
    return day.replace(hour=rng.randint(20, 23), minute=rng.randrange(60))


def record(demo: Demo, record: dict, *, played_at: datetime) -> GameRecord:
    """Record a bot's game through the same service as real results, by the demo scorer,
    in the season of its day."""
    at = club(demo)
    season = at.seasons.filter(start__lte=played_at.date(), end__gte=played_at.date()).first()
    return record_game(
        club=at,
        record=record,
        players={player.display_name: player for player in people(demo)},
        recorded_by=demo.users[SCORER],
        played_at=played_at,
        season=season,
    )
