"""Signing up without an invitation: the account waits for its e-mail address to be
confirmed through a signed, expiring link mailed by a task after commit."""

import re
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.utils import timezone

from clubs import accounts, services, tasks
from clubs.models import EmailConfirmation
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db

User = get_user_model()


@pytest.fixture(autouse=True)
def _pages_in_english(client):
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "en"


@pytest.fixture
def sent(mailoutbox, django_capture_on_commit_callbacks):
    """Run the callbacks queued on commit (the mail tasks) as a real commit would."""

    def capture():
        return django_capture_on_commit_callbacks(execute=True)

    return capture


def sign_up(client, language="en", **extra):
    return client.post(
        "/accounts/signup/",
        {
            "username": "lucia",
            "email": "lucia@example.org",
            "first_name": "Lucia",
            "password1": PASSWORD,
            "password2": PASSWORD,
            **extra,
        },
        HTTP_ACCEPT_LANGUAGE=language,
    )


def link_in(message) -> str:
    return re.search(r"https?://\S+/accounts/confirm/\S+/", message.body).group(0)


def path_of(link: str) -> str:
    return "/" + link.split("/", 3)[3]


def test_signing_up_makes_an_inactive_account_and_mails_a_link(client, sent, mailoutbox):
    with sent():
        response = sign_up(client)
    assert response.status_code == 302
    assert response["Location"] == "/accounts/confirm/"
    user = User.objects.get(username="lucia")
    assert not user.is_active
    assert [m.to for m in mailoutbox] == [["lucia@example.org"]]
    assert "/accounts/confirm/" in mailoutbox[0].body
    page = client.get("/accounts/confirm/")
    assert "lucia@example.org" in page.content.decode()


def test_nothing_is_mailed_if_the_sign_up_is_rolled_back(client, mailoutbox):
    """The task is queued on commit: no commit, no mail (and no account)."""
    with pytest.raises(RuntimeError), services.transaction.atomic():
        accounts.sign_up(username="lucia", email="lucia@example.org", password=PASSWORD)
        raise RuntimeError("rolled back")
    assert mailoutbox == []
    assert not User.objects.filter(username="lucia").exists()


def test_the_link_is_mailed_in_the_language_of_the_sign_up(client, sent, mailoutbox):
    with sent():
        sign_up(client, language="it")
    assert "Conferma" in mailoutbox[0].subject


def test_an_unconfirmed_account_cannot_log_in_and_the_login_page_says_why(client, sent):
    with sent():
        sign_up(client)
    response = client.post("/accounts/login/", {"username": "lucia", "password": PASSWORD})
    assert response.status_code == 200
    assert response.context["form"].unconfirmed
    assert "not confirmed yet" in response.content.decode()
    assert not client.get("/").wsgi_request.user.is_authenticated


def test_a_wrong_password_on_an_unconfirmed_account_reveals_nothing(client, sent):
    with sent():
        sign_up(client)
    response = client.post("/accounts/login/", {"username": "lucia", "password": "wrong-one!"})
    assert not response.context["form"].unconfirmed
    assert "not confirmed" not in response.content.decode()


def test_the_link_asks_for_a_click_then_confirms_and_logs_in_the_browser_that_signed_up(
    client, sent, mailoutbox
):
    with sent():
        sign_up(client)
    path = path_of(link_in(mailoutbox[0]))
    page = client.get(path)
    assert page.status_code == 200
    assert not User.objects.get(username="lucia").is_active  # a mail scanner's GET does nothing
    response = client.post(path)
    assert response.status_code == 302
    assert User.objects.get(username="lucia").is_active
    assert client.get("/").wsgi_request.user.username == "lucia"


def test_confirmed_in_another_browser_the_account_logs_in_with_its_password(
    client, sent, mailoutbox
):
    with sent():
        sign_up(client)
    from django.test import Client

    other = Client(HTTP_ACCEPT_LANGUAGE="en")
    response = other.post(path_of(link_in(mailoutbox[0])))
    assert response["Location"] == "/accounts/login/"
    assert not other.get("/").wsgi_request.user.is_authenticated
    response = other.post("/accounts/login/", {"username": "lucia", "password": PASSWORD})
    assert response.status_code == 302


def test_following_the_link_twice_is_harmless(client, sent, mailoutbox):
    with sent():
        sign_up(client)
    path = path_of(link_in(mailoutbox[0]))
    client.post(path)
    client.post("/accounts/logout/")
    assert client.post(path).status_code == 302
    assert EmailConfirmation.objects.get().confirmed_at is not None


