"""Who may open Spazz'u'mazz's and the boards' pages and call their endpoints: every route,
every role, public and private. The policy and the helpers: ``tests/permission_matrix.py``.

The world adds, in each club, three games of Mia (the member under test), Bea (another
member) and the club's guest: one reported by Bea and waiting, one disputed, one in force.
"""

import pytest
from django.core import mail

from clubs.models import Role
from matches.results import steps
from matches.spazzumazz.services import record_spazzumazz_game
from tests.permission_matrix import (
    EVERYONE,
    LOGIN,
    MEMBERS,
    READ,
    READ_PRIVATE,
    A,
    call,
    check_status,
    expand,
    page,
)

MEMBER, SCORER = Role.MEMBER, Role.SCORER


def extend_world(world):
    for c in world["clubs"].values():
        mia, bea = c.player_of(world["member"]), c.player_of(world["bea"])
        table = [mia, bea, c.guest]
        order = [bea.pk, c.guest.pk, mia.pk]

        def game(by, c=c, table=table, order=order):
            return record_spazzumazz_game(club=c.club, players=table, by=by, finish_order=order)[0]

        c.extra["reported"] = game(world["bea"])
        c.extra["disputed"] = game(world["bea"])
        steps.dispute_outcome(subject=c.extra["disputed"], by=world["scorer"], reason="No")
        c.extra["confirmed"] = game(world["scorer"])
        c.extra["mia"], c.extra["bea_player"] = mia, bea


def players(c):
    return [c.extra["mia"].pk, c.extra["bea_player"].pk, c.guest.pk]


def new_game(c):
    ids = players(c)
    return {"club": c.slug, "players": ids, "finish_order": ids[::-1]}


def batch(c):
    ids = players(c)
    return {"club": c.slug, "players": ids, "finish_orders": [ids, ids[::-1]]}


def order_form(c):
    ids = ",".join(str(i) for i in players(c))
    return {"players": ids, "order": ids}


def correction(c):
    return {"reason": "Ordine sbagliato", "finish_order": players(c)}


# Statuses in ROLES order: anonymous, outsider, member (Mia, who plays), scorer, admin.
PLAYERS_OR_SCORERS = (A, 403, 200, 200, 200)
PLAYERS_OR_SCORERS_PRIVATE = (A, 404, 200, 200, 200)
REPORTER_ONLY = (A, 403, 403, 403, 403)  # Bea reported: nobody under test may withdraw
REPORTER_ONLY_PRIVATE = (A, 404, 403, 403, 403)
SCORERS = (A, 403, 403, 200, 200)
SCORERS_PRIVATE = (A, 404, 403, 200, 200)

API = [
    ("games-list", "get", "/api/v1/spazzumazz-games/", None, READ, None),
    ("games-list-filtered", "get", "/api/v1/spazzumazz-games/?club__slug={slug}", None, READ, READ),
    ("games-retrieve", "get", "/api/v1/spazzumazz-games/{confirmed}/", None, READ, READ_PRIVATE),
    # A private club the caller cannot see is an unknown club: 404 on `club`, as for a typo.
    (
        "games-create",
        "post",
        "/api/v1/spazzumazz-games/",
        new_game,
        (A, 403, 201, 201, 201),
        (A, 404, 201, 201, 201),
    ),
    (
        "games-batch",
        "post",
        "/api/v1/spazzumazz-games/batch/",
        batch,
        (A, 403, 201, 201, 201),
        (A, 404, 201, 201, 201),
    ),
    (
        "games-confirm",
        "post",
        "/api/v1/spazzumazz-games/{reported}/confirm/",
        None,
        PLAYERS_OR_SCORERS,
        PLAYERS_OR_SCORERS_PRIVATE,
    ),
    (
        "games-dispute",
        "post",
        "/api/v1/spazzumazz-games/{reported}/dispute/",
        lambda c: {"reason": "Pino è uscito prima"},
        PLAYERS_OR_SCORERS,
        PLAYERS_OR_SCORERS_PRIVATE,
    ),
    (
        "games-withdraw",
        "post",
        "/api/v1/spazzumazz-games/{reported}/withdraw/",
        None,
        REPORTER_ONLY,
        REPORTER_ONLY_PRIVATE,
    ),
    (
        "games-decide",
        "post",
        "/api/v1/spazzumazz-games/{disputed}/decide/",
        lambda c: {"uphold": True},
        SCORERS,
        SCORERS_PRIVATE,
    ),
    (
        "games-correct",
        "post",
        "/api/v1/spazzumazz-games/{confirmed}/correct/",
        correction,
        SCORERS,
        SCORERS_PRIVATE,
    ),
    (
        "games-void",
        "post",
        "/api/v1/spazzumazz-games/{confirmed}/void/",
        lambda c: {"reason": "Per prova"},
        SCORERS,
        SCORERS_PRIVATE,
    ),
    (
        "games-delete",
        "delete",
        "/api/v1/spazzumazz-games/{confirmed}/",
        None,
        (A, 405, 405, 405, 405),
        None,
    ),
    ("idiot-stats", "get", "/api/v1/clubs/{slug}/idiot-stats/", None, READ, READ_PRIVATE),
    (
        "idiot-stats-season",
        "get",
        "/api/v1/clubs/{slug}/idiot-stats/?season={season}",
        None,
        READ,
        READ_PRIVATE,
    ),
    (
        "leaderboard",
        "get",
        "/api/v1/clubs/{slug}/leaderboards/spazzumazz/?min_games=1",
        None,
        READ,
        READ_PRIVATE,
    ),
    (
        "ratings",
        "get",
        "/api/v1/players/{guest}/ratings/?game=spazzumazz",
        None,
        READ,
        READ_PRIVATE,
    ),
    ("head-to-head", "get", "/api/v1/players/{guest}/head-to-head/", None, READ, READ_PRIVATE),
]

