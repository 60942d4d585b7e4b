"""The REST API's behaviour: what each endpoint does with good input, and with bad.

Bad input of any kind (wrong types, missing fields, junk JSON, huge strings, a list where an
object belongs) is a 400 whose body names the field at fault; never a 500. A body naming an
object that does not exist (or that the user may not see) is a 404 naming the field; a
request that clashes with what is stored (a name taken, the last admin) a 409 naming it.
Who may call what is `test_permissions.py`'s business; here the caller has the right role.
"""

import json
from datetime import timedelta

import pytest
from django.utils import timezone
from openapi_spec_validator import validate
from rest_framework.test import APIClient

from clubs import services
from clubs.models import Club, HouseRuleSet, Invitation, Membership, Player, Role, Season
from tests.answers import errors_of
from tests.conftest import PASSWORD

HUGE = "x" * 100_000


def as_user(user) -> APIClient:
    client = APIClient()
    client.force_login(user)
    return client


@pytest.fixture
def admin(people):
    return as_user(people["admin"])


@pytest.fixture
def scorer(people):
    return as_user(people["scorer"])


@pytest.fixture
def member(people):
    return as_user(people["member"])


def membership_of(people, who) -> Membership:
    return Membership.objects.get(club=people["club"], user=people[who])


# --- Clubs -----------------------------------------------------------------------------------


def test_creating_a_club_makes_you_its_admin(people, member):
    response = member.post(
        "/api/v1/clubs/", {"name": "Circolo Nuovo", "city": "Bari"}, format="json"
    )
    body = errors_of(response, 201)
    assert body["slug"] == "circolo-nuovo"
    assert body["my_role"] == Role.ADMIN
    club = Club.objects.get(slug="circolo-nuovo")
    assert club.role_of(people["member"]) == Role.ADMIN
    assert club.players.filter(user=people["member"]).exists()


def test_a_new_club_gets_a_free_slug_whatever_slug_is_sent(member):
    first = errors_of(
        member.post("/api/v1/clubs/", {"name": "Circolo Alfa", "slug": "mine"}, format="json"), 201
    )
    assert first["slug"] == "circolo-alfa-2"
    odd = errors_of(member.post("/api/v1/clubs/", {"name": "♠♥♦♣"}, format="json"), 201)
    assert odd["slug"] == "club"


def test_an_admin_renames_their_club_and_the_slug_stays(people, admin):
    response = admin.patch(
        "/api/v1/clubs/circolo-alfa/", {"name": "Circolo Alfa Uno"}, format="json"
    )
    assert errors_of(response, 200)["name"] == "Circolo Alfa Uno"
    people["club"].refresh_from_db()
    assert (people["club"].name, people["club"].slug) == ("Circolo Alfa Uno", "circolo-alfa")


def test_an_admin_makes_their_club_private(people, admin):
    admin.patch("/api/v1/clubs/circolo-alfa/", {"is_public": False}, format="json")
    assert APIClient().get("/api/v1/clubs/circolo-alfa/").status_code == 404


@pytest.mark.parametrize(
    "body, field",
    [
        ({}, "name"),
        ({"name": ""}, "name"),
        ({"name": "   "}, "name"),
        ({"name": HUGE}, "name"),
        ({"name": ["Circolo"]}, "name"),
        ({"name": {"it": "Circolo"}}, "name"),
        ({"name": None}, "name"),
        ({"name": "Circolo", "city": HUGE}, "city"),
        ({"name": "Circolo", "point_value": "-1"}, "point_value"),
        ({"name": "Circolo", "point_value": "abc"}, "point_value"),
        ({"name": "Circolo", "point_value": "NaN"}, "point_value"),
        ({"name": "Circolo", "point_value": "Infinity"}, "point_value"),
        ({"name": "Circolo", "point_value": "1e400"}, "point_value"),
        ({"name": "Circolo", "point_value": "0.001"}, "point_value"),
        ({"name": "Circolo", "point_value": [1]}, "point_value"),
        ({"name": "Circolo", "currency": "EURO"}, "currency"),
        ({"name": "Circolo", "currency": "€€€"}, "currency"),
        ({"name": "Circolo", "currency": 123}, "currency"),
        ({"name": "Circolo", "language": "xx"}, "language"),
        ({"name": "Circolo", "language": ["it"]}, "language"),
        ({"name": "Circolo", "is_public": "maybe"}, "is_public"),
        ({"name": "Circolo", "is_public": [True]}, "is_public"),
    ],
)
def test_a_bad_club_is_a_400_naming_the_field(member, body, field):
    assert field in errors_of(member.post("/api/v1/clubs/", body, format="json"))
    assert not Club.objects.filter(name="Circolo").exists()


def test_a_bad_club_update_is_a_400_naming_the_field(admin):
    assert "currency" in errors_of(
        admin.patch("/api/v1/clubs/circolo-alfa/", {"currency": "x"}, format="json")
    )
    assert "name" in errors_of(admin.put("/api/v1/clubs/circolo-alfa/", {}, format="json"))


# --- Players ---------------------------------------------------------------------------------


def test_a_scorer_adds_a_guest(people, scorer):
    body = errors_of(
        scorer.post(
            "/api/v1/players/",
            {
                "club": "circolo-alfa",
                "display_name": "  Nonna Rosa ",
            },
            format="json",
        ),
        201,
    )
    assert body["display_name"] == "Nonna Rosa"
    assert body["is_guest"] is True
    assert body["username"] is None
    assert people["club"].players.guests().filter(display_name="Nonna Rosa").exists()


