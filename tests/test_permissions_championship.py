"""Who may open the championship's pages and call its endpoints: every route, every role,
public and private. The policy and the helpers: ``tests/permission_matrix.py``.

The world adds, in each club's season, a championship of Spazz'u'mazz nights and one
night of two games between Mia, Bea and the club's guest, so that there are standings.
"""

from datetime import datetime

import pytest
from django.utils import timezone

from clubs.models import Role
from matches.championship import services, standings
from matches.spazzumazz.services import record_spazzumazz_game
from tests.permission_matrix import (
    EVERYONE,
    MEMBERS,
    READ,
    READ_PRIVATE,
    api_write,
    call,
    check_status,
    expand,
    page,
)

RULES = {"events": {"spazzumazz_night": {"points": [3, 2, 1], "participation": 1}}}


def extend_world(world):
    night = timezone.make_aware(datetime(2025, 1, 15, 21, 0))
    for c in world["clubs"].values():
        mia, bea = c.player_of(world["member"]), c.player_of(world["bea"])
        c.season.refresh_from_db()  # made from strings: its dates as dates
        services.set_championship(season=c.season, by=world["admin"], data=RULES)
        for order in ([mia, bea, c.guest], [bea, c.guest, mia]):
            record_spazzumazz_game(
                club=c.club,
                players=order,
                by=world["scorer"],
                finish_order=[p.pk for p in order],
                played_at=night,
            )
        standings.rebuild_season(c.season)


def rules_body(c):
    return RULES


def final_body(c):
    return {"top": 2, "format": "single_elimination", "name": "Finale"}


def rules_form(c):
    return {
        "spazzumazz_night_counts": "on",
        "spazzumazz_night_points": "3, 2",
        "spazzumazz_night_participation": 0,
        "spazzumazz_night_min_games": 0,
        "sputo_participation": 0,
        "singapore_night_participation": 0,
        "singapore_night_min_games": 0,
        "min_events": 0,
        "guests": "on",
    }


def final_form(c):
    return {"top": 2, "format": "round_robin", "name": "Finale"}


API = [
    ("championship", "get", "/api/v1/seasons/{season}/championship/", None, READ, READ_PRIVATE),
    (
        "championship-put",
        "put",
        "/api/v1/seasons/{season}/championship/",
        rules_body,
        api_write(Role.ADMIN, public=True),
        api_write(Role.ADMIN, public=False),
    ),
    ("standings", "get", "/api/v1/seasons/{season}/standings/", None, READ, READ_PRIVATE),
    (
        "final",
        "post",
        "/api/v1/seasons/{season}/final/",
        final_body,
        api_write(Role.ADMIN, public=True, ok=201),
        api_write(Role.ADMIN, public=False, ok=201),
    ),
]

PAGES = [
    ("current", "get", "/clubs/{slug}/championship/", None, (302,) * 5, (404, 404, 302, 302, 302)),
    (
        "standings-page",
        "get",
        "/clubs/{slug}/seasons/{season}/championship/",
        None,
        EVERYONE,
        MEMBERS,
    ),
    (
        "standings-csv",
        "get",
        "/clubs/{slug}/seasons/{season}/championship/standings.csv",
        None,
        EVERYONE,
        MEMBERS,
    ),
    (
        "rules",
        "post",
        "/clubs/{slug}/seasons/{season}/championship/rules/",
        rules_form,
        page(Role.ADMIN, public=True, ok=302),
        page(Role.ADMIN, public=False, ok=302),
    ),
    (
        "final-page",
        "post",
        "/clubs/{slug}/seasons/{season}/championship/final/",
        final_form,
        page(Role.ADMIN, public=True, ok=302),
        page(Role.ADMIN, public=False, ok=302),
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


def test_the_standings_are_there_to_read(world):
    from rest_framework.test import APIClient

    c = world["clubs"]["public"]
    body = APIClient().get(f"/api/v1/seasons/{c.season.pk}/standings/").json()
    assert len(body["rows"]) == 3 and body["rows"][0]["rank"] == 1
