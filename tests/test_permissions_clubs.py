"""Who may open the clubs' pages and call the clubs' endpoints: every route, every role,
public and private. The policy and the helpers: ``tests/permission_matrix.py``."""

import pytest
from rest_framework.test import APIClient

from clubs import services
from clubs.models import Membership, Role, Season
from tests.conftest import PASSWORD
from tests.permission_matrix import (
    EVERYONE,
    LOGIN,
    MEMBERS,
    MINE,
    NOT_ALLOWED,
    POST_ONLY,
    READ,
    READ_PRIVATE,
    ROLES,
    A,
    api_write,
    call,
    check_status,
    client_for,
    expand,
    fill,
    page,
    same_page,
)

MEMBER, SCORER, ADMIN = Role.MEMBER, Role.SCORER, Role.ADMIN

PAGES = [
    ("home", "get", "/", None, EVERYONE, None),
    ("club-list", "get", "/clubs/", None, EVERYONE, None),
    ("club-list-search", "get", "/clubs/?q=Circolo", None, EVERYONE, None),
    ("club-create-form", "get", "/clubs/new/", None, (LOGIN, 200, 200, 200, 200), None),
    (
        "club-create",
        "post",
        "/clubs/new/",
        lambda c: {
            "name": "Circolo Nuovo",
            "city": "Bari",
            "is_public": "on",
            "point_value": "0.10",
            "currency": "EUR",
            "language": "it",
        },
        (LOGIN, 302, 302, 302, 302),
        None,
    ),
    ("club-detail", "get", "/clubs/{slug}/", None, EVERYONE, MEMBERS),
    (
        "members",
        "get",
        "/clubs/{slug}/members/",
        None,
        page(MEMBER, public=True),
        page(MEMBER, public=False),
    ),
    (
        "add-guest",
        "post",
        "/clubs/{slug}/members/guests/",
        lambda c: {
            "display_name": "Nuovo Ospite",
        },
        page(SCORER, public=True, ok=302),
        page(SCORER, public=False, ok=302),
    ),
    ("add-guest-get", "get", "/clubs/{slug}/members/guests/", None, POST_ONLY, POST_ONLY),
    (
        "merge-guest",
        "post",
        "/clubs/{slug}/members/merge/",
        lambda c: {
            "source": c.spare.pk,
            "target": c.guest.pk,
        },
        page(ADMIN, public=True, ok=302),
        page(ADMIN, public=False, ok=302),
    ),
    # GET asks to confirm the merge chosen on the members page (without a choice: back there).
    (
        "merge-guest-confirm",
        "get",
        "/clubs/{slug}/members/merge/?source={spare}&target={guest}",
        None,
        page(ADMIN, public=True),
        page(ADMIN, public=False),
    ),
    (
        "merge-guest-no-choice",
        "get",
        "/clubs/{slug}/members/merge/",
        None,
        page(ADMIN, public=True, ok=302),
        page(ADMIN, public=False, ok=302),
    ),
    (
        "rename-guest",
        "post",
        "/clubs/{slug}/members/guests/{guest}/rename/",
        lambda c: {"display_name": "Zio Peppino"},
        page(ADMIN, public=True, ok=302),
        page(ADMIN, public=False, ok=302),
    ),
    (
        "rename-guest-get",
        "get",
        "/clubs/{slug}/members/guests/{guest}/rename/",
        None,
        POST_ONLY,
        POST_ONLY,
    ),
    (
        "remove-guest-confirm",
        "get",
        "/clubs/{slug}/members/guests/{spare}/remove/",
        None,
        page(ADMIN, public=True),
        page(ADMIN, public=False),
    ),
    (
        "remove-guest",
        "post",
        "/clubs/{slug}/members/guests/{spare}/remove/",
        lambda c: {},
        page(ADMIN, public=True, ok=302),
        page(ADMIN, public=False, ok=302),
    ),
    (
        "change-role",
        "post",
        "/clubs/{slug}/members/{other}/role/",
        lambda c: {
            "role": "scorer",
        },
        page(ADMIN, public=True, ok=302),
        page(ADMIN, public=False, ok=302),
    ),
    ("change-role-get", "get", "/clubs/{slug}/members/{other}/role/", None, POST_ONLY, POST_ONLY),
    (
        "remove-member",
        "post",
        "/clubs/{slug}/members/{other}/remove/",
        lambda c: {},
        page(ADMIN, public=True, ok=302),
        page(ADMIN, public=False, ok=302),
    ),
    (
        "remove-member-confirm",
        "get",
        "/clubs/{slug}/members/{other}/remove/",
        None,
        page(ADMIN, public=True),
        page(ADMIN, public=False),
    ),
    # Leaving: the admin under test is the club's only admin, so the page explains (200).
    (
        "leave-confirm",
        "get",
        "/clubs/{slug}/leave/",
        None,
        page(MEMBER, public=True),
        page(MEMBER, public=False),
    ),
    (
        "leave",
        "post",
        "/clubs/{slug}/leave/",
        lambda c: {},
        (LOGIN, 403, 302, 302, 200),
        (LOGIN, 404, 302, 302, 200),
    ),
    (
        "create-invitation",
        "post",
        "/clubs/{slug}/invitations/",
        lambda c: {
            "role": "member",
            "max_uses": 1,
            "expires_at": "2999-01-01T00:00",
        },
        page(ADMIN, public=True, ok=302),
        page(ADMIN, public=False, ok=302),
    ),
    ("create-invitation-get", "get", "/clubs/{slug}/invitations/", None, POST_ONLY, POST_ONLY),
    (
        "revoke-invitation",
        "post",
        "/clubs/{slug}/invitations/{invitation}/revoke/",
        lambda c: {},
        page(ADMIN, public=True, ok=302),
        page(ADMIN, public=False, ok=302),
    ),
    (
        "revoke-invitation-get",
        "get",
        "/clubs/{slug}/invitations/{invitation}/revoke/",
        None,
        POST_ONLY,
        POST_ONLY,
    ),
    (
        "settings",
        "get",
        "/clubs/{slug}/settings/",
        None,
        page(ADMIN, public=True),
        page(ADMIN, public=False),
    ),
    (
        "settings-club",
        "post",
        "/clubs/{slug}/settings/",
        lambda c: {
            "section": "club",
            "name": "Circolo Rinominato",
            "city": "Roma",
            "point_value": "0.20",
            "currency": "EUR",
            "language": "it",
        },
        page(ADMIN, public=True, ok=302),
        page(ADMIN, public=False, ok=302),
    ),
    (
        "settings-season",
        "post",
        "/clubs/{slug}/settings/",
        lambda c: {
            "section": "season",
            "season-name": "Estate",
            "season-start": "2025-06-01",
            "season-end": "2025-08-31",
        },
        page(ADMIN, public=True, ok=302),
        page(ADMIN, public=False, ok=302),
    ),
    (
        "settings-rules",
        "post",
        "/clubs/{slug}/settings/",
        lambda c: {
            "section": "spazzumazz",
            "spazzumazz-idiot_min_games": "5",
        },
        page(ADMIN, public=True, ok=302),
        page(ADMIN, public=False, ok=302),
    ),
    (
        "edit-season-form",
        "get",
        "/clubs/{slug}/settings/seasons/{season}/",
        None,
        page(ADMIN, public=True),
        page(ADMIN, public=False),
    ),
    (
        "edit-season",
        "post",
        "/clubs/{slug}/settings/seasons/{season}/",
        lambda c: {
            "season-name": "Inverno lungo",
            "season-start": "2025-01-01",
            "season-end": "2025-04-30",
        },
        page(ADMIN, public=True, ok=302),
        page(ADMIN, public=False, ok=302),
    ),
    (
        "delete-season-confirm",
        "get",
        "/clubs/{slug}/settings/seasons/{season}/delete/",
        None,
        page(ADMIN, public=True),
        page(ADMIN, public=False),
    ),
    (
        "delete-season",
        "post",
        "/clubs/{slug}/settings/seasons/{season}/delete/",
        lambda c: {},
        page(ADMIN, public=True, ok=302),
        page(ADMIN, public=False, ok=302),
    ),
    # Whoever holds the link may see the invitation; accepting it joins (anonymous signs up).
    ("invitation", "get", "/invite/{token}/", None, EVERYONE, EVERYONE),
    (
        "invitation-accept",
        "post",
        "/invite/{token}/",
        lambda c: {
            "username": "newcomer",
            "email": "newcomer@example.org",
            "password1": PASSWORD,
            "password2": PASSWORD,
        },
        (302, 302, 200, 200, 200),
        (302, 302, 200, 200, 200),
    ),
]

