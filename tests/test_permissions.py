"""Who may open which page and call which endpoint: every route, every role, public and private.

The roles: anonymous, an *outsider* (a member of another club), a member, a scorer and an admin
of the club under test. The club is either public (`people`'s Circolo Alfa) or private (Circolo
Gamma, with the same people in the same roles). The rules:

- the public sees public clubs; a private club is a 404 to whoever is not in it, exactly like a
  club that does not exist;
- a club's member pages are for its members: an outsider gets a 404 even on a public club;
- a member lacking the role for an action in their own club gets a 403;
- anonymous on a page that needs a login is sent to the login page; on the API they are refused
  (403 under session-first authentication, 401 if token authentication comes first).
"""

from dataclasses import dataclass

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, resolve
from rest_framework.test import APIClient

from clubs import services
from clubs.models import Club, Invitation, Membership, Player, Role, Season
from tests.conftest import PASSWORD

ROLES = ["anonymous", "outsider", "member", "scorer", "admin"]

LOGIN = "login"  # a redirect to the login page
REFUSED = "refused"  # the API refuses anonymous: 401 or 403, never a look inside
REFUSED_CODES = {401, 403}


@dataclass
class ClubUnderTest:
    """One club and the objects the routes act on."""

    club: Club
    guest: Player  # a guest, to read, rename and merge into
    spare: Player  # another guest, to merge
    other: Membership  # a plain member who is not the member under test (bea)
    season: Season
    invitation: Invitation

    @property
    def slug(self) -> str:
        return self.club.slug


@pytest.fixture
def world(people, make_user):
    """Alfa (public) and Gamma (private), each with an admin, a scorer, two members and guests."""
    ada, sam, mia = people["admin"], people["scorer"], people["member"]
    bea = make_user("bea")
    gamma = services.create_club(name="Circolo Gamma", founder=ada, city="Napoli", is_public=False)
    services.add_member(club=gamma, user=sam, role=Role.SCORER)
    services.add_member(club=gamma, user=mia, role=Role.MEMBER)
    clubs = {}
    for kind, club, guest in [
        ("public", people["club"], people["guest"]),
        ("private", gamma, services.add_guest(club=gamma, display_name="Zia Lina")),
    ]:
        clubs[kind] = ClubUnderTest(
            club=club,
            guest=guest,
            spare=services.add_guest(club=club, display_name="Ospite di passaggio"),
            other=services.add_member(club=club, user=bea),
            season=Season.objects.create(
                club=club, name="Inverno", start="2025-01-01", end="2025-03-31"
            ),
            invitation=services.create_invitation(club=club, by=ada, max_uses=5),
        )
    users = {
        "anonymous": None,
        "outsider": people["outsider"],
        "member": mia,
        "scorer": sam,
        "admin": ada,
    }
    return {"clubs": clubs, "users": users, **people}


def client_for(world, role: str, client_class=Client):
    client = client_class()
    user = world["users"][role]
    if user is not None:
        client.force_login(user)
    return client


def check_status(response, expected, *, login_path="/accounts/login/"):
    if expected == LOGIN:
        assert response.status_code == 302, response
        assert response["Location"].startswith(login_path), response["Location"]
    elif expected == REFUSED:
        assert response.status_code in REFUSED_CODES, response
    else:
        assert response.status_code == expected, getattr(response, "data", response)
        if expected == 302:
            assert not response["Location"].startswith(login_path), response["Location"]


def expand(table):
    """(name, method, path, body, public statuses, private statuses) → one case per role."""
    return list(_expand(table))


def _expand(table):
    for name, method, path, body, public, private in table:
        for kind, statuses in [("public", public), ("private", private)]:
            if statuses is None:
                continue
            for role, expected in zip(ROLES, statuses, strict=True):
                yield pytest.param(
                    kind, method, path, body, role, expected, id=f"{name}-{kind}-{role}"
                )


# --- Pages ---------------------------------------------------------------------------------
# Statuses in ROLES order: anonymous, outsider, member, scorer, admin.

