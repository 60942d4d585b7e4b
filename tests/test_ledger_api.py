"""The ledger's API on good input and bad: the contract's paths and fields, and a 400 naming
the field (or a 404, or a 409) for anything wrong, never a 500. Who may call what is
``test_permissions_ledger.py``'s business."""

import json
from decimal import Decimal

import pytest
from rest_framework.test import APIClient

from clubs import services as club_services
from ledger import services
from ledger.models import Payment, PaymentStatus, Transaction
from tests.answers import errors_of, ok
from tests.ledger_helpers import players_of

pytestmark = pytest.mark.django_db


def as_user(user) -> APIClient:
    client = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(user)
    return client


@pytest.fixture
def p(people):
    return players_of(people)


@pytest.fixture
def member(people):
    return as_user(people["member"])


@pytest.fixture
def ledger(people, p):
    club = people["club"]
    services.post_transaction(
        club=club,
        unit="EUR",
        key="h1",
        scope="session:4",
        entries={p["ada"]: "7.50", p["mia"]: "-7.50"},
    )
    services.post_transaction(
        club=club, unit="EUR", key="h2", entries={p["sam"]: "2.25", p["mia"]: "-2.25"}
    )
    services.post_transaction(
        club=club, unit="points", key="h3", entries={p["pino"]: 40, p["sam"]: -40}
    )
    return club


# --- Balances, debts, settle-up --------------------------------------------------------------


def test_balances_follow_the_contract_money_as_strings_points_as_integers(ledger, p, member):
    money = ok(member.get("/api/v1/ledger/balances/?club=circolo-alfa&unit=EUR"))
    assert money == [
        {"player": p["ada"].pk, "name": "ada", "balance": "7.50"},
        {"player": p["sam"].pk, "name": "sam", "balance": "2.25"},
        {"player": p["mia"].pk, "name": "mia", "balance": "-9.75"},
    ]
    points = ok(member.get("/api/v1/ledger/balances/?club=circolo-alfa&unit=points"))
    assert points == [
        {"player": p["pino"].pk, "name": "Zio Pino", "balance": 40},
        {"player": p["sam"].pk, "name": "sam", "balance": -40},
    ]
    session = ok(member.get("/api/v1/ledger/balances/?club=circolo-alfa&unit=EUR&session=4"))
    assert [row["balance"] for row in session] == ["7.50", "-7.50"]
    assert ok(member.get("/api/v1/ledger/balances/?club=circolo-alfa&unit=CHF")) == []


def test_the_settle_up_plan_and_the_debts_follow_the_contract(ledger, p, member):
    plan = ok(member.get("/api/v1/ledger/settle-up/?club=circolo-alfa&unit=EUR"))
    assert plan == {
        "payments": [
            {"from": p["mia"].pk, "to": p["ada"].pk, "amount": "7.50"},
            {"from": p["mia"].pk, "to": p["sam"].pk, "amount": "2.25"},
        ]
    }
    session = ok(member.get("/api/v1/ledger/settle-up/?club=circolo-alfa&unit=EUR&session=4"))
    assert session == {"payments": [{"from": p["mia"].pk, "to": p["ada"].pk, "amount": "7.50"}]}
    debts = ok(member.get("/api/v1/ledger/debts/?club=circolo-alfa&unit=points"))
    assert debts == {
        "debts": [
            {
                "from": p["sam"].pk,
                "to": p["pino"].pk,
                "amount": 40,
                "paid": 0,
                "hands": [
                    {
                        "source": "h3",
                        "kind": "posting",
                        "description": "h3",
                        "url": None,
                        "amount": 40,
                    }
                ],
            }
        ]
    }


@pytest.mark.parametrize(
    "query, field",
    [
        ("unit=EUR", "club"),
        ("club=circolo-alfa", "unit"),
        ("club=circolo-alfa&unit=dollars", "unit"),
        ("club=circolo-alfa&unit=eur", "unit"),
        ("club=circolo-alfa&unit=" + "X" * 5000, "unit"),
        ("club=circolo-alfa&unit=EUR&session=x", "session"),
        ("club=circolo-alfa&unit=EUR&session=0", "session"),
        ("club=circolo-alfa&unit=EUR&session=" + "9" * 40, "session"),
        ("club=" + "a" * 500 + "&unit=EUR", "club"),
        ("club=%00&unit=EUR", "club"),
    ],
)
@pytest.mark.parametrize("endpoint", ["balances", "settle-up", "debts"])
def test_a_bad_query_is_a_400_naming_the_parameter(ledger, member, endpoint, query, field):
    body = errors_of(member.get(f"/api/v1/ledger/{endpoint}/?{query}"))
    assert field in body


