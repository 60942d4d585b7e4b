"""``/favicon.ico``, which browsers ask for on every site, leads to the site's icon."""

from urllib.request import urlopen

from django.templatetags.static import static


def test_favicon_ico_redirects_to_the_svg_icon(client):
    response = client.get("/favicon.ico")
    assert response.status_code == 302
    assert response["Location"] == static("circolo/favicon.svg")
    assert "max-age=86400" in response["Cache-Control"]


def test_favicon_ico_cannot_be_posted_to(client):
    assert client.post("/favicon.ico").status_code == 405


def test_a_browser_asking_for_favicon_ico_gets_the_svg(live_server):
    with urlopen(f"{live_server.url}/favicon.ico", timeout=10) as response:
        assert response.status == 200
        assert response.url.endswith("/static/circolo/favicon.svg")
        assert response.headers["Content-Type"].startswith("image/svg+xml")
        assert response.read().lstrip().startswith(b"<svg")