@pytest.mark.parametrize(
    "body, field",
    [
        ({"club": "circolo-alfa", "display_name": ""}, "display_name"),
        ({"club": "circolo-alfa", "display_name": "   "}, "display_name"),
        ({"club": "circolo-alfa", "display_name": HUGE}, "display_name"),
        ({"club": "circolo-alfa", "display_name": ["Zio"]}, "display_name"),
        ({"club": "circolo-alfa"}, "display_name"),
        ({"display_name": "Nonna Rosa"}, "club"),
        ({"club": 42, "display_name": "Nonna Rosa"}, "club"),
        ({"club": ["circolo-alfa"], "display_name": "Nonna Rosa"}, "club"),
        ({"club": {"slug": "circolo-alfa"}, "display_name": "Nonna Rosa"}, "club"),
    ],
)
def test_a_bad_guest_is_a_400_naming_the_field(scorer, body, field):
    assert field in errors_of(scorer.post("/api/v1/players/", body, format="json"))


@pytest.mark.parametrize("club", ["no-such-club", "circolo-beta", HUGE])
def test_a_guest_of_a_club_you_cannot_see_is_a_404_naming_club(scorer, club):
    body = {"club": club, "display_name": "Nonna Rosa"}
    assert list(errors_of(scorer.post("/api/v1/players/", body, format="json"), 404)) == ["club"]


def test_a_guest_with_a_name_already_in_the_club_is_a_409_naming_it(scorer):
    body = {"club": "circolo-alfa", "display_name": "Zio Pino"}
    response = scorer.post("/api/v1/players/", body, format="json")
    assert list(errors_of(response, 409)) == ["display_name"]


def test_an_admin_renames_a_guest(people, admin):
    guest = people["guest"]
    response = admin.patch(
        f"/api/v1/players/{guest.pk}/", {"display_name": "Zio Pinuccio"}, format="json"
    )
    assert errors_of(response, 200)["display_name"] == "Zio Pinuccio"
    guest.refresh_from_db()
    assert guest.display_name == "Zio Pinuccio"


def test_a_guest_cannot_take_a_name_already_in_the_club(people, admin):
    guest = people["guest"]
    response = admin.patch(f"/api/v1/players/{guest.pk}/", {"display_name": "ada"}, format="json")
    assert "display_name" in errors_of(response, 409)
    response = admin.put(
        f"/api/v1/players/{guest.pk}/",
        {"club": "circolo-alfa", "display_name": "ada"},
        format="json",
    )
    assert "display_name" in errors_of(response, 409)


def test_keeping_ones_own_name_is_not_a_clash(people, admin):
    guest = people["guest"]
    response = admin.put(
        f"/api/v1/players/{guest.pk}/",
        {"club": "circolo-alfa", "display_name": "Zio Pino"},
        format="json",
    )
    assert errors_of(response, 200)["display_name"] == "Zio Pino"


def test_a_player_stays_in_their_club_whatever_the_body_says(people, make_user):
    ada = people["admin"]
    services.create_club(name="Circolo Due", founder=ada)
    response = as_user(ada).patch(
        f"/api/v1/players/{people['guest'].pk}/", {"club": "circolo-due"}, format="json"
    )
    assert errors_of(response, 200)["club"] == "circolo-alfa"
    people["guest"].refresh_from_db()
    assert people["guest"].club == people["club"]


def test_an_admin_merges_a_guest_into_a_member(people, admin):
    guest, mia = people["guest"], people["club"].players.get(user=people["member"])
    response = admin.post(f"/api/v1/players/{guest.pk}/merge/", {"into": mia.pk}, format="json")
    assert errors_of(response, 200)["id"] == mia.pk
    guest.refresh_from_db()
    assert guest.merged_into == mia
    listed = admin.get("/api/v1/players/?club__slug=circolo-alfa").json()["results"]
    assert guest.pk not in {row["id"] for row in listed}
    assert admin.get(f"/api/v1/players/{guest.pk}/").status_code == 404


@pytest.mark.parametrize(
    "into, field, status",
    [
        ("self", "target", 400),
        (999_999, "into", 404),
        (10**30, "into", 404),
        (-1, "into", 404),
        ("abc", "into", 400),
        ("12", "into", 400),
        (True, "into", 400),
        ([1], "into", 400),
        (None, "into", 400),
        (HUGE, "into", 400),
    ],
)
def test_a_bad_merge_is_refused_naming_the_field(people, admin, into, field, status):
    guest = people["guest"]
    if into == "self":
        into = guest.pk
    response = admin.post(f"/api/v1/players/{guest.pk}/merge/", {"into": into}, format="json")
    assert field in errors_of(response, status)
    guest.refresh_from_db()
    assert guest.merged_into is None


def test_a_member_cannot_be_merged_away_a_409_naming_source(people, admin):
    mia = people["club"].players.get(user=people["member"])
    response = admin.post(
        f"/api/v1/players/{mia.pk}/merge/", {"into": people["guest"].pk}, format="json"
    )
    assert list(errors_of(response, 409)) == ["source"]


