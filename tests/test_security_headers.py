"""Security headers on every page: a Content-Security-Policy that allows no inline script
(django-csp), a Referrer-Policy and a Permissions-Policy (django-permissions-policy); and
no template of ours carries what that policy would block."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# E-mails are read by mail programs, not under the site's policy: their styles are inline.
EMAILS = {"matches/night_email.html"}

INLINE_SCRIPT = re.compile(r"<script\b(?![^>]*\bsrc=)(?![^>]*type=\"application/json\")[^>]*>")
HANDLER = re.compile(r"<[^>]*\son[a-z]+\s*=", re.IGNORECASE)
STYLE = re.compile(r"<[^>]*\sstyle\s*=|<style\b", re.IGNORECASE)


def directives(policy: str) -> dict[str, str]:
    return dict(part.strip().partition(" ")[::2] for part in policy.split(";") if part.strip())


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/", "/clubs/", "/accounts/login/", "/no-such-page/"])
def test_every_page_forbids_inline_scripts_and_styles(client, path):
    response = client.get(path)
    policy = directives(response["Content-Security-Policy"])
    assert policy["default-src"] == "'self'"
    assert policy["script-src"] == "'self'"
    assert policy["style-src"] == "'self'"
    assert policy["object-src"] == "'none'"
    assert policy["frame-ancestors"] == "'none'"
    assert policy["form-action"] == "'self'"
    assert response["Referrer-Policy"] == "same-origin"
    assert "camera=()" in response["Permissions-Policy"]
    assert "geolocation=()" in response["Permissions-Policy"]


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/admin/login/", "/api/docs/"])
def test_others_templates_keep_their_inline_styles_but_never_inline_scripts(client, path):
    policy = directives(client.get(path)["Content-Security-Policy"])
    assert policy["script-src"] == "'self'"
    assert policy["style-src"] == "'self' 'unsafe-inline'"


@pytest.mark.django_db
def test_the_api_docs_start_from_a_script_file(client):
    page = client.get("/api/docs/").content.decode()
    assert INLINE_SCRIPT.search(page) is None
    script = re.search(r'<script src="([^"]*script=[^"]*)"', page).group(1)
    response = client.get(script.replace("&amp;", "&"))
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/javascript")
    assert b"SwaggerUIBundle" in response.content


def our_templates():
    for app in ("circolo", "plumbing", "clubs", "ledger", "matches"):
        for path in sorted((ROOT / app / "templates").rglob("*.html")):
            name = path.relative_to(ROOT / app / "templates").as_posix()
            if name not in EMAILS:
                yield pytest.param(path, id=name)


@pytest.mark.parametrize("path", list(our_templates()))
def test_no_template_of_ours_has_an_inline_script_handler_or_style(path):
    source = path.read_text()
    assert INLINE_SCRIPT.findall(source) == []
    assert HANDLER.findall(source) == []
    assert STYLE.findall(source) == []