EVERYONE = (200, 200, 200, 200, 200)
MEMBERS = (404, 404, 200, 200, 200)  # a private club's public pages
MEMBER_PAGE = (LOGIN, 404, 200, 200, 200)
ADMIN_PAGE = (LOGIN, 404, 403, 403, 200)
SCORER_ACTION = (LOGIN, 404, 403, 302, 302)
ADMIN_ACTION = (LOGIN, 404, 403, 403, 302)
POST_ONLY = (LOGIN, 405, 405, 405, 405)

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
    ("members", "get", "/clubs/{slug}/members/", None, MEMBER_PAGE, MEMBER_PAGE),
    (
        "add-guest",
        "post",
        "/clubs/{slug}/members/guests/",
        lambda c: {
            "display_name": "Nuovo Ospite",
        },
        SCORER_ACTION,
        SCORER_ACTION,
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
        ADMIN_ACTION,
        ADMIN_ACTION,
    ),
    ("merge-guest-get", "get", "/clubs/{slug}/members/merge/", None, POST_ONLY, POST_ONLY),
    (
        "change-role",
        "post",
        "/clubs/{slug}/members/{other}/role/",
        lambda c: {
            "role": "scorer",
        },
        ADMIN_ACTION,
        ADMIN_ACTION,
    ),
    ("change-role-get", "get", "/clubs/{slug}/members/{other}/role/", None, POST_ONLY, POST_ONLY),
    (
        "remove-member",
        "post",
        "/clubs/{slug}/members/{other}/remove/",
        lambda c: {},
        ADMIN_ACTION,
        ADMIN_ACTION,
    ),
    (
        "remove-member-get",
        "get",
        "/clubs/{slug}/members/{other}/remove/",
        None,
        POST_ONLY,
        POST_ONLY,
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
        ADMIN_ACTION,
        ADMIN_ACTION,
    ),
    ("create-invitation-get", "get", "/clubs/{slug}/invitations/", None, POST_ONLY, POST_ONLY),
    (
        "revoke-invitation",
        "post",
        "/clubs/{slug}/invitations/{invitation}/revoke/",
        lambda c: {},
        ADMIN_ACTION,
        ADMIN_ACTION,
    ),
    (
        "revoke-invitation-get",
        "get",
        "/clubs/{slug}/invitations/{invitation}/revoke/",
        None,
        POST_ONLY,
        POST_ONLY,
    ),
    ("settings", "get", "/clubs/{slug}/settings/", None, ADMIN_PAGE, ADMIN_PAGE),
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
        ADMIN_ACTION,
        ADMIN_ACTION,
    ),
    (
        "settings-season",
        "post",
        "/clubs/{slug}/settings/",
        lambda c: {
            "section": "season",
            "name": "Estate",
            "start": "2025-06-01",
            "end": "2025-08-31",
        },
        ADMIN_ACTION,
        ADMIN_ACTION,
    ),
    (
        "settings-rules",
        "post",
        "/clubs/{slug}/settings/",
        lambda c: {
            "section": "spazzumazz",
            "spazzumazz-idiot_min_games": "5",
        },
        ADMIN_ACTION,
        ADMIN_ACTION,
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
    # The site's other pages.
    ("login", "get", "/accounts/login/", None, EVERYONE, None),
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
    ("api-root", "get", "/api/v1/", None, EVERYONE, None),
    ("api-schema", "get", "/api/schema/", None, EVERYONE, None),
    ("api-docs", "get", "/api/docs/", None, EVERYONE, None),
]


def fill(path: str, c: ClubUnderTest) -> str:
    return path.format(
        slug=c.slug,
        other=c.other.pk,
        invitation=c.invitation.pk,
        token=c.invitation.token,
        guest=c.guest.pk,
        spare=c.spare.pk,
        season=c.season.pk,
    )


