"""The webhooks on the club's settings page: the admins add one (a refused address is a
form error naming the field), see its secret and its delivery log, pause, resume and
delete it (after a confirmation page)."""

import pytest

from clubs.webhooks import services
from clubs.webhooks.models import Delivery, Webhook

pytestmark = pytest.mark.django_db

SETTINGS = "/clubs/circolo-alfa/settings/"
ADD = "/clubs/circolo-alfa/settings/webhooks/"


@pytest.fixture
def admin(client, people, settings):
    settings.WEBHOOK_ALLOW_PRIVATE = True
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "en"
    client.force_login(people["admin"])
    return client


def test_an_admin_adds_a_webhook_and_sees_its_secret(admin):
    response = admin.post(
        ADD, {"url": "http://127.0.0.1:9/in", "events": ["result.confirmed", "match.ready"]}
    )
    webhook = Webhook.objects.get()
    assert response.status_code == 302 and response["Location"].endswith(f"#webhook-{webhook.pk}")
    assert webhook.events == ["result.confirmed", "match.ready"]
    html = admin.get(SETTINGS).content.decode()
    assert 'id="webhooks"' in html and "http://127.0.0.1:9/in" in html
    assert webhook.secret in html
    assert "A result is confirmed, A tournament match is ready to play" in html
    assert "Nothing sent yet." in html


@pytest.mark.parametrize(
    "body, field, message",
    [
        ({"url": "ftp://files.example.test/", "events": ["match.ready"]}, "url", "Only http://"),
        ({"url": "http://127.0.0.1:9/", "events": []}, "events", "Choose at least one event."),
    ],
)
def test_a_refused_webhook_is_a_form_error_and_nothing_is_added(
    admin, settings, body, field, message
):
    settings.WEBHOOK_ALLOW_PRIVATE = False
    response = admin.post(ADD, body)
    assert response.status_code == 200
    html = response.content.decode()
    assert message in html and "field-error" in html
    assert not Webhook.objects.exists()


def test_a_private_address_is_refused_in_the_pages_language(admin, settings):
    settings.WEBHOOK_ALLOW_PRIVATE = False
    response = admin.post(
        ADD, {"url": "http://10.0.0.8/", "events": ["match.ready"]}, HTTP_ACCEPT_LANGUAGE="it"
    )
    assert "è un indirizzo privato o locale" in response.content.decode()


def test_the_delivery_log_shows_each_deliverys_status_code_and_attempts(admin, people):
    webhook = services.create_webhook(
        club=people["club"], url="http://127.0.0.1:9/in", events=["payment.confirmed"]
    )
    services.emit(club_id=people["club"].pk, event="payment.confirmed", data={})
    Delivery.objects.update(response_code=502, attempts=3)
    html = admin.get(SETTINGS).content.decode()
    log = html[html.index(f'id="webhook-{webhook.pk}"') :]
    assert "payment.confirmed" in log and "HTTP 502" in log and "3 attempts" in log
    assert "waiting" in log and "next at" in log


def test_an_admin_pauses_resumes_and_deletes_a_webhook(admin, people):
    webhook = services.create_webhook(
        club=people["club"], url="http://127.0.0.1:9/in", events=["match.ready"]
    )
    base = f"{ADD}{webhook.pk}"
    assert admin.post(f"{base}/pause/").status_code == 302
    webhook.refresh_from_db()
    assert webhook.is_paused and webhook.paused_because == "admin"
    assert "paused by an admin" in admin.get(SETTINGS).content.decode()
    assert admin.post(f"{base}/resume/").status_code == 302
    webhook.refresh_from_db()
    assert not webhook.is_paused
    asked = admin.get(f"{base}/delete/")
    assert asked.status_code == 200 and "Delete the webhook sending to" in asked.content.decode()
    assert Webhook.objects.exists()
    assert admin.post(f"{base}/delete/").status_code == 302
    assert not Webhook.objects.exists()


def test_another_clubs_webhook_is_not_found_through_this_club(admin, people, make_user):
    from clubs import services as clubs_services

    other = clubs_services.create_club(name="Circolo Delta", founder=people["admin"])
    webhook = services.create_webhook(club=other, url="http://127.0.0.1:9/", events=["match.ready"])
    assert admin.post(f"{ADD}{webhook.pk}/pause/").status_code == 404
    assert not Webhook.objects.get().is_paused


def test_a_member_sees_no_webhooks_section_and_may_not_add_one(client, people):
    client.force_login(people["member"])
    assert client.get(SETTINGS).status_code == 403
    assert (
        client.post(ADD, {"url": "http://127.0.0.1:9/", "events": ["match.ready"]}).status_code
        == 403
    )
    assert not Webhook.objects.exists()