API = [
    # Clubs
    ("clubs-list", "get", "/api/v1/clubs/", None, READ, None),
    (
        "clubs-create",
        "post",
        "/api/v1/clubs/",
        lambda c: {"name": "Circolo Delta"},
        (A, 201, 201, 201, 201),
        None,
    ),
    ("clubs-retrieve", "get", "/api/v1/clubs/{slug}/", None, READ, READ_PRIVATE),
    (
        "clubs-update",
        "put",
        "/api/v1/clubs/{slug}/",
        lambda c: {"name": "Circolo Rinominato"},
        api_write(ADMIN, public=True),
        api_write(ADMIN, public=False),
    ),
    (
        "clubs-partial-update",
        "patch",
        "/api/v1/clubs/{slug}/",
        lambda c: {"city": "Milano"},
        api_write(ADMIN, public=True),
        api_write(ADMIN, public=False),
    ),
    ("clubs-delete", "delete", "/api/v1/clubs/{slug}/", None, NOT_ALLOWED, NOT_ALLOWED),
    ("house-rules", "get", "/api/v1/clubs/{slug}/house-rules/singapore/", None, READ, READ_PRIVATE),
    (
        "house-rules-put",
        "put",
        "/api/v1/clubs/{slug}/house-rules/singapore/",
        lambda c: {"rules": {"rounding": "up"}},
        api_write(ADMIN, public=True),
        api_write(ADMIN, public=False),
    ),
    (
        "house-rules-sputo",
        "get",
        "/api/v1/clubs/{slug}/house-rules/sputo/",
        None,
        READ,
        READ_PRIVATE,
    ),
    (
        "house-rules-sputo-put",
        "put",
        "/api/v1/clubs/{slug}/house-rules/sputo/",
        lambda c: {"rules": {}},
        api_write(ADMIN, public=True),
        api_write(ADMIN, public=False),
    ),
    (
        "house-rules-spazzumazz",
        "get",
        "/api/v1/clubs/{slug}/house-rules/spazzumazz/",
        None,
        READ,
        READ_PRIVATE,
    ),
    (
        "house-rules-spazzumazz-put",
        "put",
        "/api/v1/clubs/{slug}/house-rules/spazzumazz/",
        lambda c: {"rules": {"idiot_min_games": 5}},
        api_write(ADMIN, public=True),
        api_write(ADMIN, public=False),
    ),
    # Players
    ("players-list", "get", "/api/v1/players/", None, READ, None),
    ("players-retrieve", "get", "/api/v1/players/{guest}/", None, READ, READ_PRIVATE),
    # A private club the caller cannot see is an unknown club: 404 on `club`, as for a typo.
    (
        "players-create",
        "post",
        "/api/v1/players/",
        lambda c: {
            "club": c.slug,
            "display_name": "Nuovo Ospite",
        },
        (A, 403, 403, 201, 201),
        (A, 404, 403, 201, 201),
    ),
    (
        "players-update",
        "put",
        "/api/v1/players/{guest}/",
        lambda c: {
            "club": c.slug,
            "display_name": "Ospite Rinominato",
        },
        api_write(ADMIN, public=True),
        api_write(ADMIN, public=False),
    ),
    (
        "players-partial-update",
        "patch",
        "/api/v1/players/{guest}/",
        lambda c: {
            "display_name": "Ospite Rinominato",
        },
        api_write(ADMIN, public=True),
        api_write(ADMIN, public=False),
    ),
    (
        "players-merge",
        "post",
        "/api/v1/players/{spare}/merge/",
        lambda c: {"into": c.guest.pk},
        api_write(ADMIN, public=True),
        api_write(ADMIN, public=False),
    ),
    ("players-delete", "delete", "/api/v1/players/{guest}/", None, NOT_ALLOWED, NOT_ALLOWED),
    # Memberships: only of your own clubs, so an outsider gets a 404 even on a public club.
    ("memberships-list", "get", "/api/v1/memberships/", None, MINE, None),
    (
        "memberships-retrieve",
        "get",
        "/api/v1/memberships/{other}/",
        None,
        (A, 404, 200, 200, 200),
        (A, 404, 200, 200, 200),
    ),
    (
        "memberships-update",
        "put",
        "/api/v1/memberships/{other}/",
        lambda c: {"role": "scorer"},
        (A, 404, 403, 403, 200),
        (A, 404, 403, 403, 200),
    ),
    (
        "memberships-partial-update",
        "patch",
        "/api/v1/memberships/{other}/",
        lambda c: {"role": "scorer"},
        (A, 404, 403, 403, 200),
        (A, 404, 403, 403, 200),
    ),
    (
        "memberships-delete",
        "delete",
        "/api/v1/memberships/{other}/",
        None,
        (A, 404, 403, 403, 204),
        (A, 404, 403, 403, 204),
    ),
    (
        "memberships-create",
        "post",
        "/api/v1/memberships/",
        lambda c: {"role": "admin"},
        NOT_ALLOWED,
        None,
    ),
    # Seasons
    ("seasons-list", "get", "/api/v1/seasons/", None, READ, None),
    ("seasons-retrieve", "get", "/api/v1/seasons/{season}/", None, READ, READ_PRIVATE),
    (
        "seasons-create",
        "post",
        "/api/v1/seasons/",
        lambda c: {
            "club": c.slug,
            "name": "Estate",
            "start": "2025-06-01",
            "end": "2025-08-31",
        },
        (A, 403, 403, 403, 201),
        (A, 404, 403, 403, 201),
    ),
    (
        "seasons-update",
        "put",
        "/api/v1/seasons/{season}/",
        lambda c: {
            "club": c.slug,
            "name": "Inverno lungo",
            "start": "2025-01-01",
            "end": "2025-04-30",
        },
        api_write(ADMIN, public=True),
        api_write(ADMIN, public=False),
    ),
    (
        "seasons-partial-update",
        "patch",
        "/api/v1/seasons/{season}/",
        lambda c: {"end": "2025-04-30"},
        api_write(ADMIN, public=True),
        api_write(ADMIN, public=False),
    ),
    (
        "seasons-delete",
        "delete",
        "/api/v1/seasons/{season}/",
        None,
        (A, 403, 403, 403, 204),
        (A, 404, 403, 403, 204),
    ),
    # Invitations: secrets of the club's admins; to anyone else they do not exist.
    ("invitations-list", "get", "/api/v1/invitations/", None, MINE, None),
    (
        "invitations-retrieve",
        "get",
        "/api/v1/invitations/{invitation}/",
        None,
        (A, 404, 404, 404, 200),
        (A, 404, 404, 404, 200),
    ),
    (
        "invitations-create",
        "post",
        "/api/v1/invitations/",
        lambda c: {
            "club": c.slug,
            "role": "member",
        },
        (A, 403, 403, 403, 201),
        (A, 404, 403, 403, 201),
    ),
    (
        "invitations-delete",
        "delete",
        "/api/v1/invitations/{invitation}/",
        None,
        (A, 404, 404, 404, 204),
        (A, 404, 404, 404, 204),
    ),
    (
        "invitations-update",
        "put",
        "/api/v1/invitations/{invitation}/",
        lambda c: {"role": "admin"},
        NOT_ALLOWED,
        None,
    ),
    # Whoever holds the token may join; the club's own people are members already (a 409).
    (
        "invitations-accept",
        "post",
        "/api/v1/invitations/accept/",
        lambda c: {"token": c.invitation.token},
        (A, 201, 409, 409, 409),
        (A, 201, 409, 409, 409),
    ),
    # The inbox is each person's own: someone else's notification is not there (404).
    ("notification-list", "get", "/api/v1/notifications/", None, MINE, None),
    (
        "notification-read",
        "post",
        "/api/v1/notifications/999999/read/",
        None,
        (A, 404, 404, 404, 404),
        None,
    ),
    ("notification-read-all", "post", "/api/v1/notifications/read-all/", None, MINE, None),
]

