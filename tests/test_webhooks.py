"""Webhooks: registered by a club's admins, each event POSTed to a real receiving server
with its signature, retried with growing waits, the URL paused (and its admins told) after
a day of failures, and never sent to the server's own or private addresses (SSRF) unless
``WEBHOOK_ALLOW_PRIVATE``. Time moves with the ``at=`` clock, never with sleeps."""

import json
import socket
from datetime import timedelta

import pytest
from django.core import mail
from django.utils import timezone
from rest_framework.test import APIClient

from clubs.webhooks import addresses, delivery, services
from clubs.webhooks.models import Delivery, DeliveryStatus, Webhook
from tests import webhook_receiver

pytestmark = pytest.mark.django_db

DATA = {"payment": {"id": 7, "amount": "12.50", "unit": "EUR"}}


@pytest.fixture
def receiver():
    server = webhook_receiver.start()
    yield server
    server.server.shutdown()
    server.server.server_close()


@pytest.fixture
def private_ok(settings):
    settings.WEBHOOK_ALLOW_PRIVATE = True


def api_as(user):
    client = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    if user is not None:
        client.force_authenticate(user)
    return client


@pytest.fixture
def hook(people, receiver, private_ok):
    return services.create_webhook(
        club=people["club"], url=receiver.url, events=["payment.confirmed"], by=people["admin"]
    )


def emit(people, at=None, event="payment.confirmed", data=DATA):
    return services.emit(club_id=people["club"].pk, event=event, data=data, at=at)


# --- Registering -----------------------------------------------------------------------------


def test_an_admin_registers_a_webhook_and_is_given_its_secret(people, receiver, private_ok):
    response = api_as(people["admin"]).post(
        "/api/v1/webhooks/",
        {
            "club": "circolo-alfa",
            "url": receiver.url,
            "events": ["result.confirmed", "match.ready", "result.confirmed"],
        },
        format="json",
    )
    assert response.status_code == 201, response.data
    assert len(response.data["secret"]) >= 40
    assert response.data["events"] == ["result.confirmed", "match.ready"]
    stored = Webhook.objects.get(pk=response.data["id"])
    assert stored.secret == response.data["secret"] and stored.created_by == people["admin"]


@pytest.mark.parametrize(
    "body, field",
    [
        ({"events": []}, "events"),
        ({"events": ["result.lost"]}, "events[0]"),
        ({"url": ""}, "url"),
        ({"url": "not a url"}, "url"),
    ],
)
def test_a_bad_registration_is_a_400_naming_the_field(people, receiver, private_ok, body, field):
    full = {"club": "circolo-alfa", "url": receiver.url, "events": ["match.ready"], **body}
    response = api_as(people["admin"]).post("/api/v1/webhooks/", full, format="json")
    assert response.status_code == 400 and field in response.data, response.data
    assert not Webhook.objects.exists()


# --- SSRF ------------------------------------------------------------------------------------


def resolving(monkeypatch, mapping):
    """Host names resolving as ``mapping`` says (the real resolver for the others)."""
    real = socket.getaddrinfo

    def getaddrinfo(host, port, *args, **kwargs):
        if host in mapping:
            family = socket.AF_INET6 if ":" in mapping[host] else socket.AF_INET
            return [(family, socket.SOCK_STREAM, 6, "", (mapping[host], port))]
        return real(host, port, *args, **kwargs)

    monkeypatch.setattr(addresses.socket, "getaddrinfo", getaddrinfo)


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8000/hook",
        "http://10.1.2.3/hook",
        "http://192.168.1.20/hook",
        "http://172.16.5.4/hook",
        "http://[::1]/hook",
        "http://[::ffff:127.0.0.1]/hook",
        "http://169.254.169.254/latest/meta-data/",
        "http://224.0.0.1/hook",
        "http://0.0.0.0/hook",
        "http://100.64.0.1/hook",
        "http://localhost/hook",
        "http://loopback.example.test/hook",
        "ftp://ftp.example.test/hook",
        "file:///etc/passwd",
        "gopher://example.test/",
    ],
)
def test_a_url_to_a_private_or_local_address_or_another_scheme_is_refused(people, monkeypatch, url):
    resolving(monkeypatch, {"loopback.example.test": "127.0.0.1"})
    response = api_as(people["admin"]).post(
        "/api/v1/webhooks/",
        {"club": "circolo-alfa", "url": url, "events": ["match.ready"]},
        format="json",
    )
    assert response.status_code == 400, response.data
    assert list(response.data) == ["url"]
    assert not Webhook.objects.exists()