def test_an_unknown_club_is_a_404(ledger, member):
    ok(member.get("/api/v1/ledger/balances/?club=no-such-club&unit=EUR"), 404)


# --- Payments --------------------------------------------------------------------------------


def create(client, p, **changes):
    body = {"club": "circolo-alfa", "from": p["mia"].pk, "to": p["ada"].pk, "amount": "9.75"}
    body.update({"unit": "EUR", **changes})
    return client.post("/api/v1/ledger/payments/", body, format="json")


def test_a_payment_is_recorded_confirmed_by_the_payee_and_counts_once(people, ledger, p, member):
    created = ok(create(member, p), 201)
    assert created["from"] == p["mia"].pk and created["to"] == p["ada"].pk
    assert (created["amount"], created["unit"], created["status"]) == ("9.75", "EUR", "pending")
    assert created["recorded_by"] == "mia" and created["transaction"] is None
    admin = as_user(people["admin"])
    url = f"/api/v1/ledger/payments/{created['id']}/confirm/"
    confirmed = ok(admin.post(url))
    assert confirmed["status"] == "confirmed" and confirmed["decided_by"] == "ada"
    again = errors_of(admin.post(url), 409)
    assert again["detail"] == "This payment was already confirmed."
    balances = ok(member.get("/api/v1/ledger/balances/?club=circolo-alfa&unit=EUR"))
    assert {row["name"]: row["balance"] for row in balances} == {
        "ada": "-2.25",
        "sam": "2.25",
        "mia": "0.00",
    }
    assert Transaction.objects.filter(key=f"payment:{created['id']}").count() == 1
    listed = ok(member.get("/api/v1/ledger/payments/?club=circolo-alfa&status=confirmed"))
    assert [row["id"] for row in listed["results"]] == [created["id"]]


def test_json_whole_numbers_are_amounts_too_but_fractions_are_refused(ledger, p, member):
    assert ok(create(member, p, amount=12), 201)["amount"] == "12.00"
    assert ok(create(member, p, amount=3, unit="points"), 201)["amount"] == 3
    # A JSON fraction is a float, not exact: the schema asks for a string such as "12.50".
    assert "amount" in errors_of(create(member, p, amount=12.5))


def test_a_cancelled_payment_cannot_be_confirmed(people, ledger, p, member):
    created = ok(create(member, p), 201)
    assert (
        ok(member.post(f"/api/v1/ledger/payments/{created['id']}/cancel/"))["status"] == "cancelled"
    )
    admin = as_user(people["admin"])
    body = errors_of(admin.post(f"/api/v1/ledger/payments/{created['id']}/confirm/"), 409)
    assert body["detail"] == "This payment was cancelled."
    assert Payment.objects.get().status == PaymentStatus.CANCELLED


@pytest.mark.parametrize(
    "changes, field",
    [
        ({"amount": "abc"}, "amount"),
        ({"amount": "1.234"}, "amount"),
        ({"amount": "0"}, "amount"),
        ({"amount": "-5"}, "amount"),
        ({"amount": "NaN"}, "amount"),
        ({"amount": "1e400"}, "amount"),
        ({"amount": "x" * 10_000}, "amount"),
        ({"amount": True}, "amount"),
        ({"amount": [1]}, "amount"),
        ({"amount": 2.5, "unit": "points"}, "amount"),
        ({"unit": "dollars"}, "unit"),
        ({"unit": ""}, "unit"),
        ({"amount": "01.50"}, "amount"),
        ({"amount": " 1.50"}, "amount"),
        ({"amount": 0}, "amount"),
        ({"to": "mia"}, "to"),
        ({"from": "7"}, "from"),
        ({"from": None}, "from"),
        ({"club": ["circolo-alfa"]}, "club"),
    ],
)
def test_a_bad_payment_is_a_400_naming_the_field(ledger, p, member, changes, field):
    if changes.get("to") == "mia":
        changes = {"to": p["mia"].pk}
    body = errors_of(create(member, p, **changes))
    assert field in body, body
    assert not Payment.objects.exists()