INBOX_PAGES = [
    ("inbox", "get", "/inbox/", None, (LOGIN, 200, 200, 200, 200), None),
    ("read_all", "post", "/inbox/read-all/", lambda c: {}, (LOGIN, 302, 302, 302, 302), None),
    (
        "open_notification",
        "post",
        "/inbox/999999/open/",
        lambda c: {},
        (LOGIN, 404, 404, 404, 404),
        None,
    ),
    ("inbox_choices", "post", "/inbox/choices/", lambda c: {}, (LOGIN, 302, 302, 302, 302), None),
    # A subscription that names no push service is a 400 (the SSRF guard is tested apart).
    ("push_subscribe", "post", "/inbox/push/", lambda c: {}, (LOGIN, 400, 400, 400, 400), None),
    (
        "push_unsubscribe",
        "post",
        "/inbox/push/remove/",
        lambda c: {},
        (LOGIN, 302, 302, 302, 302),
        None,
    ),
]
PAGES += INBOX_PAGES


ROUTES = PAGES + API


@pytest.mark.parametrize("kind, method, path, body, role, expected", expand(PAGES))
def test_each_page_answers_each_role_as_the_rules_say(
    world, kind, method, path, body, role, expected
):
    check_status(call(world, kind, method, path, body, role, api=False), expected)


