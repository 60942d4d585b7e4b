import pytest
from django.test import override_settings

from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db


def login(client, username, password):
    return client.post("/accounts/login/", {"username": username, "password": password})


def test_a_good_login_signs_in(client, make_user):
    make_user("lina")
    response = login(client, "lina", PASSWORD)
    assert response.status_code == 302
    assert client.get("/").wsgi_request.user.username == "lina"


def test_a_wrong_password_is_a_form_error(client, make_user):
    make_user("lina")
    response = login(client, "lina", "wrong-password")
    assert response.status_code == 200
    assert response.context["form"].errors


@override_settings(AXES_FAILURE_LIMIT=3)
def test_repeated_failures_lock_the_account_even_with_the_right_password(client, make_user):
    make_user("lina")
    for _ in range(3):
        login(client, "lina", "wrong-password")
    response = login(client, "lina", PASSWORD)
    assert response.status_code == 429
    assert b"Too many failed logins" in response.content or b"troppi" in response.content.lower()
    assert not client.get("/").wsgi_request.user.is_authenticated


@override_settings(AXES_FAILURE_LIMIT=3)
def test_a_lockout_of_one_account_leaves_others_alone(client, make_user):
    make_user("lina")
    make_user("remo")
    for _ in range(3):
        login(client, "lina", "wrong-password")
    assert login(client, "remo", PASSWORD).status_code == 302


def test_logout_is_a_post(client, make_user):
    user = make_user("lina")
    client.force_login(user)
    assert client.post("/accounts/logout/").status_code == 302
    assert not client.get("/").wsgi_request.user.is_authenticated


def test_password_reset_sends_a_link_that_sets_a_new_password(client, make_user, mailoutbox):
    make_user("lina")
    client.post("/accounts/password_reset/", {"email": "lina@example.org"})
    assert len(mailoutbox) == 1
    link = next(line for line in mailoutbox[0].body.splitlines() if "/reset/" in line).strip()
    path = link.split("testserver", 1)[1]
    form_page = client.get(path, follow=True)
    new = "another-Long-password-77"
    response = client.post(
        form_page.redirect_chain[-1][0], {"new_password1": new, "new_password2": new}
    )
    assert response.status_code == 302
    assert login(client, "lina", new).status_code == 302