def test_a_public_address_is_accepted(people, monkeypatch):
    resolving(monkeypatch, {"hooks.example.test": "93.184.216.34"})
    webhook = services.create_webhook(
        club=people["club"], url="https://hooks.example.test/in", events=["match.ready"]
    )
    assert webhook.url == "https://hooks.example.test/in"


def test_the_setting_lets_a_club_use_its_own_network(people, settings):
    settings.WEBHOOK_ALLOW_PRIVATE = True
    webhook = services.create_webhook(
        club=people["club"], url="http://127.0.0.1:9/in", events=["match.ready"]
    )
    assert webhook.pk


def test_a_name_that_resolves_to_loopback_at_delivery_is_refused_then(
    people, receiver, monkeypatch
):
    """DNS rebinding: public when registered, loopback when delivered. The delivery checks
    the address again and connects to that one: nothing reaches the local server."""
    port = receiver.server.server_address[1]
    resolving(monkeypatch, {"rebind.example.test": "93.184.216.34"})
    services.create_webhook(
        club=people["club"],
        url=f"http://rebind.example.test:{port}/in",
        events=["payment.confirmed"],
    )
    resolving(monkeypatch, {"rebind.example.test": "127.0.0.1"})
    emit(people)
    assert delivery.send_due() == {"will retry": 1}
    sent = Delivery.objects.get()
    assert sent.status == DeliveryStatus.PENDING and sent.response_code is None
    assert sent.error.startswith("refused:") and "private or local" in sent.error
    assert receiver.received == []


# --- Delivering ------------------------------------------------------------------------------


