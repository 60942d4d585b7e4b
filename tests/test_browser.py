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


def no_sideways_scrolling(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def test_an_admin_manages_the_members_on_a_phone(live_server, page, make_user):
    from clubs.models import Membership, Player

    admin = make_user("ada", first_name="Ada", last_name="Lovelace")
    club = services.create_club(name="Circolo del Sette Bello", founder=admin, city="Napoli")
    for n in range(21):
        services.add_member(club=club, user=make_user(f"socio{n:02d}", first_name=f"Socio {n:02d}"))
    for name in ["Zio Pino", "Nonna Rina", "Beppe"]:
        services.add_guest(club=club, display_name=name)
    members_url = f"{live_server.url}/clubs/{club.slug}/members/"

    page.goto(f"{live_server.url}/accounts/login/?next=/clubs/{club.slug}/members/")
    page.fill("input[name=username]", "ada")
    page.fill("input[name=password]", PASSWORD)
    page.click("main button[type=submit]")
    page.wait_for_url(members_url)
    assert page.locator("#members > li").count() == 22
    assert no_sideways_scrolling(page)
    # 22 members: about one line each, the page stays a few screens long.
    assert page.evaluate("document.documentElement.scrollHeight") < 3000

    # Search: the list narrows as one types, and the form searches on the server too.
    page.fill("#q", "nonna")
    shown = page.locator("#guests > li:visible .name").all_inner_texts()
    assert shown == ["Nonna Rina"]
    assert page.locator("#members > li:visible").count() == 0
    with page.expect_navigation():
        page.press("#q", "Enter")
    assert "q=nonna" in page.url
    assert page.locator("#guests > li").count() == 1
    page.goto(members_url)

    # Rename a guest.
    pino = page.locator('#guests > li[data-name="Zio Pino"]')
    pino.locator("summary").click()
    pino.locator("input[name=display_name]").fill("Zio Peppino")
    with page.expect_navigation():
        pino.locator("button", has_text="Rename").click()
    assert "Zio Pino is now called Zio Peppino." in page.inner_text(".messages")
    assert page.locator('#guests > li[data-name="Zio Peppino"]').count() == 1
    assert Player.objects.filter(club=club, display_name="Zio Peppino").exists()

    # Removing asks first: cancelling keeps the guest, confirming removes them.
    beppe = page.locator('#guests > li[data-name="Beppe"]')
    beppe.locator("summary").click()
    with page.expect_navigation():
        beppe.locator("a", has_text="Remove").click()
    assert page.locator("main h2").inner_text() == "Remove a guest"
    assert "Beppe" in page.inner_text("main")
    assert no_sideways_scrolling(page)
    with page.expect_navigation():
        page.click("#confirm-back")
    assert Player.objects.filter(club=club, display_name="Beppe").exists()
    beppe = page.locator('#guests > li[data-name="Beppe"]')
    beppe.locator("summary").click()
    with page.expect_navigation():
        beppe.locator("a", has_text="Remove").click()
    with page.expect_navigation():
        page.click("main button.danger")
    assert "Guest removed: Beppe." in page.inner_text(".messages")
    assert not Player.objects.filter(club=club, display_name="Beppe").exists()

    # So does removing a member.
    socio = page.locator('#members > li[data-name="Socio 07"]')
    socio.locator("summary").click()
    with page.expect_navigation():
        socio.locator("a", has_text="Remove").click()
    assert page.locator("main h2").inner_text() == "Remove a member"
    assert Membership.objects.filter(club=club, user__username="socio07").exists()
