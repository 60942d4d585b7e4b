"""End to end in headless Chromium (Debian's ``chromium``, driven by Playwright)."""

import os
import shutil

import pytest

from clubs import services
from tests.conftest import PASSWORD

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
# Chromium must not phone home: this machine's network is closed.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="module")
def browser():
    if not os.path.exists(CHROMIUM):
        if os.environ.get("CI"):
            pytest.fail("CI is set but Chromium is not installed (apt-get install chromium)")
        pytest.skip(
            "Chromium is not installed (apt-get install chromium); set CI=true to fail instead"
        )
    # Playwright's sync API runs an event loop in this thread; the ORM calls in the test
    # body are still synchronous and safe.
    from playwright.sync_api import sync_playwright

    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            yield browser
            browser.close()
    finally:
        # Only for these tests: it would leak into every later subprocess of this worker.
        del os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"]


@pytest.fixture
def page(browser):
    context = browser.new_context(locale="en-GB", viewport={"width": 390, "height": 844})
    page = context.new_page()
    page.set_default_timeout(15000)
    yield page
    context.close()


def test_a_member_logs_in_switches_to_italian_and_opens_the_club_page(live_server, page, make_user):
    user = make_user("giulia")
    club = services.create_club(
        name="Circolo del Sette Bello", founder=user, city="Napoli", is_public=False
    )
    services.add_guest(club=club, display_name="Zio Pino")

    page.goto(f"{live_server.url}/accounts/login/")
    assert page.locator("h1").inner_text() == "Log in"
    page.fill("input[name=username]", "giulia")
    page.fill("input[name=password]", PASSWORD)
    page.click("main button[type=submit]")
    page.wait_for_url(f"{live_server.url}/")
    assert "Your clubs" in page.content()

    with page.expect_navigation():
        page.select_option("select#language", "it")
    assert page.locator("html").get_attribute("lang") == "it"
    assert "I tuoi circoli" in page.content()

    page.click("text=Circolo del Sette Bello")
    page.wait_for_url(f"{live_server.url}{club.get_absolute_url()}")
    assert page.locator("h1").inner_text().startswith("Circolo del Sette Bello")
    assert "Stagioni" in page.content()
    assert "1 ospite" in page.inner_text("main")
    page.click("text=Membri")
    assert page.locator("ul.guests li", has_text="Zio Pino").is_visible()


def test_a_wrong_password_shows_an_error_in_the_browser(live_server, page, make_user):
    make_user("remo")
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("input[name=username]", "remo")
    page.fill("input[name=password]", "wrong-password")
    page.click("main button[type=submit]")
    assert page.locator(".errorlist").is_visible()
