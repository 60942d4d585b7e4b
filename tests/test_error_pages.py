"""403, 404 and 500 in the site's layout, in the visitor's language, with a way back."""

import pytest
from django.test import Client, RequestFactory, override_settings
from django.utils import translation
from django.views.defaults import server_error

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "language, words", [("it", "Pagina non trovata"), ("en", "Page not found")]
)
def test_a_404_is_a_page_of_the_site_in_the_visitors_language(client, language, words):
    response = client.get("/no/such/page/", HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 404
    html = response.content.decode()
    assert words in html
    assert f'<html lang="{language}">' in html
    assert 'class="topbar"' in html
    assert 'href="/"' in html and 'href="/clubs/"' in html
    assert "Not Found" not in html


@override_settings(DEBUG=False)
def test_a_private_club_is_the_same_404_to_an_outsider(client, people):
    client.force_login(people["outsider"])
    private = people["other"].__class__.objects.create(
        name="Segreto", slug="segreto", is_public=False
    )
    response = client.get(f"/clubs/{private.slug}/", HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 404
    assert "Page not found" in response.content.decode()
    assert "Segreto" not in response.content.decode()


def test_a_403_says_which_role_is_needed_and_offers_a_way_back(client, people):
    client.force_login(people["member"])
    response = client.get("/clubs/circolo-alfa/settings/", HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 403
    html = response.content.decode()
    assert "This needs the Admin role in Circolo Alfa." in html
    assert 'href="/"' in html


def test_a_500_is_a_page_of_the_site_in_the_visitors_language():
    request = RequestFactory().get("/")
    with translation.override("it"):
        response = server_error(request)
    assert response.status_code == 500
    html = response.content.decode()
    assert "Qualcosa è andato storto" in html
    assert 'href="/"' in html
    assert 'class="topbar"' in html


def test_a_form_sent_without_its_csrf_token_gets_the_sites_page():
    client = Client(enforce_csrf_checks=True)
    response = client.post("/accounts/login/", {"username": "x"}, HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 403
    assert "The form has expired" in response.content.decode()
