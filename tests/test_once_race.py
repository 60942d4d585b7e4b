"""Two requests racing with one ``Idempotency-Key`` (a phone's retry while the first is still
running): the second waits on the first one's key and answers what it recorded; one
payment. The integration run (PostgreSQL: SQLite runs one write at a time anyway)."""

import threading

import pytest
from django.db import connection, connections
from rest_framework.test import APIClient

from ledger import services as ledger
from ledger.models import Payment
from tests.ledger_helpers import players_of

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def test_eight_payments_racing_with_one_key_record_one(people):
    if connection.vendor != "postgresql":
        pytest.skip("a race needs PostgreSQL (the integration run)")
    p = players_of(people)
    ledger.post_transaction(
        club=people["club"], unit="EUR", key="h1", entries={p["ada"]: "7.50", p["mia"]: "-7.50"}
    )
    body = {"club": "circolo-alfa", "from": p["mia"].pk, "to": p["ada"].pk, "amount": "7.50"}
    body["unit"] = "EUR"
    start = threading.Barrier(8)
    answers = []

    def pay():
        api = APIClient(HTTP_ACCEPT_LANGUAGE="en")
        api.force_authenticate(people["member"])
        start.wait()
        try:
            response = api.post(
                "/api/v1/ledger/payments/", body, format="json", HTTP_IDEMPOTENCY_KEY="race"
            )
            answers.append((response.status_code, response.json()["id"]))
        finally:
            connections.close_all()

    threads = [threading.Thread(target=pay) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(status for status, _id in answers) == [200] * 7 + [201]
    assert {payment for _status, payment in answers} == {Payment.objects.get().pk}
