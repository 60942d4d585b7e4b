"""A request whose PostgreSQL connection is terminated (``pg_terminate_backend``) before it
commits anything runs again on a new connection and answers as usual; one terminated after
its commit is not run again (it would record twice). ``circolo/db_retry.py``; the
integration run (PostgreSQL)."""

import psycopg
import pytest
from django.conf import settings
from django.db import connection
from rest_framework.test import APIClient

from matches.models import SpazzumazzGame
from plumbing.outbox.models import Message

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def _postgresql():
    if connection.vendor != "postgresql":
        pytest.skip("terminating a connection needs PostgreSQL (the integration run)")


def terminate(pid: int) -> None:
    db = settings.DATABASES["default"]
    with psycopg.connect(
        host=db["HOST"] or "127.0.0.1",
        port=db["PORT"] or 5432,
        user=db["USER"],
        dbname=db["NAME"],
        autocommit=True,
    ) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", [pid])


class Terminator:
    """An ``execute_wrapper`` that terminates the request's own connection once, just
    before the first query for which ``when(sql, connection)`` is true."""

    def __init__(self, when):
        self.when = when
        self.done = False

    def __call__(self, execute, sql, params, many, context):
        db = context["connection"]
        if not self.done and self.when(sql, db):
            self.done = True
            terminate(db.connection.info.backend_pid)
        return execute(sql, params, many, context)


def post_game(people, terminator, **headers):
    api = APIClient(raise_request_exception=False)
    api.force_authenticate(people["scorer"])
    club = people["club"]
    players = [club.players.get(user=people["member"]).pk, people["guest"].pk]
    body = {"club": club.slug, "players": players, "finish_order": players}
    with connection.execute_wrapper(terminator):
        response = api.post("/api/v1/spazzumazz-games/", body, format="json", **headers)
    connection.close()  # the test client keeps a broken connection open
    return response


def test_a_write_that_lost_its_connection_before_committing_runs_again_once(people, caplog):
    terminator = Terminator(lambda sql, db: 'INSERT INTO "matches_spazzumazzgame"' in sql)
    response = post_game(people, terminator)
    assert terminator.done
    assert response.status_code == 201, response.content
    # Its first run is a warning, not an error with a traceback.
    assert [r.levelname for r in caplog.records if r.name.startswith("django.request")] == []
    assert "lost during POST /api/v1/spazzumazz-games/ (uncommitted)" in caplog.text
    assert SpazzumazzGame.objects.count() == 1
    assert Message.objects.filter(task__endswith="update_spazzumazz_stats").count() == 1


def test_a_write_that_lost_its_connection_after_committing_is_not_run_again(people):
    seen = []

    def after_the_commit(sql, db):
        if 'INSERT INTO "matches_spazzumazzgame"' in sql:
            seen.append(True)
        return bool(seen) and not db.in_atomic_block

    terminator = Terminator(after_the_commit)
    response = post_game(people, terminator)
    assert terminator.done
    # The answer is built from what was written (nothing read back after the commit): the
    # lost connection costs only the after-commit sending, which the outbox keeps.
    assert response.status_code == 201
    assert SpazzumazzGame.objects.count() == 1  # recorded once
    assert response.json()["id"] == SpazzumazzGame.objects.get().pk
    waiting = Message.objects.filter(task__endswith="update_spazzumazz_stats", done_at=None)
    assert waiting.count() == 1  # for the sweep: never lost


def test_a_keyed_game_that_lost_its_connection_after_committing_runs_again_and_is_the_same(
    people,
):
    seen = []

    def after_the_commit(sql, db):
        if 'INSERT INTO "matches_spazzumazzgame"' in sql:
            seen.append(True)
        return bool(seen) and not db.in_atomic_block

    terminator = Terminator(after_the_commit)
    response = post_game(people, terminator, HTTP_IDEMPOTENCY_KEY="phone-1:game-1")
    assert terminator.done
    assert response.status_code == 200, response.content  # the game already recorded
    assert SpazzumazzGame.objects.count() == 1
    assert response.json()["id"] == SpazzumazzGame.objects.get().pk


def test_a_keyed_hand_that_lost_its_connection_after_committing_runs_again_and_is_the_same(
    make_user,
):
    from matches.models import Hand
    from tests.singapore_helpers import CLOSING, SEVENTY, make_table, open_table

    world = make_table(make_user)
    session = open_table(world, ["Anna", "Bruno", "Carla"], first=("Anna", "Bruno"))
    anna, bruno = world["players"]["Anna"].pk, world["players"]["Bruno"].pk
    body = {
        "dealer": anna,
        "opponent": bruno,
        "winner": "dealer",
        "winner_cards": CLOSING,
        "loser_cards": SEVENTY,
        "dealer_quotas": 1,
        "covers": {str(bruno): 1},
        "side_bets": [],
    }
    seen = []

    def after_the_commit(sql, db):
        if 'INSERT INTO "matches_hand"' in sql:
            seen.append(True)
        return bool(seen) and not db.in_atomic_block

    api = APIClient(raise_request_exception=False)
    api.force_authenticate(world["scorer"])
    terminator = Terminator(after_the_commit)
    with connection.execute_wrapper(terminator):
        response = api.post(
            f"/api/v1/table-sessions/{session.pk}/hands/",
            body,
            format="json",
            HTTP_IDEMPOTENCY_KEY="phone-1:hand-1",
        )
    connection.close()
    assert terminator.done
    assert response.status_code == 200, response.content  # the hand already recorded
    assert Hand.objects.count() == 1 and response.json()["id"] == Hand.objects.get().pk