@pytest.mark.parametrize("kind, method, path, body, role, expected", expand(PAGES))
def test_each_page_answers_each_role_as_the_rules_say(
    world, kind, method, path, body, role, expected
):
    c = world["clubs"][kind]
    client = client_for(world, role)
    url = fill(path, c)
    if method == "get":
        response = client.get(url)
    else:
        response = client.post(url, body(c) if body else {})
    if path == "/admin/":
        check_status(response, expected, login_path="/admin/login/")
    else:
        check_status(response, expected)


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
    c.other.refresh_from_db()
    c.invitation.refresh_from_db()
    c.club.refresh_from_db()
    assert c.spare.merged_into is None
    assert c.other.role == Role.MEMBER
    assert c.invitation.revoked_at is None
    assert c.club.name == "Circolo Gamma"


def test_a_private_club_page_looks_like_a_club_that_does_not_exist(world):
    outsider = client_for(world, "outsider")
    private = outsider.get("/clubs/circolo-gamma/")
    missing = outsider.get("/clubs/no-such-club/")
    assert private.status_code == missing.status_code == 404
    assert private.content == missing.content


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


# --- API -------------------------------------------------------------------------------------

A = REFUSED
READ = (200, 200, 200, 200, 200)
READ_PRIVATE = (404, 404, 200, 200, 200)
ADMIN_WRITE = (A, 403, 403, 403, 200)
ADMIN_WRITE_PRIVATE = (A, 404, 403, 403, 200)
MINE = (A, 200, 200, 200, 200)  # lists of what is yours: everyone signed in gets one
NOT_ALLOWED = (A, 405, 405, 405, 405)

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
        ADMIN_WRITE,
        ADMIN_WRITE_PRIVATE,
    ),
    (
        "clubs-partial-update",
        "patch",
        "/api/v1/clubs/{slug}/",
        lambda c: {"city": "Milano"},
        ADMIN_WRITE,
        ADMIN_WRITE_PRIVATE,
    ),
    ("clubs-delete", "delete", "/api/v1/clubs/{slug}/", None, NOT_ALLOWED, NOT_ALLOWED),
    ("house-rules", "get", "/api/v1/clubs/{slug}/house-rules/singapore/", None, READ, READ_PRIVATE),
    (
        "house-rules-put",
        "put",
        "/api/v1/clubs/{slug}/house-rules/singapore/",
        lambda c: {"rules": {"rounding": "up"}},
        ADMIN_WRITE,
        ADMIN_WRITE_PRIVATE,
    ),
    # Players
    ("players-list", "get", "/api/v1/players/", None, READ, None),
    ("players-retrieve", "get", "/api/v1/players/{guest}/", None, READ, READ_PRIVATE),
    # A private club the caller cannot see is an unknown club: 400 on `club`, as for a typo.
    (
        "players-create",
        "post",
        "/api/v1/players/",
        lambda c: {
            "club": c.slug,
            "display_name": "Nuovo Ospite",
        },
        (A, 403, 403, 201, 201),
        (A, 400, 403, 201, 201),
    ),
    (
        "players-update",
        "put",
        "/api/v1/players/{guest}/",
        lambda c: {
            "club": c.slug,
            "display_name": "Ospite Rinominato",
        },
        ADMIN_WRITE,
        ADMIN_WRITE_PRIVATE,
    ),
    (
        "players-partial-update",
        "patch",
        "/api/v1/players/{guest}/",
        lambda c: {
            "display_name": "Ospite Rinominato",
        },
        ADMIN_WRITE,
        ADMIN_WRITE_PRIVATE,
    ),
    (
        "players-merge",
        "post",
        "/api/v1/players/{spare}/merge/",
        lambda c: {"into": c.guest.pk},
        ADMIN_WRITE,
        ADMIN_WRITE_PRIVATE,
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
        (A, 400, 403, 403, 201),
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
        ADMIN_WRITE,
        ADMIN_WRITE_PRIVATE,
    ),
    (
        "seasons-partial-update",
        "patch",
        "/api/v1/seasons/{season}/",
        lambda c: {"end": "2025-04-30"},
        ADMIN_WRITE,
        ADMIN_WRITE_PRIVATE,
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
        (A, 400, 403, 403, 201),
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
    # Whoever holds the token may join; the club's own people are members already.
    (
        "invitations-accept",
        "post",
        "/api/v1/invitations/accept/",
        lambda c: {"token": c.invitation.token},
        (A, 201, 400, 400, 400),
        (A, 201, 400, 400, 400),
    ),
]


