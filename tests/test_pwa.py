"""The site installs on a phone: its manifest, its service worker, its offline page."""

import json

import pytest
from django.contrib.staticfiles import finders
from django.test import Client

pytestmark = pytest.mark.django_db


def test_the_manifest_names_the_app_in_the_visitors_language_with_its_icons():
    english = Client(headers={"accept-language": "en"}).get("/manifest.webmanifest")
    italian = Client(headers={"accept-language": "it"}).get("/manifest.webmanifest")
    assert english.status_code == italian.status_code == 200
    assert english["Content-Type"] == "application/manifest+json"
    en, it = json.loads(english.content), json.loads(italian.content)
    assert (en["lang"], it["lang"]) == ("en", "it")
    assert en["name"] == "Circolo: the card club"
    assert it["name"] == "Circolo: il club delle carte"
    assert en["start_url"] == "/" and en["display"] == "standalone"
    sizes = {icon["sizes"] for icon in en["icons"] if icon["type"] == "image/png"}
    assert {"192x192", "512x512"} <= sizes
    for icon in en["icons"]:
        assert finders.find(icon["src"].removeprefix("/static/")), icon


def test_the_service_worker_is_served_from_the_root_uncached_with_the_shell_it_keeps():
    response = Client().get("/sw.js")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/javascript"
    assert response["Service-Worker-Allowed"] == "/"
    assert "no-cache" in response["Cache-Control"]
    text = response.content.decode()
    assert "__VERSION__" not in text and 'const CACHE = "circolo-' in text
    assert "/static/circolo/offline.js" in text and '"/offline/"' in text
    # The same text gives the same version: the browser installs a worker only when it changed.
    assert Client().get("/sw.js").content == response.content


def test_the_offline_page_and_every_page_link_the_manifest_and_the_offline_script():
    client = Client(headers={"accept-language": "en"})
    offline = client.get("/offline/")
    assert offline.status_code == 200
    assert "No network" in offline.content.decode()
    home = client.get("/").content.decode()
    assert '<link rel="manifest" href="/manifest.webmanifest">' in home
    assert "circolo/offline.js" in home
    assert 'id="offline-queue"' in home and "results waiting to be sent" in home


@pytest.mark.parametrize("path", ["/manifest.webmanifest", "/sw.js", "/offline/"])
def test_the_apps_files_take_no_writes(client, path):
    assert client.post(path).status_code == 405
