"""Who may manage a club's webhooks, on the settings page and through the API: its admins,
and nobody else. A webhook (and its secret) is invisible to anyone else: a 404, like an
invitation; registering one for a club you see but do not administer is a 403. The policy
and the helpers: ``tests/permission_matrix.py``."""

import pytest

from clubs.models import Role
from clubs.webhooks.models import Webhook
from tests.permission_matrix import (
    MINE,
    NOT_ALLOWED,
    POST_ONLY,
    A,
    api_write,
    call,
    check_status,
    expand,
    page,
)

ADMIN = Role.ADMIN
ADMINS_ONLY = (A, 404, 404, 404, 200)  # an API object only the club's admins see


@pytest.fixture(autouse=True)
def _private_addresses_allowed(settings):
    settings.WEBHOOK_ALLOW_PRIVATE = True


def extend_world(world):
    for c in world["clubs"].values():
        c.extra["webhook"] = Webhook.objects.create(
            club=c.club, url="http://127.0.0.1:9/in", events=["match.ready"]
        )


def form(c):
    return {"url": "http://127.0.0.1:9/other", "events": ["result.confirmed"]}


def api_body(c):
    return {"club": c.slug, "url": "http://127.0.0.1:9/other", "events": ["result.confirmed"]}


PAGES = [
    (
        "webhook-add",
        "post",
        "/clubs/{slug}/settings/webhooks/",
        form,
        page(ADMIN, public=True, ok=302),
        page(ADMIN, public=False, ok=302),
    ),
    ("webhook-add-get", "get", "/clubs/{slug}/settings/webhooks/", None, POST_ONLY, POST_ONLY),
    *(
        (
            f"webhook-{step}",
            "post",
            f"/clubs/{{slug}}/settings/webhooks/{{webhook}}/{step}/",
            lambda c: {},
            page(ADMIN, public=True, ok=302),
            page(ADMIN, public=False, ok=302),
        )
        for step in ("pause", "resume", "delete")
    ),
    *(
        (
            f"webhook-{step}-get",
            "get",
            f"/clubs/{{slug}}/settings/webhooks/{{webhook}}/{step}/",
            None,
            POST_ONLY,
            POST_ONLY,
        )
        for step in ("pause", "resume")
    ),
    (
        "webhook-delete-get",
        "get",
        "/clubs/{slug}/settings/webhooks/{webhook}/delete/",
        None,
        page(ADMIN, public=True),
        page(ADMIN, public=False),
    ),
]

API = [
    ("webhooks-list", "get", "/api/v1/webhooks/", None, MINE, None),
    (
        "webhooks-create",
        "post",
        "/api/v1/webhooks/",
        api_body,
        api_write(ADMIN, public=True, ok=201),
        api_write(ADMIN, public=False, ok=201),
    ),
    ("webhooks-retrieve", "get", "/api/v1/webhooks/{webhook}/", None, ADMINS_ONLY, ADMINS_ONLY),
    (
        "webhooks-deliveries",
        "get",
        "/api/v1/webhooks/{webhook}/deliveries/",
        None,
        ADMINS_ONLY,
        ADMINS_ONLY,
    ),
    *(
        (
            f"webhooks-{step}",
            "post",
            f"/api/v1/webhooks/{{webhook}}/{step}/",
            lambda c: {},
            ADMINS_ONLY,
            ADMINS_ONLY,
        )
        for step in ("pause", "resume")
    ),
    (
        "webhooks-delete",
        "delete",
        "/api/v1/webhooks/{webhook}/",
        None,
        (A, 404, 404, 404, 204),
        (A, 404, 404, 404, 204),
    ),
    ("webhooks-update", "patch", "/api/v1/webhooks/{webhook}/", lambda c: {}, NOT_ALLOWED, None),
]

ROUTES = PAGES + API


@pytest.mark.parametrize("kind, method, path, body, role, expected", expand(PAGES))
def test_each_webhook_page_answers_each_role_as_the_rules_say(
    world, kind, method, path, body, role, expected
):
    check_status(call(world, kind, method, path, body, role, api=False), expected)


@pytest.mark.parametrize("kind, method, path, body, role, expected", expand(API))
def test_each_webhook_endpoint_answers_each_role_as_the_rules_say(
    world, kind, method, path, body, role, expected
):
    check_status(call(world, kind, method, path, body, role, api=True), expected)


@pytest.mark.parametrize("role", ["anonymous", "outsider", "member", "scorer"])
def test_a_refused_webhook_action_changes_nothing(world, role):
    c = world["clubs"]["private"]
    before = list(Webhook.objects.values_list("pk", "url", "paused_at"))
    for _name, method, path, body, _public, _private in ROUTES:
        if method != "get":
            call(world, "private", method, path, body, role, api=path.startswith("/api/"))
    assert list(Webhook.objects.values_list("pk", "url", "paused_at")) == before, c.slug
