from unittest import mock

import pytest

from circolo import health


@pytest.mark.django_db
def test_health_reports_database_cache_and_broker(client):
    response = client.get("/health/")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert set(body["checks"]) == {"database", "cache", "broker"}
    assert all(check["status"] == "ok" for check in body["checks"].values())


@pytest.mark.django_db
def test_health_is_503_and_names_what_is_down(client):
    def broken():
        raise ConnectionError("refused")

    with mock.patch.dict(health.CHECKS, {"cache": broken}):
        response = client.get("/health/")
    assert response.status_code == 503
    assert response.json()["checks"]["cache"] == {
        "status": "down",
        "detail": "ConnectionError: refused",
    }
