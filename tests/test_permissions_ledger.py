"""Who may open the ledger's pages and call the ledger's endpoints: every route, every role,
public and private. The policy and the helpers: ``tests/permission_matrix.py``.

The club's ledger is for its members: an outsider of a public club gets 403, of a private
one 404. A member records only the payments they made (a scorer or an admin records
anyone's); the payee or an admin confirms; either person, whoever recorded it or an admin
cancels. In each club the member under test (mia) is owed a pending payment from the guest,
recorded by the scorer (sam)."""

import pytest
from rest_framework.test import APIClient

from clubs.models import Membership, Role
from ledger import services
from ledger.models import Payment, PaymentStatus, Transaction
from tests.permission_matrix import (
    LOGIN,
    MINE,
    POST_ONLY,
    A,
    call,
    check_status,
    client_for,
    expand,
    page,
    same_page,
)

MEMBER, SCORER, ADMIN = Role.MEMBER, Role.SCORER, Role.ADMIN


def extend_world(world):
    for c in world["clubs"].values():
        mine, bea = c.player_of(world["member"]), c.player_of(world["bea"])
        services.post_transaction(
            club=c.club, unit="EUR", key=f"perm:{c.slug}", entries={mine: 5, bea: -5}
        )
        payment = services.record_payment(
            club=c.club, payer=c.guest, payee=mine, amount=2, unit="EUR", by=world["scorer"]
        )
        c.extra.update(payment=payment, mine=mine, bea_p=bea, ada_p=c.player_of(world["admin"]))


def members(*, public: bool, ok: int = 200):
    """Read by the club's members (API)."""
    return (A, 403 if public else 404, ok, ok, ok)


def ledger_body(payer: str):
    return lambda c: {
        "payer": c.extra[payer].pk,
        "payee": c.extra["ada_p"].pk,
        "amount": "1,50",
        "unit": "EUR",
    }


def api_payment(payer: str):
    return lambda c: {
        "club": c.slug,
        "from": c.extra[payer].pk,
        "to": c.extra["ada_p"].pk,
        "amount": "1.50",
        "unit": "EUR",
    }


PAGES = [
    (
        "ledger",
        "get",
        "/clubs/{slug}/ledger/",
        None,
        page(MEMBER, public=True),
        page(MEMBER, public=False),
    ),
    (
        "ledger-points",
        "get",
        "/clubs/{slug}/ledger/?unit=points&session=3",
        None,
        page(MEMBER, public=True),
        page(MEMBER, public=False),
    ),
    (
        "record-own-payment",
        "post",
        "/clubs/{slug}/ledger/payments/",
        ledger_body("mine"),
        page(MEMBER, public=True, ok=302),
        page(MEMBER, public=False, ok=302),
    ),
    (
        "record-someone-elses-payment",
        "post",
        "/clubs/{slug}/ledger/payments/",
        ledger_body("bea_p"),
        page(SCORER, public=True, ok=302),
        page(SCORER, public=False, ok=302),
    ),
    ("record-payment-get", "get", "/clubs/{slug}/ledger/payments/", None, POST_ONLY, POST_ONLY),
    # mia is the payee: she confirms; the scorer is neither payee nor admin.
    (
        "confirm-payment",
        "post",
        "/clubs/{slug}/ledger/payments/{payment}/confirm/",
        lambda c: {},
        (LOGIN, 403, 302, 403, 302),
        (LOGIN, 404, 302, 403, 302),
    ),
    (
        "confirm-payment-get",
        "get",
        "/clubs/{slug}/ledger/payments/{payment}/confirm/",
        None,
        POST_ONLY,
        POST_ONLY,
    ),
    # mia is the payee, sam recorded it: both may cancel, and the admin.
    (
        "cancel-payment",
        "post",
        "/clubs/{slug}/ledger/payments/{payment}/cancel/",
        lambda c: {},
        page(MEMBER, public=True, ok=302),
        page(MEMBER, public=False, ok=302),
    ),
    (
        "cancel-payment-get",
        "get",
        "/clubs/{slug}/ledger/payments/{payment}/cancel/",
        None,
        POST_ONLY,
        POST_ONLY,
    ),
    (
        "statement",
        "get",
        "/clubs/{slug}/ledger/players/{bea_p}/?unit=EUR",
        None,
        page(MEMBER, public=True),
        page(MEMBER, public=False),
    ),
    (
        "statement-csv",
        "get",
        "/clubs/{slug}/ledger/players/{mine}/statement.csv?unit=EUR",
        None,
        page(MEMBER, public=True),
        page(MEMBER, public=False),
    ),
]

QUERY = "?club={slug}&unit=EUR"