@pytest.mark.parametrize("kind, method, path, body, role, expected", expand(API))
def test_each_endpoint_answers_each_role_as_the_rules_say(
    world, kind, method, path, body, role, expected
):
    check_status(call(world, kind, method, path, body, role, api=True), expected)


@pytest.mark.parametrize("role", ROLES)
def test_a_refused_page_action_changes_nothing(world, role):
    c = world["clubs"]["private"]
    client = client_for(world, role)
    if role == "admin":
        return
    client.post(f"/clubs/{c.slug}/members/merge/", {"source": c.spare.pk, "target": c.guest.pk})
    client.post(f"/clubs/{c.slug}/members/{c.other.pk}/role/", {"role": "admin"})
    client.post(f"/clubs/{c.slug}/members/{c.other.pk}/remove/")
    client.post(f"/clubs/{c.slug}/invitations/{c.invitation.pk}/revoke/")
    client.post(f"/clubs/{c.slug}/members/guests/{c.guest.pk}/rename/", {"display_name": "Preso"})
    client.post(f"/clubs/{c.slug}/members/guests/{c.spare.pk}/remove/")
    client.post(f"/clubs/{c.slug}/settings/seasons/{c.season.pk}/delete/")
    client.post(
        f"/clubs/{c.slug}/settings/seasons/{c.season.pk}/",
        {"season-name": "Presa", "season-start": "2025-01-01", "season-end": "2025-01-31"},
    )
    client.post(
        f"/clubs/{c.slug}/settings/",
        {
            "section": "club",
            "name": "Preso",
            "city": "",
            "point_value": "1",
            "currency": "EUR",
            "language": "it",
        },
    )
    c.spare.refresh_from_db()
    c.guest.refresh_from_db()
    c.season.refresh_from_db()
    c.other.refresh_from_db()
    c.invitation.refresh_from_db()
    c.club.refresh_from_db()
    assert c.spare.merged_into is None
    assert c.guest.display_name == "Zia Lina"
    assert c.season.name == "Inverno"
    assert c.other.role == Role.MEMBER
    assert c.invitation.revoked_at is None
    assert c.club.name == "Circolo Gamma"