def test_an_event_is_posted_to_the_url_signed_with_the_webhooks_secret(
    people, hook, receiver, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        assert emit(people) == 1
    (got,) = receiver.received
    assert got.path == "/hooks/circolo"
    assert got.headers["Content-Type"] == "application/json"
    assert got.headers["X-Circolo-Event"] == "payment.confirmed"
    assert got.signed_with(hook.secret)
    assert not got.signed_with("another secret")
    body = json.loads(got.body)
    sent = Delivery.objects.get()
    assert body == {
        "id": str(sent.uid),
        "event": "payment.confirmed",
        "created": body["created"],
        "club": "circolo-alfa",
        "data": DATA,
    }
    assert got.headers["X-Circolo-Delivery"] == str(sent.uid)
    assert sent.status == DeliveryStatus.DELIVERED and sent.response_code == 200
    assert sent.attempts == 1 and sent.next_attempt_at is None


def test_nothing_is_sent_when_the_write_rolls_back(people, hook, receiver):
    from django.db import transaction

    with pytest.raises(RuntimeError), transaction.atomic():
        emit(people)
        raise RuntimeError("the write failed")
    assert not Delivery.objects.exists() and receiver.received == []


def test_only_the_events_a_webhook_asked_for_are_sent(people, hook):
    assert emit(people, event="match.ready", data={}) == 0
    assert not Delivery.objects.exists()


def test_a_failed_delivery_is_retried_with_growing_waits_until_it_is_delivered(
    people, hook, receiver
):
    receiver.answers = [500, 503, 200]
    t0 = timezone.now()
    emit(people, at=t0)
    assert delivery.send_due(at=t0) == {"will retry": 1}
    first = Delivery.objects.get()
    assert first.response_code == 500 and first.next_attempt_at == t0 + timedelta(seconds=30)
    assert delivery.send_due(at=t0 + timedelta(seconds=29)) == {}  # not due yet
    t1 = t0 + timedelta(seconds=30)
    assert delivery.send_due(at=t1) == {"will retry": 1}
    second = Delivery.objects.get()
    assert second.response_code == 503 and second.next_attempt_at == t1 + timedelta(seconds=60)
    assert Webhook.objects.get().failing_since == t0
    t2 = t1 + timedelta(seconds=60)
    assert delivery.send_due(at=t2) == {"delivered": 1}
    done = Delivery.objects.get()
    assert (done.status, done.attempts, done.response_code) == (DeliveryStatus.DELIVERED, 3, 200)
    assert done.delivered_at == t2 and done.next_attempt_at is None
    assert Webhook.objects.get().failing_since is None
    bodies = {r.body for r in receiver.received}
    assert len(receiver.received) == 3 and len(bodies) == 1  # the same body, the same signature
    assert all(r.signed_with(hook.secret) for r in receiver.received)


def test_the_waits_double_up_to_an_hour():
    waits = [delivery.wait_after(n).total_seconds() for n in range(1, 10)]
    assert waits == [30, 60, 120, 240, 480, 960, 1920, 3600, 3600]


def test_an_attempt_claims_its_delivery_so_two_runs_send_it_once(people, hook, receiver):
    t0 = timezone.now()
    emit(people, at=t0)
    (pk,) = Delivery.objects.values_list("pk", flat=True)
    assert delivery.attempt(pk, at=t0) == "delivered"
    assert delivery.attempt(pk, at=t0) == "not due"
    assert len(receiver.received) == 1


def test_a_redirect_is_not_followed(people, hook, receiver):
    receiver.answers = [302]
    emit(people)
    delivery.send_due()
    sent = Delivery.objects.get()
    assert sent.status == DeliveryStatus.PENDING and sent.response_code == 302
    assert len(receiver.received) == 1


def test_a_url_failing_for_a_day_is_paused_and_its_admins_told(
    people, hook, receiver, django_capture_on_commit_callbacks
):
    receiver.answers = [500]
    t0 = timezone.now()
    emit(people, at=t0)
    at = t0
    while at < t0 + timedelta(days=1):
        assert delivery.send_due(at=at) == {"will retry": 1}
        at = Delivery.objects.get().next_attempt_at
    attempts = Delivery.objects.get().attempts
    assert 20 < attempts < 40  # every 30 s at first, then every hour
    emit(people, at=at)  # a second event, waiting behind the first
    with django_capture_on_commit_callbacks(execute=True):
        results = delivery.send_due(at=at)
    assert results.get("failed; paused") == 1
    webhook = Webhook.objects.get()
    assert webhook.paused_at == at and webhook.paused_because == "failing"
    assert set(Delivery.objects.values_list("status", flat=True)) == {DeliveryStatus.FAILED}
    (told,) = mail.outbox
    assert told.to == [people["admin"].email]
    assert "Circolo Alfa" in told.subject and hook.url in told.body
    assert "/clubs/circolo-alfa/settings/#webhooks" in told.body
    # Paused: no event is written for it, nothing is sent, until an admin resumes it.
    assert emit(people) == 0 and delivery.send_due(at=at + timedelta(days=1)) == {}
    services.resume_webhook(webhook=webhook)
    receiver.answers = [200]
    assert emit(people) == 1 and delivery.send_due() == {"delivered": 1}


def test_the_mail_to_the_admins_is_sent_once_if_its_task_runs_twice(people, hook):
    from clubs.webhooks.notices import tell_admins_webhook_paused

    Webhook.objects.filter(pk=hook.pk).update(paused_at=timezone.now(), paused_because="failing")
    assert tell_admins_webhook_paused(hook.pk) == "told 1"
    assert tell_admins_webhook_paused(hook.pk) == "nothing to send"
    assert len(mail.outbox) == 1


def test_a_delivery_that_failed_for_a_day_is_given_up_but_a_url_that_worked_meanwhile_stays(
    people, hook, receiver
):
    receiver.answers = [500]
    t0 = timezone.now()
    emit(people, at=t0)
    delivery.send_due(at=t0)
    Webhook.objects.update(failing_since=t0 + timedelta(hours=12))  # delivered something since
    assert delivery.send_due(at=t0 + timedelta(days=1)) == {"failed": 1}
    assert Webhook.objects.get().paused_at is None


def test_an_admin_pauses_and_resumes_a_webhook(people, hook):
    admin = api_as(people["admin"])
    paused = admin.post(f"/api/v1/webhooks/{hook.pk}/pause/")
    assert paused.status_code == 200 and paused.data["paused_because"] == "admin"
    assert emit(people) == 0
    resumed = admin.post(f"/api/v1/webhooks/{hook.pk}/resume/")
    assert resumed.status_code == 200 and resumed.data["paused_at"] is None
    assert emit(people) == 1
    log = admin.get(f"/api/v1/webhooks/{hook.pk}/deliveries/")
    assert log.status_code == 200 and [d["event"] for d in log.data] == ["payment.confirmed"]
    assert log.data[0]["status"] == "pending"


# --- Who may ---------------------------------------------------------------------------------


def test_only_the_clubs_admins_see_and_manage_its_webhooks(people, hook, receiver):
    path = f"/api/v1/webhooks/{hook.pk}/"
    assert api_as(None).get("/api/v1/webhooks/").status_code == 401
    for role in ("member", "scorer", "outsider"):
        client = api_as(people[role])
        assert client.get("/api/v1/webhooks/").data["results"] == []
        assert client.get(path).status_code == 404
        assert client.delete(path).status_code == 404
        assert client.post(f"{path}pause/").status_code == 404
    body = {"club": "circolo-alfa", "url": receiver.url, "events": ["match.ready"]}
    scorer = api_as(people["scorer"])
    assert scorer.post("/api/v1/webhooks/", body, format="json").status_code == 403
    private = {**body, "club": "circolo-beta"}  # the outsider's private club
    refused = api_as(people["admin"]).post("/api/v1/webhooks/", private, format="json")
    assert refused.status_code == 404 and list(refused.data) == ["club"]
    assert Webhook.objects.count() == 1
    admin = api_as(people["admin"])
    assert [w["id"] for w in admin.get("/api/v1/webhooks/").data["results"]] == [hook.pk]
    assert admin.delete(path).status_code == 204
    assert not Webhook.objects.exists()


# --- The sweep of retries ----------------------------------------------------------------------


def test_beats_sweep_queues_the_retries_that_are_due(
    people, hook, receiver, django_capture_on_commit_callbacks
):
    from clubs.webhooks.tasks import send_due_webhooks

    receiver.answers = [500, 200]
    t0 = timezone.now() - timedelta(minutes=5)
    emit(people, at=t0)
    delivery.send_due(at=t0)  # failed: due again 30 s later, long past now
    with django_capture_on_commit_callbacks(execute=True):
        assert send_due_webhooks() == 1
    assert Delivery.objects.get().status == DeliveryStatus.DELIVERED
    assert len(receiver.received) == 2


def test_in_process_the_next_event_sends_the_retries_that_are_due(
    people, hook, receiver, monkeypatch, django_capture_on_commit_callbacks
):
    """The zero-setup default has no beat: sending an event sweeps now and then."""
    from clubs.webhooks import tasks

    receiver.answers = [500, 200]
    t0 = timezone.now() - timedelta(minutes=5)
    emit(people, at=t0)
    delivery.send_due(at=t0)
    monkeypatch.setattr(tasks, "_next_in_process_sweep", 0.0)
    with django_capture_on_commit_callbacks(execute=True):
        emit(people)
    assert set(Delivery.objects.values_list("status", flat=True)) == {DeliveryStatus.DELIVERED}
    assert len(receiver.received) == 3


def test_the_log_keeps_a_month_of_deliveries_done_and_every_one_waiting(people, hook):
    t0 = timezone.now() - timedelta(days=40)
    emit(people, at=t0)
    emit(people, at=t0)
    emit(people)
    Delivery.objects.filter(pk=Delivery.objects.order_by("pk").first().pk).update(
        status=DeliveryStatus.FAILED, next_attempt_at=None
    )
    assert delivery.purge(older_than=timedelta(days=30)) == 1
    assert delivery.purge(older_than=timedelta(days=30)) == 0
    assert Delivery.objects.count() == 2


def test_the_webhooks_api_reads_json_only(people):
    form = api_as(people["admin"]).post(
        "/api/v1/webhooks/", {"club": "circolo-alfa", "url": "x", "events": "match.ready"}
    )
    assert form.status_code == 415
