"""Sputo tournaments on the database: the draw of 2 to 1,024 entrants (queries and time),
and the bracket page's queries at 8 and 512 entrants. Both must stay constant.

Runs on a throwaway test database of the configured one: SQLite by default (where Django
splits bulk writes into batches of 999 parameters, so the draw's queries grow there past
a few dozen entrants), or PostgreSQL with DATABASE_URL (one statement per bulk write):

    .venv/bin/python benchmarks/bench_sputo_tournaments.py
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/circolo_bench \
        .venv/bin/python benchmarks/bench_sputo_tournaments.py
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "circolo.settings")

import logging  # noqa: E402

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import CaptureQueriesContext, setup_test_environment  # noqa: E402
from django.utils import timezone  # noqa: E402

DRAW_SIZES = [2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]
PAGE_SIZES = [8, 512]


def tournament_of(club, admin, n: int, name: str):
    from clubs.models import Player
    from matches.models import Entrant
    from matches.sputo import services

    players = Player.objects.bulk_create(
        Player(club=club, display_name=f"{name} {i:04d}") for i in range(n)
    )
    tournament = services.create_tournament(
        club=club, by=admin, name=name, starts_at=timezone.now(), seeding="random"
    )
    services.update_tournament(tournament=tournament, by=admin, status="registration")
    Entrant.objects.bulk_create(Entrant(tournament=tournament, player=p) for p in players)
    return tournament


def main() -> None:
    from clubs import services as club_services
    from matches.results import steps
    from matches.sputo import services

    setup_test_environment()
    logging.disable(logging.INFO)  # the rating tasks, run in-process, log each run
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        admin = get_user_model().objects.create_user("bench-admin", password="x" * 12)
        club = club_services.create_club(name="Circolo Benchmark", founder=admin)
        print(f"Database: {connection.vendor}")
        print(f"{'entrants':>9} {'matches':>8} {'queries':>8} {'ms':>9}")
        for n in DRAW_SIZES:
            tournament = tournament_of(club, admin, n, f"D{n}")
            with CaptureQueriesContext(connection) as queries:
                start = time.perf_counter()
                services.draw_tournament(tournament=tournament, by=admin)
                elapsed = (time.perf_counter() - start) * 1000
            print(f"{n:>9} {tournament.matches.count():>8} {len(queries):>8} {elapsed:>9.1f}")
        print()
        print("The bracket page (a member, first round a quarter played):")
        print(f"{'entrants':>9} {'queries':>8} {'ms':>9} {'htmx queries':>13}")
        client = Client(HTTP_ACCEPT_LANGUAGE="en")
        client.force_login(admin)
        for n in PAGE_SIZES:
            tournament = tournament_of(club, admin, n, f"P{n}")
            services.draw_tournament(tournament=tournament, by=admin)
            first = tournament.matches.filter(round=1, result="").select_related(
                "player_a", "player_b"
            )
            for m in list(first)[: n // 4]:
                payload = {"games": [{"winner": m.player_a_id, "cards_left": 3}]}
                steps.report_outcome(subject=m, payload=payload, by=admin)
            url = f"/clubs/{club.slug}/tournaments/{tournament.pk}/bracket/"
            client.get(url)  # warm the templates
            with CaptureQueriesContext(connection) as queries:
                start = time.perf_counter()
                assert client.get(url).status_code == 200
                elapsed = (time.perf_counter() - start) * 1000
            with CaptureQueriesContext(connection) as htmx:
                assert client.get(url, HTTP_HX_REQUEST="true").status_code == 200
            print(f"{n:>9} {len(queries):>8} {elapsed:>9.1f} {len(htmx):>13}")
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)


if __name__ == "__main__":
    main()
