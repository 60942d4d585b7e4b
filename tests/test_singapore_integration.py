"""Tables on a real PostgreSQL against a live server (the integration run): fifty posts of
the same hand at the same moment record it, and post it to the ledger, once. Elsewhere these
tests skip (under CI=true without PostgreSQL they fail, as the integration run itself does)."""

import http.client
import json
import threading
import time
import urllib.error
import urllib.request

import pytest
from django.db import connection

from clubs.tokens import issue_token
from ledger.models import Entry, Transaction
from matches.models import Hand, Outcome
from tests.singapore_helpers import CLOSING, SEVENTY, make_table, open_table

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

THREADS = 50


@pytest.fixture(autouse=True)
def _postgresql():
    if connection.vendor != "postgresql":
        pytest.skip("row locks and concurrent writers need PostgreSQL (the integration run)")


def post(url, token, body, key=None):
    """POST as a phone would: a connection refused at the door (the live server's queue of
    waiting connections is short) is tried again, like a second tap."""
    for attempt in range(20):
        try:
            return _post(url, token, body, key)
        except (ConnectionError, urllib.error.URLError, http.client.RemoteDisconnected):
            time.sleep(0.05 * (attempt + 1))
    return _post(url, token, body, key)


def _post(url, token, body, key=None):
    headers = {
        "Content-Type": "application/json",
        "Authorization": f"Token {token}",
        "Accept-Language": "en",
    }
    if key:
        headers["Idempotency-Key"] = key
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers=headers, method="POST"
    )
    try:
        with urllib.request.urlopen(request, timeout=120) as answer:
            return answer.status, json.loads(answer.read() or b"{}")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


def at_once(call, n=THREADS):
    barrier = threading.Barrier(n)
    results = [None] * n

    def run(i):
        try:
            barrier.wait(60)
            results[i] = call()
        except Exception as error:  # noqa: BLE001 - asserted on below
            results[i] = (type(error).__name__, str(error))

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(180)
    return results


def hand_body(world, dealer, opponent):
    p = world["players"]
    return {
        "dealer": p[dealer].pk,
        "opponent": p[opponent].pk,
        "winner": "dealer",
        "winner_cards": CLOSING,
        "loser_cards": SEVENTY,
        "dealer_quotas": 5,
        "covers": {str(p[opponent].pk): 2, str(p["Carla"].pk): 3},
        "side_bets": [],
    }


def test_fifty_posts_of_the_same_hand_at_once_record_and_post_it_once(make_user, live_server):
    world = make_table(make_user)
    session = open_table(world, "Anna Bruno Carla Dario".split(), first=("Anna", "Bruno"))
    token = issue_token(user=world["scorer"])[1]
    url = f"{live_server.url}/api/v1/table-sessions/{session.pk}/hands/"
    results = at_once(lambda: post(url, token, hand_body(world, "Anna", "Bruno")))
    assert all(isinstance(code, int) for code, _ in results), [
        r for r in results if not isinstance(r[0], int)
    ][:3]
    codes = sorted(code for code, _ in results)
    assert codes == [201] + [409] * (THREADS - 1), results[:3]
    assert all("Out of turn" in data["detail"] for code, data in results if code == 409)
    assert Hand.objects.count() == 1 and Outcome.objects.count() == 1
    assert Transaction.objects.count() == 1 and Entry.objects.count() == 3


def test_fifty_posts_with_one_idempotency_key_answer_the_same_hand(make_user, live_server):
    world = make_table(make_user)
    session = open_table(world, ["Anna", "Bruno", "Carla"], first=("Anna", "Bruno"))
    token = issue_token(user=world["scorer"])[1]
    url = f"{live_server.url}/api/v1/table-sessions/{session.pk}/hands/"
    body = hand_body(world, "Anna", "Bruno")
    results = at_once(lambda: post(url, token, body, key="phone-3:hand-17"))
    assert all(isinstance(code, int) for code, _ in results), [
        r for r in results if not isinstance(r[0], int)
    ][:3]
    codes = sorted(code for code, _ in results)
    assert codes == [200] * (THREADS - 1) + [201], results[:3]
    assert len({data["id"] for _code, data in results}) == 1
    assert Hand.objects.count() == 1 and Transaction.objects.count() == 1