def test_a_guest_of_another_club_is_not_a_merge_target(people, admin):
    beta_player = people["other"].players.get()
    response = admin.post(
        f"/api/v1/players/{people['guest'].pk}/merge/", {"into": beta_player.pk}, format="json"
    )
    assert "into" in errors_of(response, 404)


def test_a_merge_needs_a_body(people, admin):
    assert "into" in errors_of(
        admin.post(f"/api/v1/players/{people['guest'].pk}/merge/", {}, format="json")
    )


# --- Memberships -----------------------------------------------------------------------------


def test_an_admin_changes_a_members_role(people, admin):
    mia = membership_of(people, "member")
    response = admin.patch(f"/api/v1/memberships/{mia.pk}/", {"role": "scorer"}, format="json")
    assert errors_of(response, 200)["role"] == "scorer"
    mia.refresh_from_db()
    assert mia.role == Role.SCORER


@pytest.mark.parametrize("role", ["owner", "", None, 3, ["admin"], HUGE])
def test_an_unknown_role_is_a_400_naming_role(people, admin, role):
    mia = membership_of(people, "member")
    response = admin.patch(f"/api/v1/memberships/{mia.pk}/", {"role": role}, format="json")
    assert "role" in errors_of(response)


def test_a_club_must_keep_at_least_one_admin(people, admin):
    ada = membership_of(people, "admin")
    response = admin.patch(f"/api/v1/memberships/{ada.pk}/", {"role": "member"}, format="json")
    assert "role" in errors_of(response, 409)
    response = admin.delete(f"/api/v1/memberships/{ada.pk}/")
    assert "role" in errors_of(response, 409)
    ada.refresh_from_db()
    assert ada.role == Role.ADMIN


def test_an_admin_may_step_down_once_there_is_another(people, admin):
    sam, ada = membership_of(people, "scorer"), membership_of(people, "admin")
    admin.patch(f"/api/v1/memberships/{sam.pk}/", {"role": "admin"}, format="json")
    response = admin.patch(f"/api/v1/memberships/{ada.pk}/", {"role": "member"}, format="json")
    assert errors_of(response, 200)["role"] == "member"


def test_a_member_leaves_the_club_and_their_player_stays_as_a_guest(people, member):
    mia = membership_of(people, "member")
    assert member.delete(f"/api/v1/memberships/{mia.pk}/").status_code == 204
    assert not Membership.objects.filter(pk=mia.pk).exists()
    player = people["club"].players.get(display_name="mia")
    assert player.is_guest
    assert member.get("/api/v1/memberships/").json()["count"] == 0


def test_an_admin_removes_a_member(people, admin):
    mia = membership_of(people, "member")
    assert admin.delete(f"/api/v1/memberships/{mia.pk}/").status_code == 204
    assert people["club"].role_of(people["member"]) is None


def test_a_membership_cannot_move_or_change_hands(people, admin):
    mia = membership_of(people, "member")
    response = admin.patch(
        f"/api/v1/memberships/{mia.pk}/",
        {"club": "circolo-beta", "username": "otto"},
        format="json",
    )
    assert response.status_code == 200
    mia.refresh_from_db()
    assert (mia.club, mia.user) == (people["club"], people["member"])


# --- Seasons ---------------------------------------------------------------------------------

SEASON = {"club": "circolo-alfa", "name": "Inverno", "start": "2025-01-01", "end": "2025-03-31"}


def test_an_admin_adds_a_season(people, admin):
    body = errors_of(admin.post("/api/v1/seasons/", SEASON, format="json"), 201)
    assert body["club"] == "circolo-alfa"
    assert people["club"].seasons.get().name == "Inverno"


def test_a_season_that_ends_before_it_starts_is_a_400_naming_end(people, admin):
    response = admin.post("/api/v1/seasons/", {**SEASON, "end": "2024-12-31"}, format="json")
    assert list(errors_of(response)) == ["end"]
    season = Season.objects.create(
        club=people["club"], name="Primavera", start="2025-04-01", end="2025-06-30"
    )
    body = {"start": "2025-07-01", "end": "2025-06-01"}
    assert list(errors_of(admin.patch(f"/api/v1/seasons/{season.pk}/", body))) == ["end"]


def test_one_new_date_on_the_wrong_side_of_the_kept_one_is_a_409_naming_end(people, admin):
    season = Season.objects.create(
        club=people["club"], name="Primavera", start="2025-04-01", end="2025-06-30"
    )
    response = admin.patch(f"/api/v1/seasons/{season.pk}/", {"end": "2025-03-01"}, format="json")
    assert list(errors_of(response, 409)) == ["end"]
    response = admin.patch(f"/api/v1/seasons/{season.pk}/", {"start": "2025-07-01"}, format="json")
    assert list(errors_of(response, 409)) == ["end"]


def test_a_one_day_season_is_fine(admin):
    response = admin.post("/api/v1/seasons/", {**SEASON, "end": SEASON["start"]}, format="json")
    assert response.status_code == 201


def test_a_duplicate_season_name_is_a_409_naming_name(people, admin):
    admin.post("/api/v1/seasons/", SEASON, format="json")
    response = admin.post(
        "/api/v1/seasons/", {**SEASON, "start": "2026-01-01", "end": "2026-03-31"}, format="json"
    )
    assert list(errors_of(response, 409)) == ["name"]
    other = Season.objects.create(
        club=people["club"], name="Estate", start="2025-06-01", end="2025-08-31"
    )
    response = admin.patch(f"/api/v1/seasons/{other.pk}/", {"name": "Inverno"}, format="json")
    assert list(errors_of(response, 409)) == ["name"]


