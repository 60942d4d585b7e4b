"""Singapore tables: queries to record a hand through the API, and to build the sheet.

    .venv/bin/python benchmarks/singapore_tables_bench.py
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/circolo_sing \
        .venv/bin/python benchmarks/singapore_tables_bench.py

Prints the queries (and the time) of ``POST /api/v1/table-sessions/{id}/hands/`` at a table
of two people covering and at one of eight with covers and side bets, after 1 and after
200 hands; and the queries and time of the sheet page of a 30-hand and a 300-hand session
(with voids and corrections). The targets: the same number of queries at both sizes.
"""

from __future__ import annotations

import random
import time

from singapore_db import bench_database, vendor


def main() -> None:
    from django.contrib.auth import get_user_model
    from django.db import connection, reset_queries
    from django.test import Client
    from django.test.utils import CaptureQueriesContext
    from rest_framework.test import APIClient

    from clubs import services as clubs
    from clubs.models import Role
    from matches.singapore import services, tasks, turns
    from rules.bots import singapore as bot

    # The statistics task runs in the Celery worker after each hand, not in the request:
    # its own time is printed apart.
    queued = []
    tasks.recompute_stats.delay_on_commit = lambda **kwargs: queued.append(kwargs)
    User = get_user_model()
    admin = User.objects.create_user("bench-admin", password="x" * 12)
    club = clubs.create_club(name="Circolo Bench", founder=admin)
    scorer = User.objects.create_user("bench-scorer", password="x" * 12)
    clubs.add_member(club=club, user=scorer, role=Role.SCORER)
    people = [clubs.add_guest(club=club, display_name=f"Giocatore {n}") for n in range(8)]
    api = APIClient()
    api.force_authenticate(scorer)
    rng = random.Random(8)

    def body(session, many: bool) -> dict:
        state = turns.table_state(session)
        dealer, opponent = state.next
        present = [s.player_id for s in state.seats if s.plays]
        others = [p for p in present if p not in (dealer, opponent)]
        record = bot.random_record(rng.randrange(10**9))
        covers = {str(opponent): 2}
        bets = []
        if many:
            covers.update({str(p): 1 for p in others[:3]})
            bets = [
                {"backer_of_winner": others[3], "backer_of_loser": others[4], "quotas": 1},
                {"backer_of_winner": others[5], "backer_of_loser": others[4], "quotas": 2},
            ]
        return {
            "dealer": dealer,
            "opponent": opponent,
            "winner": rng.choice(["dealer", "opponent"]),
            "winner_cards": record["winner"],
            "loser_cards": record["loser"],
            "dealer_quotas": sum(covers.values()),
            "covers": covers,
            "side_bets": bets,
        }

    print(f"database: {vendor()}")
    print("recording a hand through the API (POST .../hands/):")
    for label, seats, many in (("2 people", people[:2], False), ("8 people", people, True)):
        session = services.open_session(
            club=club, by=scorer, name=label, seats=seats, point_value="0.10", seed=1
        )
        url = f"/api/v1/table-sessions/{session.pk}/hands/"
        for n in range(1, 201):
            data = body(session, many)
            reset_queries()
            with CaptureQueriesContext(connection) as queries:
                start = time.perf_counter()
                response = api.post(url, data, format="json")
                elapsed = time.perf_counter() - start
            assert response.status_code == 201, response.data
            if n in (1, 200):
                print(f"  {label}, hand {n:3}: {len(queries):3} queries, {elapsed * 1000:6.1f} ms")

    print("the session sheet (GET /clubs/<slug>/tables/<id>/sheet/):")
    web = Client()
    web.force_login(scorer)
    for size in (30, 300):
        session = services.open_session(
            club=club, by=scorer, name=f"{size} mani", seats=people[:6], seed=size
        )
        url = f"/api/v1/table-sessions/{session.pk}/hands/"
        hands = [api.post(url, body(session, False), format="json").data for _ in range(size)]
        for hand in hands[5::50]:
            api.post(f"{url}{hand['id']}/void/", {"reason": "prova"}, format="json")
        for hand in hands[7::50]:
            fixed = {k: hand[k] for k in ("winner", "winner_cards", "loser_cards", "covers")}
            fixed.update(dealer_quotas=hand["dealer_quotas"] + 1, reason="una in più")
            fixed["covers"] = {k: v + (i == 0) for i, (k, v) in enumerate(hand["covers"].items())}
            api.post(f"{url}{hand['id']}/correct/", fixed, format="json")
        page = f"/clubs/{club.slug}/tables/{session.pk}/sheet/"
        web.get(page)
        best = float("inf")
        for _ in range(3):
            reset_queries()
            with CaptureQueriesContext(connection) as queries:
                start = time.perf_counter()
                response = web.get(page)
                best = min(best, time.perf_counter() - start)
            assert response.status_code == 200
        rows = len(response.context["sheet"].rows)
        print(f"  {size:3} hands ({rows} rows): {len(queries):2} queries, {best * 1000:6.1f} ms")
        start = time.perf_counter()
        tasks.recompute_stats(**queued[-1])
        print(
            f"  the statistics task after the last of them: "
            f"{(time.perf_counter() - start) * 1000:6.1f} ms"
        )


if __name__ == "__main__":
    with bench_database():
        main()
