"""What every API request gets without its view asking: strict filters and page numbers, a
NUL check on query parameters, JSON 404s, form bodies read like JSON, input read as the
schema documents it, and bounds on every number a user types."""

from urllib.parse import urlencode

import pytest
from django.core.exceptions import ValidationError
from django.test import override_settings
from rest_framework.test import APIClient

from clubs import services
from clubs.models import Club, Invitation
from tests.answers import errors_of
from tests.conftest import PASSWORD


@pytest.fixture
def admin(people):
    client = APIClient()
    client.force_login(people["admin"])
    return client


def send(client, method, url, body, encoding):
    """``body`` sent as JSON, as a urlencoded form, or as a multipart form."""
    if encoding == "form":
        return client.generic(
            method.upper(), url, urlencode(body), content_type="application/x-www-form-urlencoded"
        )
    return getattr(client, method)(url, body, format=encoding)


# --- Filters -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url, parameter",
    [
        ("/api/v1/clubs/?mine=-1", "mine"),
        ("/api/v1/clubs/?mine=1", "mine"),
        ("/api/v1/clubs/?mine=True", "mine"),
        ("/api/v1/clubs/?mine=", "mine"),
        ("/api/v1/clubs/?is_public=maybe", "is_public"),
        ("/api/v1/players/?user__isnull=-1", "user__isnull"),
        ("/api/v1/memberships/?role=", "role"),
        ("/api/v1/seasons/?start__gte=", "start__gte"),
        ("/api/v1/seasons/?start__gte=20250101", "start__gte"),
        ("/api/v1/clubs/?city=Roma&city=Bari", "city"),
        ("/api/v1/clubs/?mine=true&mine=true", "mine"),
    ],
)
def test_a_filter_that_cannot_be_read_is_a_400_naming_it(admin, url, parameter):
    assert list(errors_of(admin.get(url))) == [parameter]


def test_yes_no_filters_read_true_and_false(people, admin):
    mine = errors_of(admin.get("/api/v1/clubs/?mine=true"), 200)["results"]
    assert [club["slug"] for club in mine] == ["circolo-alfa"]
    everyone = errors_of(admin.get("/api/v1/clubs/?mine=false&is_public=true"), 200)["results"]
    assert [club["slug"] for club in everyone] == ["circolo-alfa"]


def test_an_empty_text_filter_filters_nothing(people, admin):
    assert errors_of(admin.get("/api/v1/clubs/?city="), 200)["count"] == 1


# --- NUL characters and unknown URLs -------------------------------------------------------------


@pytest.mark.parametrize(
    "url, parameter",
    [
        ("/api/v1/players/?club__slug=%00", "club__slug"),
        ("/api/v1/clubs/?search=a%00b", "search"),
        ("/api/v1/clubs/?unknown=%00", "unknown"),
        ("/api/v1/clubs/circolo-alfa/?x=%00", "x"),
        ("/api/v1/clubs/?a%00b=1", "a\\0b"),
        ("/api/schema/?format=%00", "format"),
    ],
)
def test_a_nul_in_a_query_parameter_is_a_400_naming_it(admin, url, parameter):
    assert list(errors_of(admin.get(url))) == [parameter]


def test_a_nul_in_the_token_endpoints_query_is_a_400_too(people):
    response = APIClient().post("/api/v1/auth/token/?next=%00", {"username": "ada"})
    assert list(errors_of(response)) == ["next"]


@pytest.mark.parametrize("game", ["poker", "Singapore", "sputo.xml", "%2F", "x" * 500, "%00"])
@pytest.mark.parametrize("debug", [False, True])
def test_an_unknown_game_is_a_json_404_whatever_the_string(admin, game, debug):
    with override_settings(DEBUG=debug):
        for method in ["get", "put"]:
            url = f"/api/v1/clubs/circolo-alfa/house-rules/{game}/"
            response = getattr(admin, method)(url, {"rules": {}}, format="json")
            assert response.status_code == 404, (method, response.status_code)
            assert response["Content-Type"] == "application/json"
            assert set(response.json()) == {"detail"}


@pytest.mark.parametrize(
    "url, body",
    [
        ("/api/v1/players/", {"club": "circolo\x00alfa", "display_name": "Nonna Rosa"}),
        ("/api/v1/players/", {"club": "circolo-alfa", "display_name": "Nonna\x00Rosa"}),
        ("/api/v1/invitations/accept/", {"token": "abc\x00"}),
        ("/api/v1/clubs/", {"name": "Circolo", "currency": "EU\x00"}),
    ],
)
def test_a_nul_in_a_body_string_is_a_400_naming_the_field(admin, url, body):
    field = next(name for name, value in body.items() if "\x00" in value)
    assert list(errors_of(admin.post(url, body, format="json"))) == [field]


@pytest.mark.parametrize("path", ["clubs/a%00b/", "players/%00/", "clubs/a%00b/house-rules/sputo/"])
def test_a_nul_in_the_path_is_a_json_404(admin, path):
    assert errors_of(admin.get(f"/api/v1/{path}"), 404) == {"detail": "Non trovato."}