def test_overlapping_seasons_are_a_409_naming_start(people, admin):
    admin.post("/api/v1/seasons/", SEASON, format="json")
    response = admin.post(
        "/api/v1/seasons/", {**SEASON, "name": "Altro", "start": "2025-03-01"}, format="json"
    )
    assert list(errors_of(response, 409)) == ["start"]


def test_a_season_with_a_clash_and_a_bad_date_is_a_400(people, admin):
    admin.post("/api/v1/seasons/", SEASON, format="json")
    response = admin.post("/api/v1/seasons/", {**SEASON, "end": "2024-01-01"}, format="json")
    assert set(errors_of(response)) == {"name", "end"}


def test_another_club_may_use_the_same_season_name(people):
    as_user(people["admin"]).post("/api/v1/seasons/", SEASON, format="json")
    response = as_user(people["outsider"]).post(
        "/api/v1/seasons/", {**SEASON, "club": "circolo-beta"}, format="json"
    )
    assert response.status_code == 201


def test_a_season_stays_in_its_club_whatever_the_body_says(people):
    ada = people["admin"]
    services.create_club(name="Circolo Due", founder=ada)
    season = Season.objects.create(
        club=people["club"], **{k: v for k, v in SEASON.items() if k != "club"}
    )
    response = as_user(ada).patch(
        f"/api/v1/seasons/{season.pk}/", {"club": "circolo-due"}, format="json"
    )
    assert errors_of(response, 200)["club"] == "circolo-alfa"
    season.refresh_from_db()
    assert season.club == people["club"]


@pytest.mark.parametrize(
    "change, field",
    [
        ({"start": "2025-13-01"}, "start"),
        ({"start": "yesterday"}, "start"),
        ({"start": "99999-01-01"}, "start"),
        ({"start": 20250101}, "start"),
        ({"start": "20250101"}, "start"),
        ({"start": "2025-W01-1"}, "start"),
        ({"start": "2025-1-5"}, "start"),
        ({"start": ["2025-01-01"]}, "start"),
        ({"end": None}, "end"),
        ({"name": ""}, "name"),
        ({"name": HUGE}, "name"),
        ({"name": {"a": 1}}, "name"),
        ({"name": 2025}, "name"),
        ({"club": None}, "club"),
    ],
)
def test_a_bad_season_is_a_400_naming_the_field(admin, change, field):
    assert field in errors_of(admin.post("/api/v1/seasons/", {**SEASON, **change}, format="json"))


@pytest.mark.parametrize("missing", ["club", "name", "start", "end"])
def test_a_season_missing_a_field_is_a_400_naming_it(admin, missing):
    body = {k: v for k, v in SEASON.items() if k != missing}
    assert missing in errors_of(admin.post("/api/v1/seasons/", body, format="json"))


def test_an_admin_deletes_a_season(people, admin):
    season = Season.objects.create(
        club=people["club"], name="Inverno", start="2025-01-01", end="2025-03-31"
    )
    assert admin.delete(f"/api/v1/seasons/{season.pk}/").status_code == 204
    assert not Season.objects.exists()


def test_seasons_filter_by_dates(people, admin):
    for name, start, end in [("A", "2024-01-01", "2024-03-31"), ("B", "2025-01-01", "2025-03-31")]:
        Season.objects.create(club=people["club"], name=name, start=start, end=end)
    rows = admin.get("/api/v1/seasons/?start__gte=2025-01-01").json()["results"]
    assert [row["name"] for row in rows] == ["B"]
    assert "start__gte" in errors_of(admin.get("/api/v1/seasons/?start__gte=not-a-date"))


# --- Invitations -----------------------------------------------------------------------------


def test_an_admin_creates_an_invitation_and_a_newcomer_accepts_it(people, admin, make_user):
    body = errors_of(
        admin.post(
            "/api/v1/invitations/",
            {
                "club": "circolo-alfa",
                "role": "scorer",
                "max_uses": 2,
            },
            format="json",
        ),
        201,
    )
    assert body["url"].endswith(f"/invite/{body['token']}/")
    assert body["uses"] == 0
    newcomer = make_user("nina")
    response = as_user(newcomer).post(
        "/api/v1/invitations/accept/", {"token": body["token"]}, format="json"
    )
    joined = errors_of(response, 201)
    assert (joined["club"], joined["username"], joined["role"]) == (
        "circolo-alfa",
        "nina",
        "scorer",
    )
    assert Invitation.objects.get(token=body["token"]).uses == 1


def test_accepting_an_invitation_to_claim_a_guest_makes_you_that_guest(people, admin, make_user):
    guest = people["guest"]
    body = errors_of(
        admin.post(
            "/api/v1/invitations/",
            {
                "club": "circolo-alfa",
                "player": guest.pk,
            },
            format="json",
        ),
        201,
    )
    pino = make_user("pino")
    as_user(pino).post("/api/v1/invitations/accept/", {"token": body["token"]}, format="json")
    guest.refresh_from_db()
    assert guest.user == pino