@pytest.mark.parametrize("kind, method, path, body, role, expected", expand(API))
def test_each_endpoint_answers_each_role_as_the_rules_say(
    world, kind, method, path, body, role, expected
):
    c = world["clubs"][kind]
    client = client_for(world, role, APIClient)
    response = getattr(client, method)(fill(path, c), body(c) if body else None, format="json")
    check_status(response, expected)


@pytest.mark.parametrize("role", ROLES)
def test_the_token_endpoint_gives_a_token_for_right_credentials_only(world, role):
    user = world["users"][role]
    api = APIClient()
    if user is None:
        response = api.post("/api/v1/auth/token/", {"username": "nobody", "password": PASSWORD})
        assert response.status_code == 400
        assert "non_field_errors" in response.json()
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
    # Naming the private club in a body reads the same as naming no club at all.
    for url, body in [
        ("/api/v1/players/", {"display_name": "Spia"}),
        ("/api/v1/seasons/", {"name": "Spia", "start": "2025-01-01", "end": "2025-01-02"}),
        ("/api/v1/invitations/", {}),
    ]:
        a = api.post(url, {**body, "club": "circolo-gamma"}, format="json")
        b = api.post(url, {**body, "club": "no-such-club"}, format="json")
        assert a.status_code == b.status_code == 400, url
        assert a.json()["club"] == [
            m.replace("no-such-club", "circolo-gamma") for m in b.json()["club"]
        ]


def test_an_invitation_cannot_claim_a_player_the_admin_cannot_see(world):
    """Otto administers Beta; a guest id of private Gamma reads as a guest that does not exist."""
    api = client_for(world, "outsider", APIClient)
    hidden = world["clubs"]["private"].guest.pk
    a = api.post("/api/v1/invitations/", {"club": "circolo-beta", "player": hidden}, format="json")
    b = api.post("/api/v1/invitations/", {"club": "circolo-beta", "player": 999999}, format="json")
    assert a.status_code == b.status_code == 400
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
    for page in ["/", "/clubs/", "/clubs/?q=Gamma"]:
        html = client_for(world, role).get(page).content.decode()
        assert "Circolo Gamma" not in html, page
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


# --- The tables cover every route -------------------------------------------------------------


def _route_names(patterns, prefix=""):
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            namespace = f"{prefix}{pattern.namespace}:" if pattern.namespace else prefix
            if pattern.namespace == "admin":
                yield "admin:index"
                continue
            yield from _route_names(pattern.url_patterns, namespace)
        elif isinstance(pattern, URLPattern) and pattern.name:
            yield f"{prefix}{pattern.name}"


def test_the_tables_cover_every_route(world):
    everything = set(_route_names(get_resolver().url_patterns))
    covered = set()
    for _name, _method, path, _body, _public, _private in PAGES + API:
        covered.add(resolve(fill(path.split("?")[0], world["clubs"]["public"])).view_name)
    covered.add("api-token")  # test_the_token_endpoint_gives_a_token_for_right_credentials_only
    assert everything - covered == set()


def test_every_role_in_the_tables_is_a_real_user(world):
    User = get_user_model()
    for role, user in world["users"].items():
        assert (user is None) == (role == "anonymous")
        if user is not None:
            assert User.objects.filter(pk=user.pk).exists()
    assert world["clubs"]["public"].club.is_public
    assert not world["clubs"]["private"].club.is_public


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
            {"section": "season", "name": "x" * 10_000, "start": "99999-01-01", "end": "x"},
        ),
        (
            "/clubs/{slug}/settings/",
            {"section": "season", "name": "Nuova", "start": "2025-02-01", "end": "2025-01-01"},
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
            "name": "Inverno",
            "start": "2026-01-01",
            "end": "2026-03-31",
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
