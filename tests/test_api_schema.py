"""The OpenAPI schema documents what the server does: the errors each operation can give,
with one error body, and the real constraints of what it reads. Every API view reads its
input strictly (``plumbing.strict``), so later endpoints cannot forget to."""

import json
import re

import pytest
from django.core.exceptions import ValidationError
from django.utils import translation
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient

from clubs import services
from clubs.api import house_rule_schema
from clubs.models import CURRENCY_CODES
from plumbing.strict import StrictInputMixin

METHODS = {"get", "post", "put", "patch", "delete"}


@pytest.fixture(scope="module")
def schema(django_db_setup, django_db_blocker):
    with django_db_blocker.unblock():
        response = APIClient().get("/api/schema/", {"format": "json"})
    assert response.status_code == 200
    return json.loads(response.content)


def operations(schema):
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            if method in METHODS:
                yield path, method, operation


def component(schema, ref_holder) -> dict:
    name = ref_holder["$ref"].rsplit("/", 1)[1]
    return schema["components"]["schemas"][name]


def test_every_operation_documents_a_400_with_the_one_error_body(schema):
    for path, method, operation in operations(schema):
        response = operation["responses"].get("400")
        assert response, (method, path)
        body = response["content"]["application/json"]["schema"]
        assert body == {"$ref": "#/components/schemas/Error"}, (method, path)


def test_every_error_response_uses_the_error_body(schema):
    for path, method, operation in operations(schema):
        for status, response in operation["responses"].items():
            if status.startswith(("4", "5")):
                content = response["content"]["application/json"]["schema"]
                assert content == {"$ref": "#/components/schemas/Error"}, (method, path, status)


def test_writes_that_need_a_login_document_401_and_403(schema):
    for path, method, operation in operations(schema):
        if method == "get" or path == "/api/v1/auth/token/":
            continue
        assert {"401", "403"} <= set(operation["responses"]), (method, path)


def test_detail_routes_and_paginated_lists_document_404(schema):
    for path, method, operation in operations(schema):
        paginated = any(p["name"] == "page" for p in operation.get("parameters", []))
        if "{" in path or paginated:
            assert "404" in operation["responses"], (method, path)


@pytest.mark.parametrize(
    "path, method",
    [
        ("/api/v1/players/", "post"),
        ("/api/v1/players/{id}/", "patch"),
        ("/api/v1/players/{id}/merge/", "post"),
        ("/api/v1/memberships/{id}/", "delete"),
        ("/api/v1/seasons/", "post"),
        ("/api/v1/seasons/{id}/", "delete"),
        ("/api/v1/invitations/accept/", "post"),
    ],
)
def test_operations_that_may_clash_document_409(schema, path, method):
    assert "409" in schema["paths"][path][method]["responses"]


def test_operations_that_cannot_clash_do_not_document_409(schema):
    assert "409" not in schema["paths"]["/api/v1/clubs/"]["get"]["responses"]
    assert "409" not in schema["paths"]["/api/v1/clubs/{slug}/"]["patch"]["responses"]


def test_the_club_fields_carry_their_real_constraints(schema):
    club = schema["components"]["schemas"]["ClubRequest"]["properties"]
    assert not club["point_value"]["pattern"].startswith("^-")
    currency = club["currency"]
    if "allOf" in currency:
        currency = component(schema, currency["allOf"][0])
    elif "$ref" in currency:
        currency = component(schema, currency)
    assert set(currency["enum"]) == set(CURRENCY_CODES)
    assert all(len(code) == 3 and code.isupper() for code in currency["enum"])
    assert club["name"]["pattern"].startswith("^[^\\x00]*[^")


def test_invitations_are_bounded_in_the_schema(schema):
    invitation = schema["components"]["schemas"]["InvitationRequest"]["properties"]
    assert (invitation["max_uses"]["minimum"], invitation["max_uses"]["maximum"]) == (1, 1000)


def test_free_text_query_parameters_are_documented_without_nul(schema):
    parameter = next(
        p for p in schema["paths"]["/api/v1/clubs/"]["get"]["parameters"] if p["name"] == "search"
    )
    assert parameter["schema"]["pattern"] == "^[^\\x00]*$"
    page = next(
        p for p in schema["paths"]["/api/v1/clubs/"]["get"]["parameters"] if p["name"] == "page"
    )
    assert page["schema"]["minimum"] == 1


# --- House rules: the schema and the rules engine agree at every bound ---------------------------


def _accepts(people, game, values) -> bool:
    try:
        services.update_house_rules(club=people["club"], game=game, values=values)
    except ValidationError:
        return False
    return True