def test_a_revoked_invitation_cannot_be_accepted(people, admin, make_user):
    invitation = services.create_invitation(club=people["club"], by=people["admin"])
    assert admin.delete(f"/api/v1/invitations/{invitation.pk}/").status_code == 204
    invitation.refresh_from_db()
    assert invitation.revoked_at is not None
    response = as_user(make_user("nina")).post(
        "/api/v1/invitations/accept/", {"token": invitation.token}, format="json"
    )
    assert "token" in errors_of(response, 409)


def test_an_expired_invitation_cannot_be_accepted(people, make_user):
    invitation = services.create_invitation(club=people["club"], by=people["admin"])
    Invitation.objects.filter(pk=invitation.pk).update(
        expires_at=timezone.now() - timedelta(minutes=1)
    )
    response = as_user(make_user("nina")).post(
        "/api/v1/invitations/accept/", {"token": invitation.token}, format="json"
    )
    assert "token" in errors_of(response, 409)


def test_a_used_up_invitation_cannot_be_accepted(people, make_user):
    invitation = services.create_invitation(club=people["club"], by=people["admin"], max_uses=1)
    first = as_user(make_user("nina")).post(
        "/api/v1/invitations/accept/", {"token": invitation.token}, format="json"
    )
    assert first.status_code == 201
    second = as_user(make_user("nico")).post(
        "/api/v1/invitations/accept/", {"token": invitation.token}, format="json"
    )
    assert "token" in errors_of(second, 409)
    assert not Membership.objects.filter(user__username="nico").exists()


def test_a_member_accepting_again_is_a_409_and_uses_nothing(people, member):
    invitation = services.create_invitation(club=people["club"], by=people["admin"])
    response = member.post(
        "/api/v1/invitations/accept/", {"token": invitation.token}, format="json"
    )
    assert list(errors_of(response, 409)) == ["non_field_errors"]
    invitation.refresh_from_db()
    assert invitation.uses == 0


@pytest.mark.parametrize("token", ["", HUGE, None, 42, ["a"], {"a": 1}])
def test_a_bad_token_is_a_400_naming_token(member, token):
    response = member.post("/api/v1/invitations/accept/", {"token": token}, format="json")
    assert "token" in errors_of(response)


def test_an_unknown_token_is_a_404_naming_token(member):
    response = member.post("/api/v1/invitations/accept/", {"token": "no-such-token"})
    assert list(errors_of(response, 404)) == ["token"]


@pytest.mark.parametrize(
    "change, field, status",
    [
        ({"role": "owner"}, "role", 400),
        ({"role": None}, "role", 400),
        ({"max_uses": 0}, "max_uses", 400),
        ({"max_uses": -1}, "max_uses", 400),
        ({"max_uses": 1001}, "max_uses", 400),
        ({"max_uses": 10**30}, "max_uses", 400),
        ({"max_uses": "many"}, "max_uses", 400),
        ({"max_uses": "5"}, "max_uses", 400),
        ({"expires_at": "soon"}, "expires_at", 400),
        ({"expires_at": 12}, "expires_at", 400),
        ({"expires_at": "2999-01-01T10:00:00"}, "expires_at", 400),
        ({"expires_at": "2020-01-01T10:00:00Z"}, "expires_at", 400),
        ({"email": "not-an-address"}, "email", 400),
        ({"email": HUGE}, "email", 400),
        ({"player": "abc"}, "player", 400),
        ({"player": 10**30}, "player", 404),
        ({"player": "member"}, "player", 409),
        ({"player": "guest", "max_uses": 2}, "max_uses", 400),
        ({"club": "circolo-beta"}, "club", 404),
    ],
)
def test_a_bad_invitation_is_refused_naming_the_field(people, admin, change, field, status):
    if change.get("player") == "member":
        change = {"player": people["club"].players.get(user=people["member"]).pk}
    elif change.get("player") == "guest":
        change = {**change, "player": people["guest"].pk}
    response = admin.post("/api/v1/invitations/", {"club": "circolo-alfa", **change}, format="json")
    assert field in errors_of(response, status)
    assert not Invitation.objects.exists()


def test_an_invitation_may_be_used_up_to_a_thousand_times(admin):
    body = {"club": "circolo-alfa", "max_uses": 1000, "expires_at": "2999-01-01T10:00:00+01:00"}
    assert (
        errors_of(admin.post("/api/v1/invitations/", body, format="json"), 201)["max_uses"] == 1000
    )


# --- House rules -----------------------------------------------------------------------------


def test_house_rules_start_from_the_defaults(admin):
    body = errors_of(admin.get("/api/v1/clubs/circolo-alfa/house-rules/singapore/"), 200)
    assert body["version"] is None
    assert body["rules"]["rounding"] == "nearest"


def test_an_admin_changes_the_house_rules_and_each_change_is_a_version(people, admin):
    url = "/api/v1/clubs/circolo-alfa/house-rules/singapore/"
    first = errors_of(admin.put(url, {"rules": {"rounding": "up"}}, format="json"), 200)
    assert (first["version"], first["rules"]["rounding"]) == (1, "up")
    again = errors_of(admin.put(url, {"rules": {"rounding": "up"}}, format="json"), 200)
    assert again["version"] == 1
    second = errors_of(admin.put(url, {"rules": {"cap": None}}, format="json"), 200)
    assert second["version"] == 2
    assert HouseRuleSet.objects.filter(club=people["club"], game="singapore").count() == 2


