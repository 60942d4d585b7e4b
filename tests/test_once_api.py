"""A retry records once: the payments', the hands' and the Spazz'u'mazz
games' ``POST`` take an ``Idempotency-Key``, stored whole (at most 255 characters, longer is
a 400 naming the header) with a hash of the body: the same key and body answer the first
result (201, then 200 with the same object); the same key with another body is a 422 naming
the key, never the earlier result."""

import re

import pytest
from rest_framework.test import APIClient

from clubs import services as clubs
from ledger import services as ledger
from ledger.models import Payment
from matches.models import Hand, SpazzumazzGame
from tests.answers import errors_of, ok
from tests.ledger_helpers import players_of
from tests.singapore_helpers import CLOSING, SEVENTY, make_table, open_table

pytestmark = pytest.mark.django_db

HEADER = "Idempotency-Key"


def as_user(user) -> APIClient:
    client = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    client.force_authenticate(user)
    return client


# --- Payments --------------------------------------------------------------------------------


@pytest.fixture
def p(people):
    p = players_of(people)
    ledger.post_transaction(
        club=people["club"], unit="EUR", key="h1", entries={p["ada"]: "7.50", p["mia"]: "-7.50"}
    )
    return p


@pytest.fixture
def member(people):
    return as_user(people["member"])


def pay(client, p, key=None, **changes):
    body = {"club": "circolo-alfa", "from": p["mia"].pk, "to": p["ada"].pk, "amount": "7.50"}
    body.update({"unit": "EUR", **changes})
    headers = {} if key is None else {"HTTP_IDEMPOTENCY_KEY": key}
    return client.post("/api/v1/ledger/payments/", body, format="json", **headers)


def test_a_payment_sent_twice_with_its_key_is_recorded_once(member, p):
    first = ok(pay(member, p, "phone-1:pay-1"), 201)
    again = ok(pay(member, p, "phone-1:pay-1"), 200)
    assert again == first
    assert Payment.objects.count() == 1


def test_without_a_key_each_payment_is_a_payment(member, p):
    ok(pay(member, p), 201)
    ok(pay(member, p), 201)
    assert Payment.objects.count() == 2


def test_the_same_key_with_another_body_is_a_422_naming_the_key(member, p):
    first = ok(pay(member, p, "k"), 201)
    body = errors_of(pay(member, p, "k", amount="2.00"), 422)
    assert list(body) == [HEADER]
    assert "already used for another request" in body[HEADER][0]
    assert str(first["id"]) not in str(body)
    assert Payment.objects.count() == 1


def test_a_key_of_255_characters_is_kept_whole_and_256_is_a_400_naming_the_header(member, p):
    ok(pay(member, p, "k" * 255), 201)
    ok(pay(member, p, "k" * 255), 200)
    body = errors_of(pay(member, p, "k" * 256), 400)
    assert list(body) == [HEADER]
    assert Payment.objects.count() == 1


def test_keys_sharing_their_first_100_characters_are_two_keys(member, p):
    first = ok(pay(member, p, "x" * 100 + "-1"), 201)
    second = ok(pay(member, p, "x" * 100 + "-2", amount="2.00"), 201)
    assert first["id"] != second["id"] and second["amount"] == "2.00"


def test_a_key_is_its_senders_own(people, member, p):
    ok(pay(member, p, "same"), 201)
    ok(pay(as_user(people["admin"]), p, "same"), 201)  # someone else's "same"
    assert Payment.objects.count() == 2


def test_a_refused_payment_leaves_its_key_unused(member, p):
    errors_of(pay(member, p, "k", amount="0"), 400)
    ok(pay(member, p, "k"), 201)


# --- Hands -----------------------------------------------------------------------------------


@pytest.fixture
def hands(make_user):
    world = make_table(make_user, ("Anna", "Bruno"))
    session = open_table(world, ["Anna", "Bruno"], first=("Anna", "Bruno"))
    api = as_user(world["scorer"])
    p = world["players"]

    def post(key, quotas=1, dealer="Anna", opponent="Bruno"):
        body = {
            "dealer": p[dealer].pk,
            "opponent": p[opponent].pk,
            "winner": "dealer",
            "winner_cards": CLOSING,
            "loser_cards": SEVENTY,
            "dealer_quotas": quotas,
            "covers": {str(p[opponent].pk): 1},
            "side_bets": [],
        }
        return api.post(
            f"/api/v1/table-sessions/{session.pk}/hands/",
            body,
            format="json",
            HTTP_IDEMPOTENCY_KEY=key,
        )

    return post


def test_a_hand_whose_key_shares_its_first_100_characters_with_another_is_a_new_hand(hands):
    first = ok(hands("h" * 100 + "-1"), 201)
    # Today's rotation: Anna won and deals again against Bruno.
    second = ok(hands("h" * 100 + "-2", quotas=2), 201)
    assert second["id"] != first["id"]
    assert sorted(Hand.objects.values_list("client_key", flat=True)) == [
        "h" * 100 + "-1",
        "h" * 100 + "-2",
    ]


def test_a_hand_sent_again_with_its_key_and_another_body_is_a_422_not_the_earlier_hand(hands):
    first = ok(hands("hand-1"), 201)
    body = errors_of(hands("hand-1", quotas=2), 422)
    assert list(body) == [HEADER] and str(first["id"]) not in str(body)
    assert ok(hands("hand-1"), 200)["id"] == first["id"]
    assert Hand.objects.count() == 1


def test_a_hand_key_of_256_characters_is_a_400_naming_the_header(hands):
    assert list(errors_of(hands("k" * 256), 400)) == [HEADER]
    ok(hands("k" * 255), 201)
    assert Hand.objects.get().client_key == "k" * 255


# --- Spazz'u'mazz games ----------------------------------------------------------------------


def test_a_spazzumazz_game_sent_twice_with_its_key_is_recorded_once(people):
    club = people["club"]
    table = [
        club.players.get(user=people["member"]),
        clubs.add_guest(club=club, display_name="Bea"),
    ]
    order = [p.pk for p in table]
    scorer = as_user(people["scorer"])

    def post(key, finish_order):
        body = {"club": club.slug, "players": order, "finish_order": finish_order}
        return scorer.post(
            "/api/v1/spazzumazz-games/", body, format="json", HTTP_IDEMPOTENCY_KEY=key
        )

    first = ok(post("game-1", order), 201)
    assert ok(post("game-1", order), 200) == first
    body = errors_of(post("game-1", order[::-1]), 422)
    assert list(body) == [HEADER]
    assert list(errors_of(post("g" * 256, order), 400)) == [HEADER]
    assert SpazzumazzGame.objects.count() == 1


def test_the_keyed_writes_are_run_again_after_a_lost_connection(settings):
    paths = settings.IDEMPOTENT_WRITE_PATHS
    for path in ("/api/v1/ledger/payments/", "/api/v1/spazzumazz-games/"):
        assert any(re.match(pattern, path) for pattern in paths), path
