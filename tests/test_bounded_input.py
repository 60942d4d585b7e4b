"""Bounded input everywhere: bodies have a size limit (uploads go to disk), a NUL in a page's
address is a 400 or 404, a night outside the calendar a 404, every API error (5xx too) is
the JSON error body, and the schema says what the responses hold."""

import tracemalloc

import pytest
from django.test import Client, override_settings
from django.test.client import BOUNDARY, MULTIPART_CONTENT, encode_multipart
from django.urls import path
from rest_framework.test import APIClient
from rest_framework.views import APIView

from circolo.urls import urlpatterns as site_urls
from tests.singapore_helpers import make_table

pytestmark = pytest.mark.django_db

MB = 1024 * 1024


@pytest.fixture
def world(make_user):
    return make_table(make_user)


@pytest.fixture
def scorer(world):
    api = APIClient()
    api.force_authenticate(world["scorer"])
    api.credentials(HTTP_ACCEPT_LANGUAGE="en")
    return api


def import_body(world, size: int) -> bytes:
    lines = b'{"game": "singapore"}\n' * (size // 22 + 1)
    from django.core.files.uploadedfile import SimpleUploadedFile

    return encode_multipart(
        BOUNDARY,
        {"club": world["club"].slug, "file": SimpleUploadedFile("big.jsonl", lines[:size])},
    )


def post_import(api, body: bytes):
    return api.generic(
        "POST", "/api/v1/table-sessions/import/", body, content_type=MULTIPART_CONTENT
    )


# --- Body sizes -----------------------------------------------------------------------------------


@override_settings(UPLOAD_MAX_BYTES=MB)
def test_a_multipart_body_over_the_upload_limit_is_a_413_naming_it(scorer, world):
    response = post_import(scorer, import_body(world, 2 * MB))
    assert response.status_code == 413
    assert response.json() == {"detail": "The request is too large: at most 1.0\xa0MB."}


@override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=1000)
def test_any_other_body_over_its_limit_is_a_413_too(scorer, world):
    response = scorer.post("/api/v1/clubs/", {"name": "x" * 2000}, format="json")
    assert response.status_code == 413
    assert "at most 1000\xa0bytes" in response.json()["detail"]


@override_settings(UPLOAD_MAX_BYTES=MB)
def test_a_page_answers_a_body_too_large_with_a_page_naming_the_limit(client):
    body = encode_multipart(BOUNDARY, {"username": "x" * (2 * MB)})
    response = client.generic(
        "POST", "/accounts/login/", body, content_type=MULTIPART_CONTENT, HTTP_ACCEPT_LANGUAGE="en"
    )
    assert response.status_code == 413
    assert "The request is too large: at most 1.0\xa0MB." in response.content.decode()


@override_settings(SINGAPORE_IMPORT_MAX_BYTES=2 * MB)
def test_the_import_has_its_own_limit_and_streams_the_upload_to_disk(scorer, world):
    body = import_body(world, 8 * MB)
    tracemalloc.start()
    try:
        response = post_import(scorer, body)
        _now, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert response.status_code == 400
    assert response.json() == {"file": ["At most 2.0\xa0MB an upload."]}
    # The test client copies the body once (8 MB); the server keeps no other copy of it.
    assert peak < 1.5 * len(body), f"{peak / MB:.1f} MB held for an {len(body) / MB:.1f} MB body"