@pytest.mark.parametrize(
    "game, body, field",
    [
        ("singapore", {"rules": {"colour": "red"}}, "rules.colour"),
        ("singapore", {"rules": {"rounding": "sideways"}}, "rules.rounding"),
        ("singapore", {"rules": {"rounding": 1}}, "rules.rounding"),
        ("singapore", {"rules": {"cap": -1}}, "rules.cap"),
        ("singapore", {"rules": {"cap": "100"}}, "rules.cap"),
        ("singapore", {"rules": {"cap": True}}, "rules.cap"),
        ("singapore", {"rules": {"cap": 1.5}}, "rules.cap"),
        (
            "singapore",
            {"rules": {"joker_sequence_multipliers": "yes"}},
            "rules.joker_sequence_multipliers",
        ),
        ("singapore", {"rules": {"joker_limit": ["one"]}}, "rules.joker_limit"),
        ("spazzumazz", {"rules": {"idiot_min_games": 0}}, "rules.idiot_min_games"),
        ("spazzumazz", {"rules": {"idiot_min_games": {"n": 3}}}, "rules.idiot_min_games"),
        ("sputo", {"rules": {"variant": "classic"}}, "rules.variant"),
        ("singapore", {"rules": {HUGE: 1}}, "rules." + "x" * 40),
        ("singapore", {"rules": "rounding=up"}, "rules"),
        ("singapore", {"rules": ["rounding"]}, "rules"),
        ("singapore", {"rules": None}, "rules"),
        ("singapore", {}, "rules"),
        ("singapore", {"rounding": "up"}, "rules"),
    ],
)
def test_bad_house_rules_are_a_400_naming_the_rule(people, admin, game, body, field):
    response = admin.put(f"/api/v1/clubs/circolo-alfa/house-rules/{game}/", body, format="json")
    assert field in errors_of(response)
    assert not HouseRuleSet.objects.exists()


@pytest.mark.parametrize("raw", ["[]", '"rules"', "42", "null", "{not json", '{"rules": NaN}'])
def test_a_house_rules_body_that_is_not_an_object_is_a_400(admin, raw):
    response = admin.generic(
        "PUT",
        "/api/v1/clubs/circolo-alfa/house-rules/singapore/",
        raw,
        content_type="application/json",
    )
    errors_of(response)
    assert not HouseRuleSet.objects.exists()


def test_an_unknown_game_has_no_house_rules(admin):
    assert admin.get("/api/v1/clubs/circolo-alfa/house-rules/poker/").status_code == 404
    response = admin.put(
        "/api/v1/clubs/circolo-alfa/house-rules/poker/", {"rules": {}}, format="json"
    )
    assert response.status_code == 404


# --- Token authentication --------------------------------------------------------------------


def test_a_token_from_the_token_endpoint_authenticates_requests(people):
    api = APIClient()
    response = api.post(
        "/api/v1/auth/token/", {"username": "ada", "password": PASSWORD}, format="json"
    )
    token = errors_of(response, 200)["token"]
    api.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    clubs = api.get("/api/v1/clubs/?mine=true").json()["results"]
    assert [c["slug"] for c in clubs] == ["circolo-alfa"]
    assert clubs[0]["my_role"] == "admin"
    response = api.patch("/api/v1/clubs/circolo-alfa/", {"city": "Milano"}, format="json")
    assert errors_of(response, 200)["city"] == "Milano"


def test_credentials_that_do_not_log_in_are_a_401(people):
    body = {"username": "ada", "password": "wrong-password"}
    response = APIClient().post("/api/v1/auth/token/", body, format="json")
    assert errors_of(response, 401)["detail"]
    assert response["WWW-Authenticate"] == "Token"


def test_the_token_endpoint_ignores_an_authorization_header(people):
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION="Token not-a-real-token")
    body = {"username": "ada", "password": PASSWORD}
    assert errors_of(api.post("/api/v1/auth/token/", body, format="json"), 200)["token"]


def test_asking_for_a_token_twice_gives_two_tokens_that_both_work(people):
    body = {"username": "mia", "password": PASSWORD}
    first, second = (APIClient().post("/api/v1/auth/token/", body).json() for _ in range(2))
    assert first["token"] != second["token"]
    for token in (first["token"], second["token"]):
        api = APIClient()
        api.credentials(HTTP_AUTHORIZATION=f"Token {token}")
        assert api.get("/api/v1/clubs/?mine=true").json()["count"] == 1


@pytest.mark.parametrize(
    "body, field",
    [
        ({"username": "ada"}, "password"),
        ({"password": PASSWORD}, "username"),
        ({"username": HUGE, "password": PASSWORD}, "username"),
        ({"username": ["ada"], "password": PASSWORD}, "username"),
    ],
)
def test_bad_credentials_are_a_400_naming_the_field(people, body, field):
    response = APIClient().post("/api/v1/auth/token/", body, format="json")
    assert field in errors_of(response)


def test_a_wrong_token_is_refused_and_reveals_nothing(people):
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION="Token not-a-real-token")
    assert api.get("/api/v1/clubs/").status_code in {401, 403}
    api.credentials(HTTP_AUTHORIZATION="Token")
    assert api.get("/api/v1/clubs/").status_code in {401, 403}


# --- Pagination, filters and search ----------------------------------------------------------


