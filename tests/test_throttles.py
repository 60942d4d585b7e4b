"""What sends mail is rate-limited per client address and per recipient: password resets,
sign-ups, confirmation links, invitations (pages and API). Over a limit nothing is sent and
the answer is a 429 saying when to try again."""

import pytest
from django.test import override_settings
from rest_framework.test import APIClient

from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db

HERE, THERE = "81.2.69.142", "81.2.69.160"


@pytest.fixture(autouse=True)
def _english(client):
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "en"


@pytest.fixture
def sent(mailoutbox, django_capture_on_commit_callbacks):
    """The mails sent, the tasks queued on commit run as a real commit would run them."""

    def post(client, url, data, address=HERE):
        with django_capture_on_commit_callbacks(execute=True):
            return client.post(url, data, REMOTE_ADDR=address)

    return post


def reset(client, sent, email, address=HERE):
    return sent(client, "/accounts/password_reset/", {"email": email}, address)


def test_twenty_reset_requests_for_one_address_send_five_mails(client, people, sent, mailoutbox):
    answers = [reset(client, sent, "mia@example.org").status_code for _ in range(20)]
    assert answers == [302] * 5 + [429] * 15
    assert len(mailoutbox) == 5


def test_a_throttled_request_gets_a_page_that_says_when_to_try_again(client, people, sent):
    for _ in range(5):
        reset(client, sent, "mia@example.org")
    response = reset(client, sent, "MIA@example.org ")  # the same recipient
    assert response.status_code == 429
    assert 0 < int(response["Retry-After"]) <= 3600
    html = response.content.decode()
    assert "Too many requests" in html and "Try again in" in html
    italian = client.post(
        "/accounts/password_reset/",
        {"email": "mia@example.org"},
        REMOTE_ADDR=HERE,
        HTTP_ACCEPT_LANGUAGE="it",
    )
    assert "Troppe richieste" in italian.content.decode()


def test_the_limit_of_one_recipient_leaves_the_others_alone(client, people, sent, mailoutbox):
    for _ in range(6):
        reset(client, sent, "mia@example.org")
    assert reset(client, sent, "sam@example.org").status_code == 302
    assert mailoutbox[-1].to == ["sam@example.org"]


@override_settings(MAIL_RATE_PER_ADDRESS="3/h")
def test_one_address_asking_for_many_recipients_is_stopped(client, people, sent, mailoutbox):
    emails = ["mia@example.org", "sam@example.org", "ada@example.org", "otto@example.org"]
    assert [reset(client, sent, e).status_code for e in emails] == [302, 302, 302, 429]
    assert len(mailoutbox) == 3
    assert reset(client, sent, "otto@example.org", address=THERE).status_code == 302


@override_settings(MAIL_RATE_PER_RECIPIENT="2/h")
def test_sign_ups_for_one_address_are_limited(client, db, sent, mailoutbox):
    answers = [
        sent(
            client,
            "/accounts/signup/",
            {
                "username": f"lucia{n}",
                "email": "lucia@example.org",
                "password1": PASSWORD,
                "password2": PASSWORD,
            },
            address=f"81.2.69.{n}",
        ).status_code
        for n in range(3)
    ]
    assert answers == [302, 302, 429]
    assert len(mailoutbox) == 2


@override_settings(MAIL_RATE_PER_RECIPIENT="2/h")
def test_confirmation_links_asked_again_are_limited(client, db, sent):
    answers = [
        sent(client, "/accounts/confirm/", {"email": "lucia@example.org"}).status_code
        for _ in range(3)
    ]
    assert answers == [302, 302, 429]


@override_settings(MAIL_RATE_PER_RECIPIENT="2/h")
def test_invitation_mails_are_limited_and_invitations_without_mail_are_not(
    client, people, sent, mailoutbox
):
    client.force_login(people["admin"])
    url = "/clubs/circolo-alfa/invitations/"
    by_mail = {"email": "nuovo@example.org", "role": "member", "max_uses": 1}
    answers = [sent(client, url, by_mail).status_code for _ in range(3)]
    assert answers == [302, 302, 429]
    assert len(mailoutbox) == 2
    assert sent(client, url, {"role": "member", "max_uses": 1}).status_code == 302


@override_settings(MAIL_RATE_PER_RECIPIENT="2/h")
def test_the_api_limits_invitation_mails_with_a_json_429(people):
    api = APIClient()
    api.force_authenticate(people["admin"])
    body = {"club": "circolo-alfa", "email": "nuovo@example.org"}
    answers = [api.post("/api/v1/invitations/", body, format="json") for _ in range(3)]
    assert [a.status_code for a in answers] == [201, 201, 429]
    assert answers[2].json()["detail"]
    assert int(answers[2]["Retry-After"]) > 0
    # The page and the API count together.
    client = APIClient()
    client.force_login(people["admin"])
    page = client.post(
        "/clubs/circolo-alfa/invitations/", {"email": "nuovo@example.org", "role": "member"}
    )
    assert page.status_code == 429
