"""The permission matrix: who may open which page and call which endpoint.

Each feature has its own table module, ``tests/test_permissions_<feature>.py``, with a
``ROUTES`` list of rows ``(name, method, path, body, public statuses, private statuses)``;
``tests/test_permissions_routes.py`` fails if any route of the site is in no table.

The roles: anonymous, an *outsider* (a member of another club), a member, a scorer and an
admin of the club under test. The club is either public (Circolo Alfa) or private (Circolo
Gamma, with the same people in the same roles). The one policy (``clubs/access.py``):

- anonymous asking for anything that needs a role is asked to log in first: pages redirect
  to the login page, the API answers 401;
- a private club is a 404 to whoever is not in it, exactly like a club that does not exist;
  so is an object the user may not see (another club's membership, an invitation to a
  non-admin);
- a club the user may see, where the action needs a role they lack: 403.

The world (users, clubs, the objects the routes act on) is built once per test module, in a
transaction rolled back at the module's end; each test runs in its own savepoint and gets
fresh copies of the objects (as Django's ``TestCase.setUpTestData`` does).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from rest_framework.test import APIClient

from clubs import services
from clubs.models import Club, Invitation, Membership, Player, Role, Season
from tests.conftest import PASSWORD

ROLES = ["anonymous", "outsider", "member", "scorer", "admin"]

LOGIN = "login"  # a redirect to the login page
REFUSED = "refused"  # the API refuses anonymous: 401, never a look inside
REFUSED_CODES = {401}
A = REFUSED

# Statuses in ROLES order: anonymous, outsider, member, scorer, admin.
EVERYONE = (200, 200, 200, 200, 200)
MEMBERS = (404, 404, 200, 200, 200)  # a private club's public pages
POST_ONLY = (405, 405, 405, 405, 405)


def page(needed: str, *, public: bool, ok: int = 200):
    """A page (``ok`` 200) or a form action (``ok`` 302) that needs the role ``needed``."""
    outsider = 403 if public else 404
    rank = {Role.MEMBER: 2, Role.SCORER: 3, Role.ADMIN: 4}[needed]
    return (LOGIN, outsider) + tuple(ok if i >= rank else 403 for i in range(2, 5))


def api_write(needed: str, *, public: bool, ok: int = 200):
    """An API write that needs the role ``needed`` in the object's club."""
    outsider = 403 if public else 404
    rank = {Role.MEMBER: 2, Role.SCORER: 3, Role.ADMIN: 4}[needed]
    return (A, outsider) + tuple(ok if i >= rank else 403 for i in range(2, 5))


READ = (200, 200, 200, 200, 200)
READ_PRIVATE = (404, 404, 200, 200, 200)
MINE = (A, 200, 200, 200, 200)  # lists of what is yours: everyone signed in gets one
NOT_ALLOWED = (A, 405, 405, 405, 405)


@dataclass
class ClubUnderTest:
    """One club and the objects the routes act on; features add theirs to ``extra``."""

    club: Club
    guest: Player  # a guest, to read, rename and merge into
    spare: Player  # another guest, to merge
    other: Membership  # a plain member who is not the member under test (bea)
    season: Season
    invitation: Invitation
    extra: dict[str, object] = field(default_factory=dict)

    @property
    def slug(self) -> str:
        return self.club.slug

    def player_of(self, user) -> Player:
        return self.club.players.get(user=user)


def _user(username: str):
    return get_user_model().objects.create_user(
        username=username, password=PASSWORD, email=f"{username}@example.org"
    )


def build_world() -> dict:
    """Alfa (public) and Gamma (private), each with an admin, a scorer, two members and
    guests; Beta, the outsider's own private club."""
    ada, sam, mia, otto, bea = (_user(n) for n in ("ada", "sam", "mia", "otto", "bea"))
    alfa = services.create_club(name="Circolo Alfa", founder=ada, city="Roma")
    gamma = services.create_club(name="Circolo Gamma", founder=ada, city="Napoli", is_public=False)
    beta = services.create_club(name="Circolo Beta", founder=otto, is_public=False)
    clubs = {}
    for kind, club, guest_name in [("public", alfa, "Zio Pino"), ("private", gamma, "Zia Lina")]:
        services.add_member(club=club, user=sam, role=Role.SCORER)
        services.add_member(club=club, user=mia, role=Role.MEMBER)
        clubs[kind] = ClubUnderTest(
            club=club,
            guest=services.add_guest(club=club, display_name=guest_name),
            spare=services.add_guest(club=club, display_name="Ospite di passaggio"),
            other=services.add_member(club=club, user=bea),
            season=services.create_season(
                club=club, name="Inverno", start="2025-01-01", end="2025-03-31"
            ),
            invitation=services.create_invitation(club=club, by=ada, max_uses=5),
        )
    users = {"anonymous": None, "outsider": otto, "member": mia, "scorer": sam, "admin": ada}
    people = {role: user for role, user in users.items() if user is not None}
    return {"clubs": clubs, "users": users, "other": beta, "bea": bea, **people}


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
        assert response.status_code == expected, (
            response.status_code,
            getattr(response, "data", response.content[:300]),
        )
        if expected == 302:
            assert not response["Location"].startswith(login_path), response["Location"]


def expand(table):
    """(name, method, path, body, public statuses, private statuses) -> one case per role."""
    cases = []
    for name, method, path, body, public, private in table:
        for kind, statuses in [("public", public), ("private", private)]:
            if statuses is None:
                continue
            for role, expected in zip(ROLES, statuses, strict=True):
                cases.append(
                    pytest.param(
                        kind, method, path, body, role, expected, id=f"{name}-{kind}-{role}"
                    )
                )
    return cases


def fill(path: str, c: ClubUnderTest) -> str:
    return path.format(
        slug=c.slug,
        other=c.other.pk,
        invitation=c.invitation.pk,
        token=c.invitation.token,
        guest=c.guest.pk,
        spare=c.spare.pk,
        season=c.season.pk,
        **{k: getattr(v, "pk", v) for k, v in c.extra.items()},
    )


def call(world, kind, method, path, body, role, *, api: bool):
    """Make the request of one row of a table, as ``role``."""
    c = world["clubs"][kind]
    client = client_for(world, role, APIClient if api else Client)
    url = fill(path, c)
    data = body(c) if body else None
    if api:
        return getattr(client, method)(url, data, format="json")
    if method == "get":
        return client.get(url)
    return getattr(client, method)(url, data or {})


def same_page(a, a_path: str, b, b_path: str) -> bool:
    """Whether two HTML responses are the same page, but for the path each echoes (the
    language switch comes back to it) and the form's CSRF token (masked anew each time)."""
    import re

    def page_of(response, path):
        html = response.content.decode().replace(path, "X")
        return re.sub(r'name="csrfmiddlewaretoken" value="\w+"', "", html)

    return page_of(a, a_path) == page_of(b, b_path)