def test_an_expired_link_says_so_and_offers_a_new_one(client, sent, mailoutbox, monkeypatch):
    with sent():
        sign_up(client)
    monkeypatch.setattr(accounts, "CONFIRMATION_MAX_AGE", timedelta(seconds=-1))
    response = client.post(path_of(link_in(mailoutbox[0])))
    assert response.status_code == 200
    assert "has expired" in response.context["problem"]
    assert response.context["form"]["email"].value() == "lucia@example.org"
    assert not User.objects.get(username="lucia").is_active


@pytest.mark.parametrize("spoil", ["tampered", "garbage"])
def test_a_spoiled_link_is_not_valid(client, sent, mailoutbox, spoil):
    with sent():
        sign_up(client)
    path = path_of(link_in(mailoutbox[0]))
    bad = path[:-3] + "xx/" if spoil == "tampered" else "/accounts/confirm/garbage/"
    response = client.post(bad)
    assert "not valid" in response.context["problem"]
    assert not User.objects.get(username="lucia").is_active


def test_an_account_deactivated_after_confirming_cannot_reactivate_itself_with_the_link(
    client, sent, mailoutbox
):
    with sent():
        sign_up(client)
    path = path_of(link_in(mailoutbox[0]))
    client.post(path)
    User.objects.filter(username="lucia").update(is_active=False)
    client.post("/accounts/logout/")
    response = client.post(path)
    assert "not valid" in response.context["problem"]
    assert not User.objects.get(username="lucia").is_active


def test_a_new_link_can_be_asked_for_and_the_page_never_says_who_has_an_account(
    client, sent, mailoutbox
):
    with sent():
        sign_up(client)
    EmailConfirmation.objects.update(requested_at=timezone.now() - timedelta(minutes=5))
    with sent():
        known = client.post("/accounts/confirm/", {"email": "LUCIA@example.org"}, follow=True)
    assert len(mailoutbox) == 2
    with sent():
        unknown = client.post("/accounts/confirm/", {"email": "nobody@example.org"}, follow=True)
    assert len(mailoutbox) == 2
    said = [str(m).replace("LUCIA@example.org", "X") for m in known.context["messages"]]
    assert said == [str(m).replace("nobody@example.org", "X") for m in unknown.context["messages"]]
    # The newer link works (each link carries its own time).
    client.post(path_of(link_in(mailoutbox[1])))
    assert User.objects.get(username="lucia").is_active


def test_links_are_not_resent_more_than_once_a_minute(client, sent, mailoutbox):
    with sent():
        sign_up(client)
        client.post("/accounts/confirm/", {"email": "lucia@example.org"})
    assert len(mailoutbox) == 1


def test_the_mail_task_is_safe_to_run_twice(client, sent, mailoutbox):
    with sent():
        sign_up(client)
    confirmation = EmailConfirmation.objects.get()
    assert tasks.send_confirmation_email(confirmation.pk) == "nothing to send"
    assert len(mailoutbox) == 1


def test_a_signed_in_user_is_sent_home_from_the_sign_up_page(client, make_user):
    client.force_login(make_user("gia"))
    assert client.get("/accounts/signup/")["Location"] == "/"


def test_the_italian_username_help_has_its_sentences_apart(client):
    html = client.get("/accounts/signup/", HTTP_ACCEPT_LANGUAGE="it").content.decode()
    assert "meno.Solo" not in html
    assert "150 caratteri" in html


@pytest.mark.parametrize(
    "fields, field",
    [
        ({"email": ""}, "email"),
        ({"username": "spazio vuoto"}, "username"),
        ({"password": "1234567890"}, "password"),
    ],
)
def test_the_service_refuses_what_the_form_would_naming_the_field(db, fields, field):
    values = {"username": "lucia", "email": "lucia@example.org", "password": PASSWORD, **fields}
    with pytest.raises(ValidationError) as refused:
        accounts.sign_up(**values)
    assert field in refused.value.message_dict
    assert not User.objects.filter(username=values["username"]).exists()


def test_a_newcomer_founds_a_club_after_confirming(client, sent, mailoutbox):
    with sent():
        sign_up(client)
    client.post(path_of(link_in(mailoutbox[0])))
    response = client.post(
        "/clubs/new/",
        {"name": "Circolo Nuovo", "point_value": "0.10", "currency": "EUR", "language": "it"},
    )
    assert response.status_code == 302
    club = User.objects.get(username="lucia").memberships.get().club
    assert club.name == "Circolo Nuovo"