def test_a_url_the_api_does_not_know_is_a_json_404(admin):
    response = admin.get("/api/v1/no-such-thing/")
    assert errors_of(response, 404) == {"detail": "Non trovato."}


# --- Form and multipart bodies follow the JSON defaults ------------------------------------------


@pytest.mark.parametrize("encoding", ["form", "multipart"])
def test_a_form_club_without_is_public_is_public_like_in_json(admin, encoding):
    response = send(admin, "post", "/api/v1/clubs/", {"name": "Circolo Nuovo"}, encoding)
    assert errors_of(response, 201)["is_public"] is True
    assert Club.objects.get(slug="circolo-nuovo").is_public


@pytest.mark.parametrize("encoding", ["json", "form", "multipart"])
def test_a_blank_currency_is_refused_in_every_encoding(admin, encoding):
    response = send(admin, "post", "/api/v1/clubs/", {"name": "Circolo", "currency": ""}, encoding)
    assert list(errors_of(response)) == ["currency"]
    assert not Club.objects.filter(name="Circolo").exists()


@pytest.mark.parametrize("encoding", ["form", "multipart"])
def test_form_values_are_read_as_their_documented_kinds(admin, encoding):
    body = {"name": "Circolo", "is_public": "false", "point_value": "0.50", "currency": "CHF"}
    created = errors_of(send(admin, "post", "/api/v1/clubs/", body, encoding), 201)
    assert (created["is_public"], created["point_value"], created["currency"]) == (
        False,
        "0.50",
        "CHF",
    )
    refused = send(admin, "post", "/api/v1/clubs/", {**body, "is_public": "yes"}, encoding)
    assert list(errors_of(refused)) == ["is_public"]


def test_a_multipart_part_without_a_name_is_a_400(admin):
    body = "--B\r\nno headers--B--\r\n"
    response = admin.generic(
        "PATCH", "/api/v1/clubs/circolo-alfa/", body, content_type="multipart/form-data; boundary=B"
    )
    assert "detail" in errors_of(response)


def test_an_empty_or_null_form_value_is_null_where_a_field_may_be_null(admin):
    body = {"club": "circolo-alfa", "player": "null", "expires_at": "2999-01-01T10:00:00+01:00"}
    created = errors_of(admin.post("/api/v1/invitations/", body, format="multipart"), 201)
    assert created["player"] is None


# --- JSON values of the documented kind only ---------------------------------------------------


@pytest.mark.parametrize(
    "change, field",
    [
        ({"name": 5}, "name"),
        ({"is_public": "true"}, "is_public"),
        ({"is_public": 1}, "is_public"),
        ({"point_value": 0.5}, "point_value"),
        ({"point_value": "1e1"}, "point_value"),
        ({"point_value": ".5"}, "point_value"),
        ({"point_value": "-0.10"}, "point_value"),
        ({"point_value": " 1"}, "point_value"),
        ({"currency": "eur"}, "currency"),
        ({"currency": "ABC"}, "currency"),
        ({"currency": "EURO"}, "currency"),
    ],
)
def test_a_club_value_of_another_kind_is_a_400_naming_it(admin, change, field):
    response = admin.post("/api/v1/clubs/", {"name": "Circolo", **change}, format="json")
    assert list(errors_of(response)) == [field]


# --- Bounds on every number users type -----------------------------------------------------------


def test_an_invitation_may_not_be_used_more_than_a_thousand_times_on_a_page_either(people):
    with pytest.raises(ValidationError) as refused:
        services.create_invitation(club=people["club"], by=people["admin"], max_uses=1001)
    assert list(refused.value.message_dict) == ["max_uses"]
    assert not Invitation.objects.exists()


@pytest.mark.parametrize(
    "game, rules, field",
    [
        ("singapore", {"cap": 1_000_001}, "rules.cap"),
        ("singapore", {"cap": -1}, "rules.cap"),
        ("spazzumazz", {"idiot_min_games": 10_001}, "rules.idiot_min_games"),
        ("spazzumazz", {"idiot_min_games": 0}, "rules.idiot_min_games"),
    ],
)
def test_house_rule_numbers_out_of_bounds_are_a_400_naming_the_rule(admin, game, rules, field):
    url = f"/api/v1/clubs/circolo-alfa/house-rules/{game}/"
    assert list(errors_of(admin.put(url, {"rules": rules}, format="json"))) == [field]


def test_house_rules_are_json_only(admin):
    url = "/api/v1/clubs/circolo-alfa/house-rules/singapore/"
    assert admin.put(url, {"rules": "x"}, format="multipart").status_code == 415


@override_settings(AXES_FAILURE_LIMIT=3)
def test_too_many_failed_token_requests_are_a_json_429(people):
    api = APIClient()
    wrong = {"username": "ada", "password": "wrong-password"}
    for _ in range(2):
        assert api.post("/api/v1/auth/token/", wrong, format="json").status_code == 401
    response = api.post("/api/v1/auth/token/", wrong, format="json")
    assert response.status_code == 429
    right = {**wrong, "password": PASSWORD}
    assert api.post("/api/v1/auth/token/", right, format="json").status_code == 429
    assert response["Content-Type"] == "application/json"
    assert response.json()["detail"]