def test_a_private_club_page_looks_like_a_club_that_does_not_exist(world):
    outsider = client_for(world, "outsider")
    private = outsider.get("/clubs/circolo-gamma/")
    missing = outsider.get("/clubs/no-such-club/")
    assert private.status_code == missing.status_code == 404
    assert same_page(private, "circolo-gamma", missing, "no-such-club")


def test_it_validates_ownership_of_memberships_and_invitations_named_in_the_url(world):
    """Otto administers Beta: he cannot act on Alfa's objects through Beta's pages."""
    alfa, beta = world["clubs"]["public"], world["other"]
    otto = client_for(world, "outsider")
    for url in [
        f"/clubs/{beta.slug}/members/{alfa.other.pk}/role/",
        f"/clubs/{beta.slug}/members/{alfa.other.pk}/remove/",
        f"/clubs/{beta.slug}/invitations/{alfa.invitation.pk}/revoke/",
    ]:
        assert otto.post(url, {"role": "admin"}).status_code == 404, url
    otto.post(
        f"/clubs/{beta.slug}/members/merge/", {"source": alfa.spare.pk, "target": alfa.guest.pk}
    )
    alfa.spare.refresh_from_db()
    alfa.other.refresh_from_db()
    alfa.invitation.refresh_from_db()
    assert alfa.spare.merged_into is None
    assert Membership.objects.filter(pk=alfa.other.pk, role=Role.MEMBER).exists()
    assert alfa.invitation.revoked_at is None


