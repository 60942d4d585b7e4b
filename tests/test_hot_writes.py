"""The club night's hot writes through the API, counted: recording a Singapore hand, a
Spazz'u'mazz game and a Sputo report (a scorer's, in force at once), each after a first
one (caches warm), with the queries of the request itself (what runs after commit, the
statistics, is the worker's)."""

import os
import traceback
from pathlib import Path

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from tests.singapore_helpers import next_names, open_table, payload
from tests.sputo_world import drawn, make_guests, match_at, win

pytestmark = pytest.mark.django_db
ROOT = f"{Path(__file__).resolve().parents[1]}/"

# The most queries each write may take, the same on SQLite and PostgreSQL: a report on a
# match locks it and looks at its results; a hand or a game the write has just made is
# neither read again nor looked at (``steps.record_new``); a new hand's posting is not
# looked for by its key, which nothing can have yet (``ledger.post_transaction(new=True)``);
# the answer is read in the write's own transaction (so that a connection lost after the
# commit never costs the answer: tests/test_db_retry.py), which the view opens and the
# service runs in with no savepoint of its own (``plumbing.transactions``). In a test the
# request's transaction is a savepoint of the test's own: two queries, as SQLite's BEGIN
# and COMMIT are on a server (PostgreSQL logs neither), and counted here.
MOST_QUERIES = {"singapore hand": 20, "spazzumazz game": 20, "sputo report": 19}


def as_scorer(people) -> APIClient:
    api = APIClient()
    api.force_authenticate(people["scorer"])
    return api


def _where(execute, sql, params, many, context, *, log: list):
    """With SHOW_QUERIES: each query and the app's code that asked for it."""
    frames = [
        f"{f.filename.removeprefix(ROOT)}:{f.lineno} {f.name}"
        for f in traceback.extract_stack()
        if f.filename.startswith(ROOT) and not f.filename.startswith((f"{ROOT}tests", f"{ROOT}."))
    ]
    log.append(f"{sql[:60]}\n    {' < '.join(frames[-3:][::-1])}")
    return execute(sql, params, many, context)


def count(api, url: str, body: dict, name: str, *, shown: str) -> int:
    """The queries of one write; its answer must be what a read of the same thing gives
    (``shown``: where it is read, ``{id}`` its id)."""
    log: list[str] = []
    with (
        CaptureQueriesContext(connection) as queries,
        connection.execute_wrapper(lambda *call: _where(*call, log=log)),
    ):
        response = api.post(url, body, format="json")
    # Counted now: the read below is a request, and a request's start empties the log of
    # queries that ``queries`` is a slice of.
    counted = len(queries)
    assert response.status_code == 201, response.data
    if os.environ.get("SHOW_QUERIES"):
        print(name, counted, *log, sep="\n")
    answer = response.json()
    read = api.get(shown.format(id=answer.get("id")))
    assert read.status_code == 200
    assert answer == read.json()
    return counted


def singapore_hands(people) -> list[int]:
    """Two hands recorded at a table: the queries of each."""
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
        shown = f"{url}{{id}}/"
        counts.append(count(api, url, body, "singapore hand", shown=shown))
    return counts


def spazzumazz_games(people) -> list[int]:
    """Two games recorded by the same players: the queries of each."""
    club = people["club"]
    players = [club.players.get(user=people["member"]), *make_guests(club, 2)]
    ids = [p.pk for p in players]
    api, counts = as_scorer(people), []
    for _ in range(2):
        body = {"club": club.slug, "players": ids, "finish_order": ids[::-1]}
        url = "/api/v1/spazzumazz-games/"
        counts.append(count(api, url, body, "spazzumazz game", shown=f"{url}{{id}}/"))
    return counts


def sputo_reports(people) -> list[int]:
    """Two first-round matches of a tournament reported: the queries of each."""
    club = people["club"]
    tournament = drawn(club, people["admin"], make_guests(club, 8), best_of=1)
    api, counts = as_scorer(people), []
    for position in range(2):
        match = match_at(tournament, 1, position)
        body = win(match, match.player_a)
        url = f"/api/v1/tournament-matches/{match.pk}/report/"
        shown = f"/api/v1/tournament-matches/{match.pk}/"
        counts.append(count(api, url, body, "sputo report", shown=shown))
    return counts


def test_recording_a_singapore_hand(people):
    assert singapore_hands(people)[1] <= MOST_QUERIES["singapore hand"]


def test_recording_a_spazzumazz_game(people):
    assert spazzumazz_games(people)[1] <= MOST_QUERIES["spazzumazz game"]


def test_a_scorers_sputo_report(people):
    assert sputo_reports(people)[1] <= MOST_QUERIES["sputo report"]


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("write", [singapore_hands, spazzumazz_games, sputo_reports])
def test_each_hot_write_opens_its_own_transaction(people, write):
    """The same writes outside a test's transaction, as on the server (no
    ``ATOMIC_REQUESTS``): each service opens its own, and the result cycle's steps that
    need their caller's (``record_new``) refuse to run without one. (Not
    counted against the budget: here what a write queues runs after its commit, within
    the request.)"""
    write(people)


@pytest.mark.django_db(transaction=True)
def test_a_write_within_its_callers_transaction_refuses_to_run_without_one(people):
    """``.within`` is for a caller that holds the transaction: outside one it refuses, and
    writes nothing; inside one, a refusal rolls the caller's whole transaction back."""
    from django.core.exceptions import ValidationError
    from django.db import transaction

    from matches.models import SpazzumazzGame
    from matches.spazzumazz.services import record_spazzumazz_game

    club = people["club"]
    players = [club.players.get(user=people["member"]), *make_guests(club, 2)]
    ids = [p.pk for p in players]
    with pytest.raises(RuntimeError, match="needs the caller's transaction"):
        record_spazzumazz_game.within(
            club=club, players=players, by=people["scorer"], finish_order=ids
        )
    assert not SpazzumazzGame.objects.filter(club=club).exists()
    with pytest.raises(ValidationError), transaction.atomic():
        record_spazzumazz_game.within(
            club=club, players=players, by=people["scorer"], finish_order=ids
        )
        record_spazzumazz_game.within(
            club=club, players=players, by=people["scorer"], finish_order=ids[:1]
        )
    assert not SpazzumazzGame.objects.filter(club=club).exists()
    with transaction.atomic():
        record_spazzumazz_game.within(
            club=club, players=players, by=people["scorer"], finish_order=ids
        )
    assert SpazzumazzGame.objects.filter(club=club).count() == 1
