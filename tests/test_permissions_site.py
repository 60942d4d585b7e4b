"""Who may open the site's own pages (login, language, admin, health, API docs)."""

import pytest

from tests.permission_matrix import EVERYONE, LOGIN, call, check_status, expand

ROUTES = [
    # The site's other pages.
    ("login", "get", "/accounts/login/", None, EVERYONE, None),
    # The installable app's files (circolo/pwa.py).
    ("manifest", "get", "/manifest.webmanifest", None, EVERYONE, None),
    ("service-worker", "get", "/sw.js", None, EVERYONE, None),
    ("offline", "get", "/offline/", None, EVERYONE, None),
    ("logout", "post", "/accounts/logout/", lambda c: {}, (302, 302, 302, 302, 302), None),
    (
        "password-change",
        "get",
        "/accounts/password_change/",
        None,
        (LOGIN, 200, 200, 200, 200),
        None,
    ),
    (
        "password-change-done",
        "get",
        "/accounts/password_change/done/",
        None,
        (LOGIN, 200, 200, 200, 200),
        None,
    ),
    ("password-reset", "get", "/accounts/password_reset/", None, EVERYONE, None),
    ("password-reset-done", "get", "/accounts/password_reset/done/", None, EVERYONE, None),
    ("password-reset-confirm", "get", "/accounts/reset/MQ/bad-token/", None, EVERYONE, None),
    ("password-reset-complete", "get", "/accounts/reset/done/", None, EVERYONE, None),
    (
        "set-language",
        "post",
        "/i18n/setlang/",
        lambda c: {"language": "en", "next": "/"},
        (302, 302, 302, 302, 302),
        None,
    ),
    # Nobody here is staff: the admin site sends everyone to its own login page.
    ("admin", "get", "/admin/", None, (LOGIN, LOGIN, LOGIN, LOGIN, LOGIN), None),
    ("health", "get", "/health/", None, EVERYONE, None),
    ("favicon", "get", "/favicon.ico", None, (302, 302, 302, 302, 302), None),
    ("api-root", "get", "/api/v1/", None, EVERYONE, None),
    ("api-schema", "get", "/api/schema/", None, EVERYONE, None),
    ("api-docs", "get", "/api/docs/", None, EVERYONE, None),
]


@pytest.mark.parametrize("kind, method, path, body, role, expected", expand(ROUTES))
def test_each_site_page_answers_each_role_as_the_rules_say(
    world, kind, method, path, body, role, expected
):
    response = call(world, kind, method, path, body, role, api=False)
    login_path = "/admin/login/" if path == "/admin/" else "/accounts/login/"
    check_status(response, expected, login_path=login_path)
