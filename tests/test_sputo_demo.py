"""The demo's Sputo tournaments (``matches/sputo/demo.py``): a finished 13-player knockout
with byes, a walkover and a correction, a running 8-player one, and ratings."""

import random

import pytest

from matches.models import AuditEntry, PlayerRating
from matches.sputo.demo import build_tournaments
from matches.sputo.models import Tournament
from tests.sputo_world import make_guests, make_members

pytestmark = pytest.mark.django_db


def test_the_demo_has_a_finished_and_a_running_tournament_with_ratings(people):
    club = people["club"]
    make_members(club, 12)
    make_guests(club, 3)
    build_tournaments(club, admin=people["admin"], scorer=people["scorer"], rng=random.Random(7))
    finished = Tournament.objects.get(name="Coppa della Matta")
    assert finished.status == "finished"
    assert finished.entrants.count() == 13
    assert finished.matches.filter(result="bye").count() == 3
    assert finished.matches.filter(result="walkover").count() == 1
    assert AuditEntry.objects.filter(
        action="correct", object_id__in=finished.matches.values("pk")
    ).exists()
    final = finished.matches.get(kind="main", round=finished.rounds)
    assert final.best_of == 3 and final.winner_id
    running = Tournament.objects.get(name="Sputo del venerdì")
    assert running.status == "running"
    assert running.matches.filter(round=1).exclude(result="").count() == 3
    assert PlayerRating.objects.filter(club=club, game="sputo").count() >= 12