PAGES = [
    ("leaderboards", "get", "/clubs/{slug}/leaderboards/", None, EVERYONE, MEMBERS),
    ("player", "get", "/clubs/{slug}/players/{guest}/", None, EVERYONE, MEMBERS),
    ("nights", "get", "/clubs/{slug}/nights/", None, EVERYONE, MEMBERS),
    ("night", "get", "/clubs/{slug}/nights/2025-01-15/", None, EVERYONE, MEMBERS),
    ("tonight", "get", "/clubs/{slug}/tonight/", None, EVERYONE, MEMBERS),
    ("tonight-screen", "get", "/clubs/{slug}/tonight/?screen=1", None, EVERYONE, MEMBERS),
    ("tonight-events", "get", "/clubs/{slug}/tonight/events/", None, EVERYONE, MEMBERS),
    # The e-mail preference is the signed-in user's own, on their profile.
    (
        "night-reports-preference",
        "post",
        "/accounts/profile/night-reports/",
        lambda c: {"club": [c.club.pk]},
        (LOGIN, 302, 302, 302, 302),
        None,
    ),
    ("games", "get", "/clubs/{slug}/spazzumazz/", None, EVERYONE, MEMBERS),
    ("game", "get", "/clubs/{slug}/spazzumazz/{confirmed}/", None, EVERYONE, MEMBERS),
    (
        "quick-entry",
        "get",
        "/clubs/{slug}/spazzumazz/new/",
        None,
        page(MEMBER, public=True),
        page(MEMBER, public=False),
    ),
    (
        "quick-entry-save",
        "post",
        "/clubs/{slug}/spazzumazz/new/",
        order_form,
        page(MEMBER, public=True, ok=302),
        page(MEMBER, public=False, ok=302),
    ),
    (
        "step-confirm",
        "post",
        "/clubs/{slug}/spazzumazz/{reported}/confirm/",
        lambda c: {},
        page(MEMBER, public=True, ok=302),
        page(MEMBER, public=False, ok=302),
    ),
    (
        "step-withdraw",
        "post",
        "/clubs/{slug}/spazzumazz/{reported}/withdraw/",
        lambda c: {},
        (LOGIN, 403, 403, 403, 403),
        (LOGIN, 404, 403, 403, 403),
    ),
    (
        "step-void",
        "post",
        "/clubs/{slug}/spazzumazz/{confirmed}/void/",
        lambda c: {"reason": "Per prova"},
        (LOGIN, 403, 403, 302, 302),
        (LOGIN, 404, 403, 302, 302),
    ),
    (
        "step-get",
        "get",
        "/clubs/{slug}/spazzumazz/{confirmed}/void/",
        None,
        (405, 405, 405, 405, 405),
        (405, 405, 405, 405, 405),
    ),
]

ROUTES = API + PAGES


@pytest.mark.parametrize("kind, method, path, body, role, expected", expand(API))
def test_each_endpoint_answers_each_role_as_the_rules_say(
    world, kind, method, path, body, role, expected
):
    check_status(call(world, kind, method, path, body, role, api=True), expected)


@pytest.mark.parametrize("kind, method, path, body, role, expected", expand(PAGES))
def test_each_page_answers_each_role_as_the_rules_say(
    world, kind, method, path, body, role, expected
):
    check_status(call(world, kind, method, path, body, role, api=False), expected)


def test_a_private_clubs_games_are_not_listed_to_outsiders(world):
    from rest_framework.test import APIClient

    from tests.permission_matrix import client_for

    private = world["clubs"]["private"]
    listed = client_for(world, "outsider", APIClient).get("/api/v1/spazzumazz-games/").json()
    assert private.extra["confirmed"].pk not in {g["id"] for g in listed["results"]}
    mine = client_for(world, "member", APIClient).get("/api/v1/spazzumazz-games/").json()
    assert private.extra["confirmed"].pk in {g["id"] for g in mine["results"]}
    assert not mail.outbox
