import pytest
from django.test import RequestFactory, override_settings

from circolo.settings import client_address_settings
from clubs.lockout import client_address
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


# --- Per user and address, per address; behind trusted proxies -------------------------------

CLUB_WIFI, ELSEWHERE = "81.2.69.142", "81.2.69.160"


def login_from(client, address, username, password, **headers):
    return client.post(
        "/accounts/login/",
        {"username": username, "password": password},
        REMOTE_ADDR=address,
        **headers,
    )


@override_settings(AXES_FAILURE_LIMIT=3)
def test_a_stranger_elsewhere_cannot_lock_a_user_out(client, make_user):
    make_user("lina")
    for _ in range(10):
        login_from(client, ELSEWHERE, "lina", "wrong-password")
    assert login_from(client, ELSEWHERE, "lina", PASSWORD).status_code == 429
    assert login_from(client, CLUB_WIFI, "lina", PASSWORD).status_code == 302


@override_settings(AXES_ADDRESS_FAILURE_LIMIT=15)
def test_one_password_tried_on_seventeen_user_names_from_one_address_is_stopped(client, make_user):
    make_user("lina")
    answers = [
        login_from(client, ELSEWHERE, f"user{n}", "Password1!").status_code for n in range(17)
    ]
    assert answers[:14] == [200] * 14  # a form error each
    assert answers[14:] == [429, 429, 429]  # the 15th failure from the address locks it
    assert login_from(client, ELSEWHERE, "lina", PASSWORD).status_code == 429
    assert login_from(client, CLUB_WIFI, "lina", PASSWORD).status_code == 302


@override_settings(AXES_ADDRESS_FAILURE_LIMIT=4)
def test_a_good_login_forgives_only_its_own_users_failures(client, make_user):
    make_user("lina")
    make_user("remo")
    for name in ["anna", "bice", "lina"]:
        login_from(client, ELSEWHERE, name, "wrong-password")
    assert login_from(client, ELSEWHERE, "lina", PASSWORD).status_code == 302
    client.post("/accounts/logout/")
    login_from(client, ELSEWHERE, "carla", "wrong-password")  # 3 failures from here
    login_from(client, ELSEWHERE, "dario", "wrong-password")  # 4: the address is out
    assert login_from(client, ELSEWHERE, "remo", PASSWORD).status_code == 429


@override_settings(AXES_FAILURE_LIMIT=3, **client_address_settings(1))
def test_behind_a_proxy_each_client_is_its_own_address_whatever_it_writes(client, make_user):
    make_user("lina")
    for n in range(3):  # the attacker writes a new address of its own each time
        login_from(
            client,
            "127.0.0.1",
            "lina",
            "wrong-password",
            HTTP_X_FORWARDED_FOR=f"10.9.9.{n}, {ELSEWHERE}",
        )
    via_proxy = {"HTTP_X_FORWARDED_FOR": ELSEWHERE}
    assert login_from(client, "127.0.0.1", "lina", PASSWORD, **via_proxy).status_code == 429
    via_proxy = {"HTTP_X_FORWARDED_FOR": CLUB_WIFI}
    assert login_from(client, "127.0.0.1", "lina", PASSWORD, **via_proxy).status_code == 302


@pytest.mark.parametrize(
    "proxies, address", [(0, "10.0.0.1"), (1, "10.0.0.9"), (2, "81.2.69.142"), (5, "10.0.0.1")]
)
def test_trusted_proxies_picks_the_nth_address_from_the_right(proxies, address):
    request = RequestFactory().get(
        "/", REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR="6.6.6.6, 81.2.69.142, 10.0.0.9"
    )
    with override_settings(**client_address_settings(proxies)):
        assert client_address(request) == address
