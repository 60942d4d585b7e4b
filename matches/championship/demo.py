"""The demo's championship: La Matta's current season counts its tournaments and its club
nights (``manage.py demo``, after the games)."""

from __future__ import annotations

from clubs.demo import DEMO_SLUG, Demo
from matches.championship import services, standings

RULES = {
    "events": {
        "sputo": {"points": [25, 18, 15, 12, 10, 8, 6, 4], "participation": 2},
        "singapore_night": {"points": [10, 7, 5, 3, 2, 1], "participation": 1, "min_games": 3},
        "spazzumazz_night": {"points": [10, 7, 5, 3, 2, 1], "participation": 1, "min_games": 2},
    },
    "best_of": 12,
    "min_events": 2,
    "guests": True,
}


def build(demo: Demo) -> None:
    club = demo.clubs[DEMO_SLUG]
    admin = club.memberships.filter(role="admin").first().user
    for season in club.seasons.all():
        services.set_championship(season=season, by=admin, data=RULES)
        standings.rebuild_season(season)  # the demo's results were made before the rules
