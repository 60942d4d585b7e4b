"""Words and numbers in a real browser (Debian's Chromium through Playwright): a scorer on an
Italian phone opens a table with the date the form fills in (an ISO value the browser's date
picker shows and sends), and reads the hand's cards with their suit symbols."""

import pytest

from matches.models import TableSession
from tests.conftest import PASSWORD
from tests.singapore_helpers import make_table
from tests.test_browser import browser  # noqa: F401 - the shared Chromium fixture

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("width", [390, 1366])
def test_a_scorer_opens_a_table_in_italian_with_the_date_filled_in(
    live_server,
    browser,  # noqa: F811
    make_user,
    width,
):
    world = make_table(make_user, ("Anna", "Bruno", "Carla"))
    context = browser.new_context(locale="it-IT", viewport={"width": width, "height": 844})
    context.add_cookies([{"name": "django_language", "value": "it", "url": live_server.url}])
    page = context.new_page()
    page.set_default_timeout(15000)
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("input[name=username]", "sam")
    page.fill("input[name=password]", PASSWORD)
    page.click("main button[type=submit]")
    page.wait_for_url(f"{live_server.url}/")

    page.goto(f"{live_server.url}/clubs/{world['club'].slug}/tables/new/")
    assert page.locator("html").get_attribute("lang") == "it"
    date = page.locator("input[type=date][name=date]")
    filled = date.input_value()
    assert filled != ""  # the browser kept the value the page wrote
    for name in ("Anna", "Bruno", "Carla"):
        page.get_by_label(name, exact=True).check()
    with page.expect_navigation():
        page.click("main form button[type=submit]")
    session = TableSession.objects.get()
    assert session.date.isoformat() == filled
    assert f"/tables/{session.pk}/" in page.url
    context.close()
