from unittest import mock

import pytest

from circolo import health


@pytest.mark.django_db
def test_health_reports_database_cache_and_broker(client):
    response = client.get("/health/")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert set(body["checks"]) == {"database", "cache", "broker", "outbox", "ledger"}
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


def test_two_cache_checks_at_once_do_not_read_each_others_value():
    """A second check that runs between the first's write and its read (two probes at
    once, under load) must not make the first call a healthy cache down."""
    from django.core.cache import cache

    real_set = cache.set
    inner = []

    def set_then_another_check(key, value, *args, **kwargs):
        real_set(key, value, *args, **kwargs)
        if not inner:
            inner.append(key)
            assert health._cache()  # another probe, between the first's set and get

    with mock.patch.object(cache, "set", set_then_another_check):
        assert health._cache()
    assert len(inner) == 1


@pytest.mark.django_db
def test_housekeeping_drops_expired_sessions_and_old_login_logs_and_is_safe_twice():
    from datetime import timedelta

    from axes.models import AccessLog
    from django.contrib.sessions.models import Session
    from django.utils import timezone

    from circolo.tasks import housekeeping

    now = timezone.now()
    Session.objects.create(session_key="old", session_data="", expire_date=now - timedelta(days=1))
    Session.objects.create(session_key="new", session_data="", expire_date=now + timedelta(days=1))
    old = AccessLog.objects.create(username="x", ip_address="127.0.0.1", user_agent="t")
    AccessLog.objects.filter(pk=old.pk).update(attempt_time=now - timedelta(days=40))
    AccessLog.objects.create(username="y", ip_address="127.0.0.1", user_agent="t")

    assert housekeeping.delay().get() == {
        "sessions": 1,
        "api_tokens": 0,
        "login_logs": 1,
        "outbox_messages": 0,
        "writes_sent_once": 0,
        "webhook_deliveries": 0,
    }
    assert housekeeping.delay().get() == {
        "sessions": 0,
        "api_tokens": 0,
        "login_logs": 0,
        "outbox_messages": 0,
        "writes_sent_once": 0,
        "webhook_deliveries": 0,
    }
    assert list(Session.objects.values_list("session_key", flat=True)) == ["new"]
    assert list(AccessLog.objects.values_list("username", flat=True)) == ["y"]