@pytest.mark.parametrize("role", ROLES)
def test_the_token_endpoint_gives_a_token_for_right_credentials_only(world, role):
    user = world["users"][role]
    api = APIClient()
    if user is None:
        response = api.post("/api/v1/auth/token/", {"username": "nobody", "password": PASSWORD})
        assert response.status_code == 401
        assert "detail" in response.json()
        return
    response = api.post("/api/v1/auth/token/", {"username": user.username, "password": PASSWORD})
    assert response.status_code == 200
    assert response.json()["token"]
    assert api.get("/api/v1/auth/token/").status_code == 405


@pytest.mark.parametrize("role", ["outsider", "member"])
def test_a_refused_api_write_changes_nothing(world, role):
    c = world["clubs"]["private"]
    api = client_for(world, role, APIClient)
    api.put(f"/api/v1/clubs/{c.slug}/", {"name": "Preso"}, format="json")
    api.put(f"/api/v1/clubs/{c.slug}/house-rules/singapore/", {"rules": {"cap": 5}}, format="json")
    api.post(f"/api/v1/players/{c.spare.pk}/merge/", {"into": c.guest.pk}, format="json")
    api.patch(f"/api/v1/memberships/{c.other.pk}/", {"role": "admin"}, format="json")
    api.delete(f"/api/v1/seasons/{c.season.pk}/")
    api.delete(f"/api/v1/invitations/{c.invitation.pk}/")
    c.club.refresh_from_db()
    c.spare.refresh_from_db()
    c.other.refresh_from_db()
    c.invitation.refresh_from_db()
    assert c.club.name == "Circolo Gamma"
    assert c.club.current_house_rules("singapore") is None
    assert c.spare.merged_into is None
    assert c.other.role == Role.MEMBER
    assert Season.objects.filter(pk=c.season.pk).exists()
    assert c.invitation.revoked_at is None


def test_a_private_club_looks_like_a_club_that_does_not_exist_in_the_api(world):
    api = client_for(world, "outsider", APIClient)
    for private, missing in [
        ("/api/v1/clubs/circolo-gamma/", "/api/v1/clubs/no-such-club/"),
        (
            "/api/v1/clubs/circolo-gamma/house-rules/sputo/",
            "/api/v1/clubs/no-such/house-rules/sputo/",
        ),
        (f"/api/v1/players/{world['clubs']['private'].guest.pk}/", "/api/v1/players/999999/"),
        (f"/api/v1/seasons/{world['clubs']['private'].season.pk}/", "/api/v1/seasons/999999/"),
    ]:
        a, b = api.get(private), api.get(missing)
        assert a.status_code == b.status_code == 404, private
        assert a.json() == b.json()
    # Naming the private club in a body reads the same as naming no club at all: a 404.
    for url, body in [
        ("/api/v1/players/", {"display_name": "Spia"}),
        ("/api/v1/seasons/", {"name": "Spia", "start": "2025-01-01", "end": "2025-01-02"}),
        ("/api/v1/invitations/", {}),
    ]:
        a = api.post(url, {**body, "club": "circolo-gamma"}, format="json")
        b = api.post(url, {**body, "club": "no-such-club"}, format="json")
        assert a.status_code == b.status_code == 404, url
        assert a.json()["club"] == [
            m.replace("no-such-club", "circolo-gamma") for m in b.json()["club"]
        ]


