"""A Singapore table in a real browser (Debian's Chromium through Playwright), on a phone:
a scorer records three hands at a table of four, entering cards with the picker and by
pasting them, checks each hand before saving it, then reads the sheet and its settle-up
plan."""

import pytest

from matches.models import Hand
from tests.conftest import PASSWORD
from tests.singapore_helpers import CLOSING, HEAVY, QUINTUPLE, SEVENTY, make_table, open_table
from tests.test_browser import browser  # noqa: F401 - the shared Chromium fixture

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def _erase_ledgers():
    """The ledger refuses deletes (its triggers); the test database's flush after this test
    deletes on SQLite: erase the clubs' ledgers first, as deleting a club must."""
    yield
    from clubs.models import Club
    from ledger.services import erase_club_ledger

    for club in Club.objects.all():
        erase_club_ledger(club=club)


def phone(browser):  # noqa: F811
    context = browser.new_context(locale="en-GB", viewport={"width": 390, "height": 844})
    page = context.new_page()
    page.set_default_timeout(20000)
    return context, page


def pick(page, cards):
    """Enter ``cards`` with the picker: the rank, then the suit (the joker at once)."""
    for card in cards:
        if card == "JK":
            page.click(".sg-picker [data-joker]")
            continue
        page.click(f".sg-picker [data-rank='{card[:-1]}']")
        page.click(f".sg-picker [data-suit='{card[-1]}']")


def covers(page, world, quotas):
    for name, n in quotas.items():
        page.fill(f"input[name=cover_{world['players'][name].pk}]", str(n))


def check_then_save(page, table_url):
    page.click("button[value=preview]")
    page.wait_for_selector("#preview")
    preview = page.inner_text("#preview")
    page.click("button[value=save]")
    page.wait_for_url(table_url)
    return preview


def test_three_hands_at_a_table_of_four_on_a_phone(live_server, browser, make_user):  # noqa: F811
    world = make_table(make_user, ("Anna", "Bruno", "Carla", "Dario"))
    session = open_table(world, ["Anna", "Bruno", "Carla", "Dario"], first=("Anna", "Bruno"))
    url = live_server.url
    table_url = f"{url}/clubs/{world['club'].slug}/tables/{session.pk}/"
    context, page = phone(browser)
    page.goto(f"{url}/accounts/login/")
    page.fill("input[name=username]", "sam")
    page.fill("input[name=password]", PASSWORD)
    page.click("main button[type=submit]")
    page.wait_for_url(f"{url}/")

    # Hand 1: Anna deals against Bruno; the winner's cards by the picker, the loser's pasted.
    page.goto(table_url)
    assert "Anna deals against Bruno" in page.inner_text("#next")
    page.click("text=Record a hand")
    pick(page, CLOSING)
    assert page.input_value("input[name=winner_cards]") == " ".join(CLOSING)
    assert page.inner_text("[data-count-for=winner_cards]") == "10/10"
    page.fill("input[name=loser_cards]", " ".join(SEVENTY).lower())
    page.check("input[name=winner][value=dealer]")
    page.fill("input[name=dealer_quotas]", "5")
    covers(page, world, {"Bruno": 2, "Carla": 1, "Dario": 2})
    assert page.is_hidden(f".sg-covers [data-player='{world['players']['Anna'].pk}']")
    preview = check_then_save(page, table_url)
    assert "simple" in preview and "70 points" in preview
    assert "Bruno → Anna: 140" in preview and "Carla → Anna: 70" in preview

    # Hand 2: Anna against Carla, who closes a ten-card sequence; the loser's cards by the
    # picker, which lets no third joker in.
    assert "Anna deals against Carla" in page.inner_text("#next")
    page.click("text=Record a hand")
    page.fill("input[name=winner_cards]", " ".join(QUINTUPLE))
    page.click(".sg-targets [data-target=loser_cards]")
    pick(page, HEAVY)
    assert page.is_disabled(".sg-picker [data-joker]")
    page.check("input[name=winner][value=opponent]")
    page.fill("input[name=dealer_quotas]", "1")
    covers(page, world, {"Carla": 1})
    preview = check_then_save(page, table_url)
    assert "quintuple" in preview and "Anna → Carla: 500" in preview

    # Hand 3: Carla stays and deals against Bruno (right of the loser, Anna); all pasted.
    assert "Carla deals against Bruno" in page.inner_text("#next")
    page.click("text=Record a hand")
    page.fill("input[name=winner_cards]", ", ".join(CLOSING))
    page.fill("input[name=loser_cards]", " ".join(SEVENTY))
    page.check("input[name=winner][value=dealer]")
    page.fill("input[name=dealer_quotas]", "2")
    covers(page, world, {"Bruno": 1, "Dario": 1})
    check_then_save(page, table_url)
    assert Hand.objects.filter(session=session).count() == 3

    # The sheet: dare and avere, and the fewest payments that clear them.
    page.click("text=The sheet")
    totals = {
        row.locator("td").nth(0).inner_text(): (
            row.locator("td").nth(1).inner_text(),
            row.locator("td").nth(2).inner_text(),
        )
        for row in page.locator(".sg-totals tbody tr").all()
    }
    assert totals == {
        "Anna": ("150", ""),
        "Bruno": ("210", ""),
        "Carla": ("", "570"),
        "Dario": ("210", ""),
    }
    plan = page.inner_text("#settle-up")
    assert "Anna pays Carla 150 points" in plan
    assert "Bruno pays Carla 210 points" in plan
    assert "Dario pays Carla 210 points" in plan
    assert "3 payments clear every balance of this table." in plan
    context.close()


def test_the_challenger_dealing_is_refused_on_a_phone_in_italian_naming_who_deals(
    live_server,
    browser,  # noqa: F811
    make_user,
):
    world = make_table(make_user, ("Anna", "Bruno", "Carla"))
    session = open_table(world, ["Anna", "Bruno", "Carla"], first=("Anna", "Bruno"))
    p = world["players"]
    url = live_server.url
    context = browser.new_context(locale="it-IT", viewport={"width": 390, "height": 844})
    context.add_cookies([{"name": "django_language", "value": "it", "url": url}])
    page = context.new_page()
    page.set_default_timeout(20000)
    page.goto(f"{url}/accounts/login/")
    page.fill("input[name=username]", "sam")
    page.fill("input[name=password]", PASSWORD)
    page.click("main button[type=submit]")
    page.wait_for_url(f"{url}/")
    page.goto(f"{url}/clubs/{world['club'].slug}/tables/{session.pk}/hands/new/")
    page.select_option("select[name=dealer]", str(p["Bruno"].pk))
    page.select_option("select[name=opponent]", str(p["Anna"].pk))
    page.fill("input[name=winner_cards]", " ".join(CLOSING))
    page.fill("input[name=loser_cards]", " ".join(SEVENTY))
    page.check("input[name=winner][value=dealer]")
    covers(page, world, {"Anna": 1})
    page.click("button[value=save]")
    error = page.locator(".sg-pair-error")
    assert "Fuori turno" in error.inner_text() and "Anna (che dà le carte)" in error.inner_text()
    assert error.is_visible()
    assert page.is_hidden("input[name=override]") or page.locator("[name=override]").count() == 0
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    assert not Hand.objects.exists()
    context.close()