@pytest.mark.parametrize(
    "changes, field",
    [
        ({"from": 99999999}, "from"),
        ({"from": 10**30}, "from"),
        ({"club": "no-such-club"}, "club"),
    ],
)
def test_a_payment_naming_what_does_not_exist_is_a_404_naming_the_field(
    ledger, p, member, changes, field
):
    body = errors_of(create(member, p, **changes), 404)
    assert list(body) == [field], body
    assert not Payment.objects.exists()


def test_a_player_of_another_club_is_a_404_as_the_payee(people, ledger, p, member, make_user):
    beta = club_services.create_club(name="Circolo Delta", founder=people["member"])
    stranger = club_services.add_guest(club=beta, display_name="Straniero")
    body = errors_of(create(member, p, to=stranger.pk), 404)
    assert body == {"to": ["No such player in this club."]}


def test_a_merged_guest_is_a_404_as_the_payer(people, ledger, p, member):
    club_services.merge_players(source=p["pino"], target=p["sam"])
    body = errors_of(create(member, p, **{"from": p["pino"].pk}), 404)
    assert list(body) == ["from"]


@pytest.mark.parametrize(
    "raw",
    ["[1, 2]", '"hello"', "42", "null", '{"club": ', "club=x", "[" * 5000 + "]" * 5000, "{}"],
)
def test_junk_bodies_are_a_400(ledger, member, raw):
    response = member.generic(
        "POST", "/api/v1/ledger/payments/", raw, content_type="application/json"
    )
    errors_of(response)


def test_deciding_a_payment_that_does_not_exist_is_a_404(member):
    ok(member.post("/api/v1/ledger/payments/999999/confirm/"), 404)
    ok(member.post("/api/v1/ledger/payments/99999999999999999999999/confirm/"), 404)


# --- Statements ------------------------------------------------------------------------------


def test_a_statement_lists_every_entry_with_the_running_balance(people, ledger, p, member):
    body = ok(member.get(f"/api/v1/ledger/statements/{p['mia'].pk}/?unit=EUR"))
    assert (body["player"], body["name"], body["club"], body["unit"]) == (
        p["mia"].pk,
        "mia",
        "circolo-alfa",
        "EUR",
    )
    assert body["balance"] == "-9.75"
    assert [(e["description"], e["amount"], e["balance"]) for e in body["entries"]] == [
        ("h1", "-7.50", "-7.50"),
        ("h2", "-2.25", "-9.75"),
    ]
    assert body["entries"][0]["kind"] == "posting"
    session = ok(member.get(f"/api/v1/ledger/statements/{p['mia'].pk}/?unit=EUR&session=4"))
    assert session["balance"] == "-7.50"
    points = ok(member.get(f"/api/v1/ledger/statements/{p['sam'].pk}/?unit=points"))
    assert points["balance"] == -40 and points["entries"][0]["amount"] == -40


@pytest.mark.parametrize(
    "query, field", [("", "unit"), ("?unit=nope", "unit"), ("?unit=EUR&session=-1", "session")]
)
def test_a_bad_statement_query_is_a_400(ledger, p, member, query, field):
    assert field in errors_of(member.get(f"/api/v1/ledger/statements/{p['mia'].pk}/{query}"))


@pytest.mark.parametrize("player", ["999999", "99999999999999999999999", "abc"])
def test_a_statement_of_nobody_is_a_404(member, player):
    assert member.get(f"/api/v1/ledger/statements/{player}/?unit=EUR").status_code == 404


def test_the_ledger_is_in_the_openapi_schema(db):
    schema = json.loads(APIClient().get("/api/schema/", {"format": "json"}).content)
    for path in [
        "/api/v1/ledger/balances/",
        "/api/v1/ledger/settle-up/",
        "/api/v1/ledger/debts/",
        "/api/v1/ledger/payments/",
        "/api/v1/ledger/payments/{id}/confirm/",
        "/api/v1/ledger/payments/{id}/cancel/",
        "/api/v1/ledger/statements/{id}/",
    ]:
        assert path in schema["paths"], path
    payment = schema["components"]["schemas"]["PaymentRequest"]["properties"]
    assert {"club", "from", "to", "amount", "unit"} <= set(payment)


def test_amounts_stay_exact(ledger, p, member):
    for _ in range(10):
        ok(create(member, p, amount="0.10"), 201)
    assert sum(
        Decimal(row["amount"]) for row in ok(member.get("/api/v1/ledger/payments/"))["results"]
    ) == Decimal("1.00")
