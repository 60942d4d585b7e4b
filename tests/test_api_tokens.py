"""API tokens: one per device, each with an expiry; a new password, a password reset and "log
out everywhere" on the profile page revoke them."""

import re
from datetime import timedelta

import pytest
from django.test import override_settings
from django.utils import timezone
from rest_framework.test import APIClient

from circolo.tasks import housekeeping
from clubs.models import ApiToken
from clubs.tokens import issue_token
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db

NEW_PASSWORD = "another-Long-password-77"


def token_for(username: str, **extra) -> dict:
    response = APIClient().post(
        "/api/v1/auth/token/", {"username": username, "password": PASSWORD, **extra}
    )
    assert response.status_code == 200, response.content
    return response.json()


def status_with(token: str) -> int:
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return api.get("/api/v1/clubs/?mine=true").status_code


@pytest.fixture
def mia(client, people):
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "en"
    client.force_login(people["member"])
    return client


def test_a_token_comes_with_its_expiry_thirty_days_on_by_default(people):
    body = token_for("mia")
    expiry = timezone.datetime.fromisoformat(body["expiry"])
    assert abs(expiry - (timezone.now() + timedelta(days=30))) < timedelta(minutes=1)
    assert status_with(body["token"]) == 200


def test_the_token_lifetime_is_a_setting(people, settings):
    settings.REST_KNOX = {**settings.REST_KNOX, "TOKEN_TTL": timedelta(days=2)}
    expiry = timezone.datetime.fromisoformat(token_for("mia")["expiry"])
    assert abs(expiry - (timezone.now() + timedelta(days=2))) < timedelta(minutes=1)


def test_an_expired_token_is_a_401(people):
    token = token_for("mia")["token"]
    ApiToken.objects.update(expiry=timezone.now() - timedelta(seconds=1))
    assert status_with(token) == 401


def test_after_a_password_change_the_old_token_is_a_401(mia, people):
    token = token_for("mia")["token"]
    response = mia.post(
        "/accounts/password_change/",
        {"old_password": PASSWORD, "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )
    assert response.status_code == 302
    assert status_with(token) == 401
    assert not ApiToken.objects.exists()  # refused once, deleted
    fresh = APIClient().post("/api/v1/auth/token/", {"username": "mia", "password": NEW_PASSWORD})
    assert status_with(fresh.json()["token"]) == 200


def test_after_a_password_reset_the_old_token_is_a_401(client, people, mailoutbox):
    token = token_for("mia")["token"]
    client.post("/accounts/password_reset/", {"email": "mia@example.org"})
    link = re.search(r"https?://\S+/reset/\S+/", mailoutbox[0].body).group(0)
    form_page = client.get("/" + link.split("/", 3)[3], follow=True)
    response = client.post(
        form_page.redirect_chain[-1][0],
        {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )
    assert response.status_code == 302
    assert status_with(token) == 401


def test_a_password_set_anywhere_else_revokes_the_tokens_too(people):
    token = token_for("mia")["token"]
    people["member"].set_password(NEW_PASSWORD)
    people["member"].save()  # the admin, `manage.py changepassword`
    assert status_with(token) == 401


def test_the_profile_lists_each_device_with_its_last_use(mia, people):
    token_for("mia", device="Telefono di Mia")
    phone = issue_token(user=people["member"], device="Mozilla/5.0 (iPhone)")[1]
    issue_token(user=people["admin"], device="Someone else's laptop")
    assert status_with(phone) == 200
    html = mia.get("/accounts/profile/").content.decode()
    assert "Telefono di Mia" in html and "Mozilla/5.0 (iPhone)" in html
    assert "Someone else" not in html
    assert "never used" in html and "last used 0\xa0minutes ago" in html


def test_a_device_without_a_name_is_its_user_agent(people):
    APIClient().post(
        "/api/v1/auth/token/",
        {"username": "mia", "password": PASSWORD},
        HTTP_USER_AGENT="CircoloScript/1.0",
    )
    assert ApiToken.objects.get().device == "CircoloScript/1.0"


def test_logging_out_one_device_leaves_the_others(mia, people):
    phone, laptop = (issue_token(user=people["member"], device=d) for d in ("phone", "laptop"))
    response = mia.post("/accounts/profile/tokens/", {"token": phone[0].digest})
    assert response.status_code == 302
    assert (status_with(phone[1]), status_with(laptop[1])) == (401, 200)


def test_log_out_everywhere_revokes_every_token_of_the_user_only(mia, people):
    mine = [issue_token(user=people["member"], device=d)[1] for d in ("phone", "laptop")]
    theirs = issue_token(user=people["admin"], device="phone")[1]
    response = mia.post("/accounts/profile/tokens/", follow=True)
    assert "2 apps logged out" in response.content.decode()
    assert [status_with(t) for t in mine] == [401, 401]
    assert status_with(theirs) == 200
    assert "No app is logged in" in mia.get("/accounts/profile/").content.decode()


def test_no_one_revokes_another_persons_token(mia, people):
    theirs, key = issue_token(user=people["admin"], device="phone")
    mia.post("/accounts/profile/tokens/", {"token": theirs.digest})
    assert status_with(key) == 200


@pytest.mark.parametrize("digest", ["x", "a\x00b", "0" * 129])
def test_revoking_a_token_that_names_none_revokes_nothing(mia, people, digest):
    mine = issue_token(user=people["member"], device="phone")[1]
    assert mia.post("/accounts/profile/tokens/", {"token": digest}).status_code == 302
    assert status_with(mine) == 200


@pytest.mark.parametrize("token", ["x" * 64, "abc\x00def" * 8, "é" * 20, "0" * 500])
def test_a_malformed_token_is_a_401(people, token):
    assert status_with(token) == 401


@override_settings(CELERY_TASK_ALWAYS_EAGER=True)
def test_housekeeping_deletes_expired_tokens_and_those_of_an_old_password(people):
    issue_token(user=people["member"], device="expired")
    ApiToken.objects.update(expiry=timezone.now() - timedelta(days=1))
    issue_token(user=people["admin"], device="old password")
    people["admin"].set_password(NEW_PASSWORD)
    people["admin"].save()
    live = issue_token(user=people["scorer"], device="live")[0]
    assert housekeeping.delay().get()["api_tokens"] == 2
    assert list(ApiToken.objects.all()) == [live]
