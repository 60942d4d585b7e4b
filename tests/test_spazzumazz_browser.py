"""Spazz'u'mazz on a phone, in headless Chromium: record a game by tapping the finishing
order, then see the idiot statistics and the club's game name change."""

import os

import pytest

from clubs import services
from matches.spazzumazz.services import record_spazzumazz_game
from tests.conftest import PASSWORD
from tests.test_browser import browser, page  # noqa: F401 - the fixtures

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOTS = os.environ.get("SHOTS_DIR")  # set it to keep screenshots (never in git)


def shot(page, name):  # noqa: F811
    if SHOTS:
        page.screenshot(path=f"{SHOTS}/{name}.png", full_page=True)


def test_a_scorer_taps_the_finishing_order_and_the_game_is_renamed(live_server, page, make_user):  # noqa: F811
    sara = make_user("sara")
    club = services.create_club(name="Circolo dei Quattro", founder=sara, city="Lecce")
    services.update_house_rules(
        club=club, game="spazzumazz", values={"idiot_min_games": 2}, by=sara
    )
    anna, bruno, carla, dario = (
        services.add_guest(club=club, display_name=name)
        for name in ("Anna", "Bruno", "Carla", "Dario")
    )
    for order in ([bruno, carla, dario, anna], [anna, carla, dario, bruno]):
        record_spazzumazz_game(
            club=club, players=order, by=sara, finish_order=[p.pk for p in order]
        )
    # Anna and Bruno: once the idiot in two games each, with the same places: Anna's name
    # sorts first, so the game is hers.

    page.goto(f"{live_server.url}/accounts/login/?next=/clubs/{club.slug}/spazzumazz/")
    page.fill("input[name=username]", "sara")
    page.fill("input[name=password]", PASSWORD)
    page.click("main button[type=submit]")
    page.wait_for_url(f"**/clubs/{club.slug}/spazzumazz/")
    assert "Anna's game" in page.inner_text("main")
    assert page.locator("#idiot-stats tr", has_text="Bruno").inner_text().split()[1:3] == ["2", "1"]

    page.click("text=Record a game")
    taps = 0
    for name in ("Anna", "Bruno", "Carla", "Dario"):  # the turn order
        page.click(f"#pick button.tap:has-text('{name}')")
        taps += 1
    assert page.locator("#pick button.tap[aria-pressed=true]").count() == 4
    shot(page, "quick-entry-players")
    with page.expect_navigation():
        page.click("#next")
    taps += 1
    for name in ("Anna", "Carla", "Dario"):  # out in this order: Bruno is left, the idiot
        page.click(f"#order-form button.tap:has-text('{name}')")
        taps += 1
    assert page.locator("#idiot-line").inner_text() == "Idiot: Bruno"
    shot(page, "quick-entry-order")
    with page.expect_navigation():
        page.click("#save")
    taps += 1
    assert taps < 10
    assert page.locator("#finish-order li").all_inner_texts() == [
        "Anna",
        "Carla",
        "Dario",
        "Bruno (idiot)",
    ]
    assert page.locator("#result-status").inner_text() == "Confirmed"

    page.goto(f"{live_server.url}/clubs/{club.slug}/spazzumazz/")
    main = page.inner_text("main")
    assert "Bruno's game" in main and "Anna's game" not in main
    assert page.locator("#idiot-stats tr", has_text="Bruno").inner_text().split()[1:4] == [
        "3",
        "2",
        "67%",
    ]
    page.goto(f"{live_server.url}/clubs/{club.slug}/")
    assert "Bruno's game" in page.inner_text("#section-spazzumazz")
    assert "Anna" in page.inner_text("#section-spazzumazz")  # the earlier holder
    shot(page, "club-page-after")