@pytest.mark.parametrize("game", ["singapore", "sputo", "spazzumazz"])
def test_the_house_rule_schema_and_the_engine_agree(people, game):
    rules = house_rule_schema(game)
    assert rules["additionalProperties"] is False
    assert not _accepts(people, game, {"no_such_rule": 1})
    for name, prop in rules["properties"].items():
        if prop["type"] == "integer":
            low, high = prop["minimum"], prop["maximum"]
            assert _accepts(people, game, {name: low}) and _accepts(people, game, {name: high})
            assert not _accepts(people, game, {name: low - 1}), name
            assert not _accepts(people, game, {name: high + 1}), name
            assert _accepts(people, game, {name: None}) == bool(prop.get("nullable")), name
        elif prop["type"] == "boolean":
            assert _accepts(people, game, {name: True}) and _accepts(people, game, {name: False})
            assert not _accepts(people, game, {name: "true"})
        else:
            assert all(_accepts(people, game, {name: choice}) for choice in prop["enum"])
            assert not _accepts(people, game, {name: "not-a-choice"})
        assert _accepts(people, game, {name: prop["default"]})


# --- Every view reads its input strictly ---------------------------------------------------------


def test_every_api_input_serializer_reads_strictly():
    # A body described apart (house rules: the rules engine validates it) has no serializer.
    checked = 0
    for method, path, cls in _input_serializers():
        assert issubclass(cls, StrictInputMixin), (method, path, cls)
        checked += 1
    assert checked >= 10


def _input_serializers():
    """Every write operation's input serializer over the whole schema: (method, path, class)."""
    generator = SchemaGenerator()
    generator._initialise_endpoints()
    for path, _path_regex, method, callback in generator.endpoints:
        if method not in {"POST", "PUT", "PATCH"}:
            continue
        view = generator.create_view(callback, method)
        view.schema.method = method
        view.schema.path = path
        serializer = view.schema.get_request_serializer()
        if serializer is None or not hasattr(serializer, "fields"):
            continue
        cls = serializer if isinstance(serializer, type) else type(serializer)
        if getattr(cls, "_declared_fields", None) or hasattr(cls, "Meta"):
            yield method, path, cls


@pytest.mark.django_db
def test_every_api_write_refuses_an_unknown_field_by_name(rf):
    request = rf.post("/", content_type="application/json")
    checked = 0
    for method, path, cls in _input_serializers():
        serializer = cls(data={"bogus_field": 1}, context={"request": request})
        with translation.override("en"):
            assert not serializer.is_valid(), (method, path)
            assert serializer.errors.get("bogus_field") == ["Unknown field."], (method, path)
        checked += 1
    assert checked >= 10


@pytest.mark.django_db
def test_a_tournament_with_a_field_the_server_does_not_know_is_a_400(people):
    from rest_framework.test import APIClient

    api = APIClient()
    api.force_authenticate(people["admin"])
    body = {
        "club": people["club"].slug,
        "name": "Coppa",
        "starts_at": "2026-12-12T21:00:00+01:00",
        "format": "double_elimination",
        "bogus_field": 1,
    }
    response = api.post("/api/v1/tournaments/", body, format="json", HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 400
    assert response.json()["bogus_field"] == ["Unknown field."]


def test_a_forms_csrf_token_is_not_an_unknown_field(rf):
    from rest_framework import serializers

    from plumbing.strict import StrictSerializer

    class Reason(StrictSerializer):
        reason = serializers.CharField()

    form = rf.post("/", content_type="multipart/form-data")
    given = {"reason": "x", "csrfmiddlewaretoken": "t"}
    assert Reason(data=given, context={"request": form}).is_valid()
    as_json = rf.post("/", content_type="application/json")
    assert not Reason(data=given, context={"request": as_json}).is_valid()


@pytest.mark.django_db
def test_the_schema_served_again_in_the_same_process_has_every_component_it_names():
    # Found when the order of the tests changed: drf-spectacular's enum hook rewrote the
    # house rules' raw components in place, so the second schema named enum components
    # that it no longer made (and /api/schema/ broke after its first request).
    client = APIClient()
    for language in ("it", "en", "it"):
        response = client.get("/api/schema/", {"format": "json"}, HTTP_ACCEPT_LANGUAGE=language)
        text = response.content.decode()
        named = set(re.findall(r'"#/components/schemas/([^"]+)"', text))
        made = set(json.loads(text)["components"]["schemas"])
        assert named and named <= made, sorted(named - made)


def test_recording_a_hand_documents_the_admins_override(schema):
    operation = schema["paths"]["/api/v1/table-sessions/{id}/hands/"]["post"]
    body = component(schema, operation["requestBody"]["content"]["application/json"]["schema"])
    override = body["properties"]["override"]
    assert {"type": "string", "pattern": "^[^\\x00]*$", "maxLength": 1000} in override["oneOf"]
    # In the site's language: the admins' field (403 for others), what it lets past (409).
    assert "403" in override["description"] and "409" in override["description"]
    assert "override" not in body.get("required", [])