def test_lists_are_paginated(people, admin):
    for n in range(60):
        services.add_guest(club=people["club"], display_name=f"Ospite {n:02d}")
    first = errors_of(admin.get("/api/v1/players/?club__slug=circolo-alfa"), 200)
    total = people["club"].players.active().count()
    assert first["count"] == total
    assert len(first["results"]) == 50
    assert first["next"] is not None
    second = errors_of(admin.get(first["next"]), 200)
    assert len(second["results"]) == total - 50
    assert admin.get("/api/v1/players/?page=99").status_code == 404


@pytest.mark.parametrize("page", ["junk", "0", "-1", "", "1.0", "last", "１"])
def test_a_page_that_is_not_a_page_number_is_a_400_naming_page(admin, page):
    assert list(errors_of(admin.get("/api/v1/players/", {"page": page}))) == ["page"]


def test_a_page_given_twice_is_a_400_naming_page(admin):
    assert list(errors_of(admin.get("/api/v1/players/?page=1&page=1"))) == ["page"]


def test_filters_narrow_the_lists(people, make_user):
    ada = people["admin"]
    services.create_club(name="Circolo Due", founder=ada, city="Torino")
    bystander = services.create_club(name="Circolo Tre", founder=make_user("tre"), city="Torino")
    api = as_user(ada)

    def slugs(url, key="slug"):
        return {row[key] for row in errors_of(api.get(url), 200)["results"]}

    assert slugs("/api/v1/clubs/?mine=true") == {"circolo-alfa", "circolo-due"}
    assert slugs("/api/v1/clubs/?mine=false") == {"circolo-alfa", "circolo-due", bystander.slug}
    assert slugs("/api/v1/clubs/?city=Torino") == {"circolo-due", "circolo-tre"}
    assert slugs("/api/v1/clubs/?search=roma") == {"circolo-alfa"}
    assert slugs("/api/v1/players/?club__slug=circolo-due", "club") == {"circolo-due"}
    assert slugs("/api/v1/players/?club__slug=circolo-alfa&user__isnull=true", "display_name") == {
        "Zio Pino"
    }
    assert slugs("/api/v1/players/?search=pino", "display_name") == {"Zio Pino"}
    assert slugs("/api/v1/memberships/?role=scorer", "username") == {"sam"}
    assert slugs("/api/v1/memberships/?club__slug=circolo-due", "username") == {"ada"}
    assert slugs("/api/v1/clubs/?ordering=-name") == {"circolo-alfa", "circolo-due", "circolo-tre"}
    rows = errors_of(api.get("/api/v1/clubs/?ordering=-name"), 200)["results"]
    assert [r["slug"] for r in rows] == ["circolo-tre", "circolo-due", "circolo-alfa"]


@pytest.mark.parametrize(
    "query, field",
    [
        ("/api/v1/memberships/?role=owner", "role"),
        ("/api/v1/seasons/?end__lte=not-a-date", "end__lte"),
        ("/api/v1/seasons/?start__gte=2025-02-30", "start__gte"),
    ],
)
def test_a_bad_filter_is_a_400_naming_it(admin, query, field):
    assert field in errors_of(admin.get(query))


@pytest.mark.parametrize(
    "query",
    [
        "/api/v1/clubs/?ordering=password",
        "/api/v1/clubs/?search=" + "x" * 5000,
        "/api/v1/clubs/?club__slug=" + "x" * 5000,
        "/api/v1/players/?club__slug=%00",
        "/api/v1/clubs/?mine=perhaps",
        "/api/v1/players/?ordering=user__password",
        "/api/v1/players/?user__isnull=maybe",
    ],
)
def test_odd_queries_are_never_a_500(admin, query):
    assert admin.get(query).status_code in {200, 400}


@pytest.mark.parametrize("endpoint", ["players", "memberships", "seasons", "invitations"])
@pytest.mark.parametrize("key", ["99999999999999999999999", "-1", "abc", "1.5", "%00"])
def test_an_id_that_cannot_be_an_id_is_a_404(admin, endpoint, key):
    for method in ["get", "put", "patch", "delete"]:
        response = getattr(admin, method)(f"/api/v1/{endpoint}/{key}/", {}, format="json")
        assert response.status_code in {404, 405}, (method, response.status_code)
    merge = admin.post(f"/api/v1/players/{key}/merge/", {"into": 1}, format="json")
    assert merge.status_code == 404


def test_a_cap_is_bounded_and_the_error_names_it(admin):
    url = "/api/v1/clubs/circolo-alfa/house-rules/singapore/"
    response = admin.put(url, {"rules": {"cap": 10**30}}, format="json")
    assert list(errors_of(response)) == ["rules.cap"]
    response = admin.put(url, {"rules": {"cap": 1_000_000}}, format="json")
    assert errors_of(response, 200)["rules"]["cap"] == 1_000_000


# --- Bad bodies everywhere -------------------------------------------------------------------


def write_endpoints(people):
    """Every write endpoint, as (method, url), with objects the admin may change."""
    season = Season.objects.create(
        club=people["club"], name="Inverno", start="2025-01-01", end="2025-03-31"
    )
    mia = membership_of(people, "member")
    guest = people["guest"]
    return [
        ("post", "/api/v1/clubs/"),
        ("put", "/api/v1/clubs/circolo-alfa/"),
        ("patch", "/api/v1/clubs/circolo-alfa/"),
        ("put", "/api/v1/clubs/circolo-alfa/house-rules/singapore/"),
        ("post", "/api/v1/players/"),
        ("put", f"/api/v1/players/{guest.pk}/"),
        ("patch", f"/api/v1/players/{guest.pk}/"),
        ("post", f"/api/v1/players/{guest.pk}/merge/"),
        ("put", f"/api/v1/memberships/{mia.pk}/"),
        ("patch", f"/api/v1/memberships/{mia.pk}/"),
        ("post", "/api/v1/seasons/"),
        ("put", f"/api/v1/seasons/{season.pk}/"),
        ("patch", f"/api/v1/seasons/{season.pk}/"),
        ("post", "/api/v1/invitations/"),
        ("post", "/api/v1/invitations/accept/"),
        ("post", "/api/v1/auth/token/"),
    ]


