"""Who may open the account pages (signing up, confirming an address, the profile). They
belong to no club: one row per route, the public column only."""

import pytest

from tests.conftest import PASSWORD
from tests.permission_matrix import EVERYONE, LOGIN, call, check_status, expand

SIGNED_IN = (LOGIN, 200, 200, 200, 200)
ALL_REDIRECTED = (302, 302, 302, 302, 302)

ROUTES = [
    # Signed-in people have an account already: the sign-up page sends them home.
    ("signup-form", "get", "/accounts/signup/", None, (200, 302, 302, 302, 302), None),
    (
        "signup",
        "post",
        "/accounts/signup/",
        lambda c: {
            "username": "newcomer",
            "email": "newcomer@example.org",
            "password1": PASSWORD,
            "password2": PASSWORD,
        },
        ALL_REDIRECTED,
        None,
    ),
    ("confirm-sent", "get", "/accounts/confirm/", None, EVERYONE, None),
    (
        "confirm-resend",
        "post",
        "/accounts/confirm/",
        lambda c: {"email": "newcomer@example.org"},
        ALL_REDIRECTED,
        None,
    ),
    ("confirm-link", "get", "/accounts/confirm/not-a-token/", None, EVERYONE, None),
    # A bad link is a page that says so, with a form to ask for a new one.
    ("confirm-link-post", "post", "/accounts/confirm/not-a-token/", lambda c: {}, EVERYONE, None),
    ("profile", "get", "/accounts/profile/", None, SIGNED_IN, None),
    (
        "profile-save",
        "post",
        "/accounts/profile/",
        lambda c: {"display_name": "Nome Nuovo"},
        (LOGIN, 302, 302, 302, 302),
        None,
    ),
    # Each person revokes their own API tokens (one by its digest, or all of them).
    (
        "revoke-tokens",
        "post",
        "/accounts/profile/tokens/",
        lambda c: {},
        (LOGIN, 302, 302, 302, 302),
        None,
    ),
    (
        "revoke-token",
        "post",
        "/accounts/profile/tokens/",
        lambda c: {"token": "x"},
        (LOGIN, 302, 302, 302, 302),
        None,
    ),
]


@pytest.mark.parametrize("kind, method, path, body, role, expected", expand(ROUTES))
def test_each_account_page_answers_each_role_as_the_rules_say(
    world, kind, method, path, body, role, expected
):
    check_status(call(world, kind, method, path, body, role, api=False), expected)
