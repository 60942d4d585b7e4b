"""Who may open the club nights' pages and call their endpoints: every route, every role,
public and private (``tests/permission_matrix.py``). The world adds a night in each club."""

from datetime import timedelta

import pytest
from django.utils import timezone

from clubs.models import Role
from matches.nights import services
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


def extend_world(world):
    for c in world["clubs"].values():
        c.extra["night"] = services.schedule_night(
            club=c.club,
            by=world["admin"],
            starts_at=timezone.now() + timedelta(days=3),
            games=["singapore"],
        )


def new_night(c):
    when = (timezone.now() + timedelta(days=5)).isoformat()
    return {"club": c.slug, "starts_at": when, "games": ["sputo"], "capacity": 8}


def night_form(c):
    when = timezone.localtime(timezone.now() + timedelta(days=5)).strftime("%Y-%m-%dT%H:%M")
    return {"starts_at": when, "games": ["sputo"]}


API = [
    ("nights", "get", "/api/v1/club-nights/?club={slug}", None, READ, READ),
    ("night", "get", "/api/v1/club-nights/{night}/", None, READ, READ_PRIVATE),
    (
        "night-create",
        "post",
        "/api/v1/club-nights/",
        new_night,
        api_write(Role.ADMIN, public=True, ok=201),
        api_write(Role.ADMIN, public=False, ok=201),
    ),
    (
        "rsvp",
        "post",
        "/api/v1/club-nights/{night}/rsvp/",
        lambda c: {"answer": "yes"},
        api_write(Role.MEMBER, public=True),
        api_write(Role.MEMBER, public=False),
    ),
]

PAGES = [
    ("nights-page", "get", "/clubs/{slug}/club-nights/", None, EVERYONE, MEMBERS),
    ("night-page", "get", "/clubs/{slug}/club-nights/{night}/", None, EVERYONE, MEMBERS),
    (
        "schedule",
        "post",
        "/clubs/{slug}/club-nights/",
        night_form,
        ("login", 403, 403, 403, 302),
        (404, 404, 403, 403, 302),  # a private club is a 404 before any login
    ),
    (
        "answer",
        "post",
        "/clubs/{slug}/club-nights/{night}/answer/",
        lambda c: {"answer": "maybe"},
        page(Role.MEMBER, public=True, ok=302),
        page(Role.MEMBER, public=False, ok=302),
    ),
    (
        "cancel",
        "post",
        "/clubs/{slug}/club-nights/{night}/cancel/",
        lambda c: {},
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
