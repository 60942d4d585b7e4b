"""The club night's hot writes through the API, counted: recording a Singapore hand, a
Spazz'u'mazz game and a Sputo report (a scorer's, in force at once), each after a first
one (caches warm), with the queries of the request itself (what runs after commit, the
statistics, is the worker's)."""

import os

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from tests.singapore_helpers import next_names, open_table, payload
from tests.sputo_world import drawn, make_guests, match_at, win

pytestmark = pytest.mark.django_db

# In a test the request's transaction is a savepoint of the test's own (two queries, as
# SQLite's BEGIN and COMMIT are on a server; PostgreSQL logs neither). Issue 16's target is
# 20 on the server: not met yet; held at what they take now (43, 37 and 28 here before;
# the webhooks' listening check, the inbox and tonight's outbox row and the keys' hash added
# one or two each since), until they are cut further.
MOST_QUERIES = {"singapore hand": 35, "spazzumazz game": 30, "sputo report": 25}


def as_scorer(people) -> APIClient:
    api = APIClient()
    api.force_authenticate(people["scorer"])
    return api


def count(api, url: str, body: dict, name: str) -> int:
    with CaptureQueriesContext(connection) as queries:
        response = api.post(url, body, format="json")
    assert response.status_code == 201, response.data
    if os.environ.get("SHOW_QUERIES"):
        print(name, len(queries), *(q["sql"][:160] for q in queries.captured_queries), sep="\n")
    return len(queries)


def test_recording_a_singapore_hand(people):
    club, mia = people["club"], people["club"].players.get(user=people["member"])
    guests = make_guests(club, 3)
    world = {"club": club, "scorer": people["scorer"], "players": {"mia": mia}}
    world["players"].update({g.display_name: g for g in guests})
    table = open_table(world, list(world["players"]), point_value="0.10", seed=1)
    api, url = as_scorer(people), f"/api/v1/table-sessions/{table.pk}/hands/"
    counts = []
    for _ in range(2):
        dealer, opponent = next_names(world, table)
        body = payload(world, covers={opponent: 1})
        body.update(dealer=world["players"][dealer].pk, opponent=world["players"][opponent].pk)
        counts.append(count(api, url, body, "singapore hand"))
    assert counts[1] <= MOST_QUERIES["singapore hand"]


def test_recording_a_spazzumazz_game(people):
    club = people["club"]
    players = [club.players.get(user=people["member"]), *make_guests(club, 2)]
    ids = [p.pk for p in players]
    api, counts = as_scorer(people), []
    for _ in range(2):
        body = {"club": club.slug, "players": ids, "finish_order": ids[::-1]}
        counts.append(count(api, "/api/v1/spazzumazz-games/", body, "spazzumazz game"))
    assert counts[1] <= MOST_QUERIES["spazzumazz game"]


def test_a_scorers_sputo_report(people):
    club = people["club"]
    tournament = drawn(club, people["admin"], make_guests(club, 8), best_of=1)
    api, counts = as_scorer(people), []
    for position in range(2):
        match = match_at(tournament, 1, position)
        body = win(match, match.player_a)
        url = f"/api/v1/tournament-matches/{match.pk}/report/"
        counts.append(count(api, url, body, "sputo report"))
    assert counts[1] <= MOST_QUERIES["sputo report"]