JUNK = {
    "a list": "[1, 2]",
    "a string": '"hello"',
    "a number": "42",
    "null": "null",
    "broken JSON": '{"name": ',
    "not JSON at all": "name=Circolo",
    "NaN": '{"name": NaN}',
    "a huge number": '{"name": 1' + "0" * 5000 + "}",
    "a huge string": json.dumps(
        {
            "name": HUGE,
            "display_name": HUGE,
            "role": HUGE,
            "token": HUGE,
            "rules": {HUGE: HUGE},
            "into": HUGE,
        }
    ),
    "wrong types": json.dumps(
        {
            "name": [],
            "display_name": {},
            "role": 1,
            "token": [],
            "rules": [],
            "into": {},
            "club": 1.5,
            "start": True,
            "end": [],
            "username": {},
            "password": [],
        }
    ),
}


@pytest.mark.parametrize("junk", JUNK)
def test_junk_bodies_anywhere_are_a_400_never_a_500(people, admin, junk):
    for method, url in write_endpoints(people):
        response = admin.generic(method.upper(), url, JUNK[junk], content_type="application/json")
        assert response.status_code == 400, (method, url, response.status_code)
        assert isinstance(response.json(), dict)
        assert response.json(), (method, url)


def test_json_nested_too_deeply_is_a_400_never_a_500(people, admin):
    for method, url in write_endpoints(people):
        response = admin.generic(
            method.upper(), url, "[" * 5000 + "]" * 5000, content_type="application/json"
        )
        assert response.status_code == 400, (method, url, response.status_code)


def test_an_empty_body_is_a_400_naming_the_missing_fields(people, admin):
    for method, url in write_endpoints(people):
        if method == "patch":
            continue  # nothing to change is a valid PATCH
        response = admin.generic(method.upper(), url, "{}", content_type="application/json")
        assert response.status_code == 400, (method, url, response.status_code)
        assert set(response.json()) - {"non_field_errors", "detail"}, (method, url)


def test_form_encoded_bodies_work_too(people, scorer):
    response = scorer.post(
        "/api/v1/players/", {"club": "circolo-alfa", "display_name": "Nonna Rosa"}
    )
    assert response.status_code == 201
    assert Player.objects.filter(display_name="Nonna Rosa").exists()


# --- OpenAPI ---------------------------------------------------------------------------------


def test_the_openapi_schema_validates(db):
    response = APIClient().get("/api/schema/", {"format": "json"})
    assert response.status_code == 200
    schema = json.loads(response.content)
    validate(schema)
    for path in [
        "/api/v1/clubs/",
        "/api/v1/clubs/{slug}/house-rules/singapore/",
        "/api/v1/clubs/{slug}/house-rules/sputo/",
        "/api/v1/clubs/{slug}/house-rules/spazzumazz/",
        "/api/v1/players/{id}/merge/",
        "/api/v1/invitations/accept/",
        "/api/v1/auth/token/",
    ]:
        assert path in schema["paths"], path


def test_the_api_docs_are_served(db):
    response = APIClient().get("/api/docs/")
    assert response.status_code == 200
    assert b"swagger" in response.content.lower()


def test_the_token_endpoint_refuses_nested_junk_with_a_400(people):
    response = APIClient().generic(
        "POST", "/api/v1/auth/token/", "[" * 5000 + "]" * 5000, content_type="application/json"
    )
    assert response.status_code == 400


def test_an_api_client_without_credentials_is_told_to_authenticate_with_a_token(people):
    response = APIClient().post("/api/v1/clubs/", {"name": "X"}, format="json")
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Token"


@pytest.mark.parametrize(
    ("who", "sees_usernames"),
    [
        (None, False),
        ("outsider", False),
        ("member", True),
        ("admin", True),
    ],
)
def test_login_names_of_players_are_shown_to_members_of_the_club_only(people, who, sees_usernames):
    api = APIClient()
    if who:
        api.force_authenticate(people[who])
    rows = api.get("/api/v1/players/", {"club__slug": people["club"].slug}).json()["results"]
    members = [row for row in rows if not row["is_guest"]]
    assert members
    assert all((row["username"] is not None) == sees_usernames for row in members)


def test_a_constraint_race_is_a_409_not_a_500(people, admin, monkeypatch):
    from django.db import IntegrityError

    from clubs.models import Season

    def collide(*args, **kwargs):
        raise IntegrityError("duplicate key value violates unique constraint")

    monkeypatch.setattr(Season, "save", collide)
    response = admin.post(
        "/api/v1/seasons/",
        {"club": people["club"].slug, "name": "2027", "start": "2027-01-01", "end": "2027-12-31"},
        format="json",
    )
    assert response.status_code == 409
    assert list(response.json()) == ["name"]