def test_form_fields_too_long_for_memory_are_a_400_naming_the_limit(scorer, world, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    body = encode_multipart(BOUNDARY, {"club": world["club"].slug, "table": "x" * 5000})
    response = post_import(scorer, body)
    assert response.status_code == 400
    assert "at most 1000\xa0bytes" in response.json()["detail"]


# --- NUL characters and impossible dates ----------------------------------------------------------


@pytest.mark.parametrize(
    "url, status",
    [
        ("/clubs/?q=%00", 400),
        ("/clubs/?q%00=1", 400),
        ("/clubs/circolo-singapore/?tab=%00", 400),
        ("/accounts/login/?next=%00", 400),
        ("/invite/%00/", 404),
        ("/clubs/%00/", 404),
        ("/accounts/confirm/%00/", 404),
    ],
)
def test_a_nul_in_a_pages_address_is_a_400_or_a_404(client, world, url, status):
    response = client.get(url, HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == status
    assert 'class="topbar"' in response.content.decode()  # the site's page


def test_a_nul_in_a_form_is_a_form_error(client, world):
    response = client.post("/accounts/login/", {"username": "a\x00", "password": "x"})
    assert response.status_code == 200
    assert response.context["form"].errors


@pytest.mark.parametrize("day", ["9999-12-31", "0001-01-01", "1899-12-31"])
def test_a_night_outside_the_calendar_is_a_404(client, world, day):
    client.force_login(world["admin"])
    assert client.get(f"/clubs/circolo-singapore/nights/{day}/").status_code == 404


def test_a_night_inside_it_is_a_page(client, world):
    client.force_login(world["admin"])
    assert client.get("/clubs/circolo-singapore/nights/2025-06-13/").status_code == 200


# --- Server errors under /api/ are the JSON error body --------------------------------------------


class Broken(APIView):
    authentication_classes: list = []
    permission_classes: list = []

    def get(self, request):
        raise RuntimeError("a bug")


def broken_page(request):
    raise RuntimeError("a bug")


urlpatterns = [
    path("api/v1/broken/", Broken.as_view()),
    path("broken/", broken_page),
    *site_urls,
]
handler500 = "circolo.views.server_error"


@override_settings(ROOT_URLCONF=__name__, DEBUG=False)
def test_an_exception_in_an_api_view_is_a_json_500():
    response = Client(raise_request_exception=False).get(
        "/api/v1/broken/", HTTP_ACCEPT_LANGUAGE="en"
    )
    assert response.status_code == 500
    assert response["Content-Type"] == "application/json"
    assert response.json() == {"detail": "Server error: the request could not be completed."}


@override_settings(ROOT_URLCONF=__name__, DEBUG=False)
def test_an_exception_in_a_page_is_the_sites_500_page():
    response = Client(raise_request_exception=False).get("/broken/", HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 500
    assert 'class="topbar"' in response.content.decode()


# --- The schema says what the responses hold ------------------------------------------------------


@pytest.fixture(scope="module")
def schema():
    from drf_spectacular.generators import SchemaGenerator

    return SchemaGenerator().get_schema(request=None, public=True)


@pytest.fixture(scope="module")
def components(schema):
    return schema["components"]["schemas"]


def test_every_write_documents_the_413_of_a_body_too_large(schema):
    writes = [
        (method, path, operation["responses"])
        for path, methods in schema["paths"].items()
        for method, operation in methods.items()
        if method in {"post", "put", "patch"}
    ]
    assert writes and all("413" in responses for _m, _p, responses in writes)


def test_a_payments_decider_and_recorder_may_be_null(components, people):
    fields = components["Payment"]["properties"]
    assert fields["decided_by"]["nullable"] and fields["recorded_by"]["nullable"]
    api = APIClient()
    api.force_authenticate(people["member"])
    body = {"club": "circolo-alfa", "to": people["guest"].pk, "unit": "EUR", "amount": "1"}
    body["from"] = people["club"].players.get(user=people["member"]).pk
    created = api.post("/api/v1/ledger/payments/", body, format="json")
    assert created.status_code == 201, created.data
    assert created.json()["decided_by"] is None


def test_a_hands_history_names_its_reporter_by_user_id(components, scorer, world):
    field = components["HandHistory"]["properties"]["reported_by"]
    assert (field["type"], field["nullable"]) == ("integer", True)
    from tests.test_singapore_api import hand_body, open_table, post_hand

    anna, bruno = world["players"]["Anna"].pk, world["players"]["Bruno"].pk
    table = open_table(scorer, world, first_dealer=anna, first_opponent=bruno)
    hand = post_hand(scorer, table, hand_body(world, "Anna", "Bruno"))
    assert hand.status_code == 201, hand.data
    assert hand.json()["history"][0]["reported_by"] == world["scorer"].pk