API = [
    (
        "balances",
        "get",
        "/api/v1/ledger/balances/" + QUERY,
        None,
        members(public=True),
        members(public=False),
    ),
    (
        "settle-up",
        "get",
        "/api/v1/ledger/settle-up/" + QUERY + "&session=1",
        None,
        members(public=True),
        members(public=False),
    ),
    (
        "debts",
        "get",
        "/api/v1/ledger/debts/" + QUERY,
        None,
        members(public=True),
        members(public=False),
    ),
    ("payments-list", "get", "/api/v1/ledger/payments/", None, MINE, None),
    (
        "payments-retrieve",
        "get",
        "/api/v1/ledger/payments/{payment}/",
        None,
        (A, 404, 200, 200, 200),
        (A, 404, 200, 200, 200),
    ),
    (
        "payments-create-own",
        "post",
        "/api/v1/ledger/payments/",
        api_payment("mine"),
        (A, 403, 201, 201, 201),
        (A, 404, 201, 201, 201),  # a club the caller cannot see is a club that is not there
    ),
    (
        "payments-create-someone-elses",
        "post",
        "/api/v1/ledger/payments/",
        api_payment("bea_p"),
        (A, 403, 403, 201, 201),
        (A, 404, 403, 201, 201),
    ),
    (
        "payments-confirm",
        "post",
        "/api/v1/ledger/payments/{payment}/confirm/",
        None,
        (A, 404, 200, 403, 200),
        (A, 404, 200, 403, 200),
    ),
    (
        "payments-cancel",
        "post",
        "/api/v1/ledger/payments/{payment}/cancel/",
        None,
        (A, 404, 200, 200, 200),
        (A, 404, 200, 200, 200),
    ),
    (
        "payments-update",
        "patch",
        "/api/v1/ledger/payments/{payment}/",
        lambda c: {"amount": "100"},
        (A, 405, 405, 405, 405),
        None,
    ),
    (
        "payments-delete",
        "delete",
        "/api/v1/ledger/payments/{payment}/",
        None,
        (A, 405, 405, 405, 405),
        None,
    ),
    (
        "statement",
        "get",
        "/api/v1/ledger/statements/{bea_p}/?unit=EUR",
        None,
        members(public=True),
        members(public=False),
    ),
]

ROUTES = PAGES + API


@pytest.mark.parametrize("kind, method, path, body, role, expected", expand(PAGES))
def test_each_ledger_page_answers_each_role_as_the_rules_say(
    world, kind, method, path, body, role, expected
):
    check_status(call(world, kind, method, path, body, role, api=False), expected)


@pytest.mark.parametrize("kind, method, path, body, role, expected", expand(API))
def test_each_ledger_endpoint_answers_each_role_as_the_rules_say(
    world, kind, method, path, body, role, expected
):
    check_status(call(world, kind, method, path, body, role, api=True), expected)


@pytest.mark.parametrize("role", ["anonymous", "outsider", "scorer"])
def test_a_refused_ledger_action_changes_nothing(world, role):
    c = world["clubs"]["private"]
    payment = c.extra["payment"]
    before = (Transaction.objects.count(), Payment.objects.count())
    for client, api in [
        (client_for(world, role), False),
        (client_for(world, role, APIClient), True),
    ]:
        prefix = "/api/v1/ledger/payments/" if api else f"/clubs/{c.slug}/ledger/payments/"
        client.post(f"{prefix}{payment.pk}/confirm/")
        if role != "scorer":  # the scorer recorded it and may cancel it
            client.post(f"{prefix}{payment.pk}/cancel/")
    payment.refresh_from_db()
    assert payment.status == PaymentStatus.PENDING
    assert (Transaction.objects.count(), Payment.objects.count()) == before


def test_a_person_always_sees_their_own_statement(world):
    """Even after leaving the club: their player keeps their history (and their account)."""
    c = world["clubs"]["private"]
    mine = c.extra["mine"]
    api = client_for(world, "member", APIClient)
    assert api.get(f"/api/v1/ledger/statements/{mine.pk}/?unit=EUR").status_code == 200
    Membership.objects.filter(club=c.club, user=world["member"]).delete()  # left, player kept
    assert api.get(f"/api/v1/ledger/statements/{mine.pk}/?unit=EUR").status_code == 200
    other = c.extra["bea_p"]
    assert api.get(f"/api/v1/ledger/statements/{other.pk}/?unit=EUR").status_code == 404


def test_a_private_clubs_ledger_looks_like_a_club_that_does_not_exist(world):
    api = client_for(world, "outsider", APIClient)
    for private, missing in [
        (
            "/api/v1/ledger/balances/?club=circolo-gamma&unit=EUR",
            "/api/v1/ledger/balances/?club=no-such-club&unit=EUR",
        ),
        (
            f"/api/v1/ledger/statements/{world['clubs']['private'].extra['mine'].pk}/?unit=EUR",
            "/api/v1/ledger/statements/999999/?unit=EUR",
        ),
        (
            f"/api/v1/ledger/payments/{world['clubs']['private'].extra['payment'].pk}/",
            "/api/v1/ledger/payments/999999/",
        ),
    ]:
        a, b = api.get(private), api.get(missing)
        assert a.status_code == b.status_code == 404, private
        assert a.json() == b.json()
    pages = client_for(world, "outsider")
    a = pages.get("/clubs/circolo-gamma/ledger/")
    b = pages.get("/clubs/no-such-club/ledger/")
    assert a.status_code == b.status_code == 404
    assert same_page(a, "circolo-gamma", b, "no-such-club")