def test_an_invitation_cannot_claim_a_player_the_admin_cannot_see(world):
    """Otto administers Beta; a guest id of private Gamma reads as a guest that does not exist."""
    api = client_for(world, "outsider", APIClient)
    hidden = world["clubs"]["private"].guest.pk
    a = api.post("/api/v1/invitations/", {"club": "circolo-beta", "player": hidden}, format="json")
    b = api.post("/api/v1/invitations/", {"club": "circolo-beta", "player": 999999}, format="json")
    assert a.status_code == b.status_code == 404
    assert a.json()["player"] == [m.replace("999999", str(hidden)) for m in b.json()["player"]]


# --- Lists hold only what the user may see ----------------------------------------------------


def names(response, key):
    assert response.status_code == 200, response
    return {row[key] for row in response.json()["results"]}


@pytest.mark.parametrize("role", ["anonymous", "outsider"])
def test_lists_never_show_a_private_club_to_whoever_is_not_in_it(world, role):
    api = client_for(world, role, APIClient)
    gamma = world["clubs"]["private"]
    for query in ["", "?club__slug=circolo-gamma", "?search=Gamma", "?search=Zia"]:
        assert "circolo-gamma" not in names(api.get(f"/api/v1/clubs/{query}"), "slug")
        assert "circolo-gamma" not in names(api.get(f"/api/v1/players/{query}"), "club")
        assert "circolo-gamma" not in names(api.get(f"/api/v1/seasons/{query}"), "club")
    assert names(api.get("/api/v1/players/?club__slug=circolo-gamma"), "id") == set()
    assert names(api.get("/api/v1/clubs/?is_public=false&mine=false"), "slug") <= {"circolo-beta"}
    if role == "outsider":
        services.create_invitation(club=world["other"], by=world["outsider"])
        for list_url in ["/api/v1/memberships/", "/api/v1/invitations/"]:
            assert names(api.get(list_url), "club") == {"circolo-beta"}
            assert names(api.get(f"{list_url}?club__slug=circolo-gamma"), "club") == set()
    for url in ["/", "/clubs/", "/clubs/?q=Gamma"]:
        html = client_for(world, role).get(url).content.decode()
        assert "Circolo Gamma" not in html, url
        assert gamma.guest.display_name not in html


def test_anonymous_sees_only_public_clubs(world):
    api = APIClient()
    assert names(api.get("/api/v1/clubs/"), "slug") == {"circolo-alfa"}
    assert names(api.get("/api/v1/players/"), "club") == {"circolo-alfa"}
    assert names(api.get("/api/v1/seasons/"), "club") == {"circolo-alfa"}
    assert names(api.get("/api/v1/clubs/?mine=true"), "slug") == set()


def test_a_member_sees_their_private_club_in_every_list(world):
    api = client_for(world, "member", APIClient)
    assert names(api.get("/api/v1/clubs/"), "slug") == {"circolo-alfa", "circolo-gamma"}
    assert names(api.get("/api/v1/players/"), "club") == {"circolo-alfa", "circolo-gamma"}
    assert names(api.get("/api/v1/seasons/"), "club") == {"circolo-alfa", "circolo-gamma"}
    assert names(api.get("/api/v1/memberships/"), "club") == {"circolo-alfa", "circolo-gamma"}
    assert names(api.get("/api/v1/invitations/"), "club") == set()
    html = client_for(world, "member").get("/clubs/").content.decode()
    assert "Circolo Gamma" in html


def test_an_admin_lists_the_invitations_of_their_clubs_only(world):
    api = client_for(world, "admin", APIClient)
    tokens = names(api.get("/api/v1/invitations/"), "token")
    assert tokens == {c.invitation.token for c in world["clubs"].values()}


# --- Bad input on the pages: a form error or a message, never a 500 ---------------------------


@pytest.mark.parametrize(
    "path, body",
    [
        (
            "/clubs/new/",
            {"name": "x" * 10_000, "point_value": "1e400", "currency": "€€€", "language": "zz"},
        ),
        ("/clubs/{slug}/members/guests/", {"display_name": "Zio Pino"}),
        ("/clubs/{slug}/members/guests/", {"display_name": "x" * 10_000}),
        ("/clubs/{slug}/members/merge/", {"source": "abc", "target": str(10**30)}),
        ("/clubs/{slug}/members/merge/", {"source": "{spare}", "target": "{spare}"}),
        ("/clubs/{slug}/members/{other}/role/", {"role": "owner"}),
        ("/clubs/{slug}/members/99999999999999999999999/role/", {"role": "admin"}),
        (
            "/clubs/{slug}/invitations/",
            {
                "role": "member",
                "max_uses": str(10**30),
                "expires_at": "junk",
                "player": "abc",
                "email": "bad",
            },
        ),
        ("/clubs/{slug}/invitations/99999999999999999999999/revoke/", {}),
        ("/clubs/{slug}/settings/", {}),
        ("/clubs/{slug}/settings/", {"section": "poker"}),
        (
            "/clubs/{slug}/settings/",
            {
                "section": "club",
                "name": "",
                "point_value": "NaN",
                "currency": "EUR",
                "language": "it",
            },
        ),
        (
            "/clubs/{slug}/settings/",
            {
                "section": "season",
                "season-name": "x" * 10_000,
                "season-start": "99999-01-01",
                "season-end": "x",
            },
        ),
        (
            "/clubs/{slug}/settings/",
            {
                "section": "season",
                "season-name": "Nuova",
                "season-start": "2025-02-01",
                "season-end": "2025-01-01",
            },
        ),
        (
            "/clubs/{slug}/settings/",
            {"section": "singapore", "singapore-joker_limit": "zz", "singapore-cap": "1e400"},
        ),
        (
            "/clubs/{slug}/settings/",
            {"section": "spazzumazz", "spazzumazz-idiot_min_games": str(10**30)},
        ),
        ("/invite/{token}/", {"username": "x" * 10_000, "password1": "a", "password2": "b"}),
    ],
)
def test_bad_input_on_a_page_is_shown_to_the_admin_never_a_500(world, path, body):
    c = world["clubs"]["private"]
    admin = client_for(world, "admin")
    body = {k: fill(v, c) for k, v in body.items()}
    response = admin.post(fill(path, c), body)
    assert response.status_code in {200, 302, 404}


def test_a_duplicate_season_name_on_the_settings_page_is_a_form_error(world):
    c = world["clubs"]["private"]
    response = client_for(world, "admin").post(
        f"/clubs/{c.slug}/settings/",
        {
            "section": "season",
            "season-name": "Inverno",
            "season-start": "2026-01-01",
            "season-end": "2026-03-31",
        },
    )
    assert response.status_code == 200
    assert response.context["season_form"].errors["name"]
    assert c.club.seasons.count() == 1


@pytest.mark.parametrize(
    "method, path, body",
    [
        ("put", "/api/v1/clubs/{slug}/", {"name": ""}),
        ("patch", "/api/v1/clubs/{slug}/", {"currency": 1}),
        ("put", "/api/v1/clubs/{slug}/house-rules/singapore/", {"rules": 1}),
        ("put", "/api/v1/players/{guest}/", {}),
        ("patch", "/api/v1/players/{guest}/", {"display_name": ["x"]}),
        ("post", "/api/v1/players/{spare}/merge/", {"into": "x"}),
        ("put", "/api/v1/memberships/{other}/", {}),
        ("patch", "/api/v1/memberships/{other}/", {"role": "x"}),
        ("put", "/api/v1/seasons/{season}/", {}),
        ("patch", "/api/v1/seasons/{season}/", {"end": "1900-01-01"}),
    ],
)
@pytest.mark.parametrize("kind", ["public", "private"])
def test_a_member_without_the_role_gets_a_403_whatever_the_body(world, kind, method, path, body):
    c = world["clubs"][kind]
    response = getattr(client_for(world, "member", APIClient), method)(
        fill(path, c), body, format="json"
    )
    assert response.status_code == 403


@pytest.mark.parametrize("role", ROLES)
def test_options_on_any_endpoint_reveals_no_private_club(world, role):
    api = client_for(world, role, APIClient)
    c = world["clubs"]["private"]
    for _name, _method, path, _body, _public, _private in API:
        response = api.options(fill(path, c))
        assert response.status_code in {200, 401, 403, 404}, (path, response.status_code)
        if role in {"anonymous", "outsider"}:
            assert b"Circolo Gamma" not in response.content
            assert c.invitation.token.encode() not in response.content
