"""Results entered in a basement without signal, in headless Chromium with
Playwright's offline emulation: kept on the phone with a badge, sent once when the network
returns, and what the server refuses shown with its reason."""

import pytest

from clubs import services
from matches.models import SpazzumazzGame
from tests.conftest import PASSWORD
from tests.test_browser import browser, page  # noqa: F401 - the fixtures

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _club_with_four(make_user):
    sara = make_user("sara")
    club = services.create_club(name="Circolo della Cantina", founder=sara, city="Bari")
    players = [
        services.add_guest(club=club, display_name=name)
        for name in ("Anna", "Bruno", "Carla", "Dario")
    ]
    return club, players


def _log_in(tab, url, next_path):
    tab.goto(f"{url}/accounts/login/?next={next_path}")
    tab.fill("input[name=username]", "sara")
    tab.fill("input[name=password]", PASSWORD)
    with tab.expect_navigation():
        tab.click("main button[type=submit]")


def _tap_a_game(tab, out_in_order):
    for name in out_in_order:
        tab.click(f"#order-form button.tap:has-text('{name}')")
    tab.click("#save")


def test_two_games_entered_offline_are_recorded_once_each_when_the_network_returns(
    live_server,
    page,  # noqa: F811
    make_user,
):
    club, players = _club_with_four(make_user)
    entry = f"/clubs/{club.slug}/spazzumazz/new/?players=" + ",".join(str(p.pk) for p in players)
    _log_in(page, live_server.url, entry)
    # The service worker takes over the page once installed; the page is then kept.
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    page.reload()
    page.wait_for_function("navigator.serviceWorker.controller !== null")

    page.context.set_offline(True)
    page.reload()  # from the phone's copy
    assert page.locator("#order-form").count() == 1
    _tap_a_game(page, ["Anna", "Carla", "Dario"])  # Bruno the idiot
    badge = page.locator("#offline-queue")
    assert badge.inner_text() == "1 result waiting to be sent"
    _tap_a_game(page, ["Bruno", "Carla", "Anna"])  # Dario the idiot
    assert badge.inner_text() == "2 results waiting to be sent"
    assert SpazzumazzGame.objects.count() == 0

    page.context.set_offline(False)
    page.wait_for_selector("#offline-queue", state="hidden")
    games = SpazzumazzGame.objects.filter(club=club).order_by("pk")
    idiots = [g.places.order_by("-place").first().player.display_name for g in games]
    assert idiots == ["Bruno", "Dario"]
    page.reload()  # nothing is sent twice
    page.wait_for_load_state("networkidle")
    assert SpazzumazzGame.objects.filter(club=club).count() == 2
    assert page.evaluate("localStorage.getItem('circolo.offline.queue')") == "[]"


def test_what_the_server_refuses_on_arrival_is_shown_with_its_reason_and_kept(
    live_server,
    page,  # noqa: F811
    make_user,
):
    club, players = _club_with_four(make_user)
    entry = f"/clubs/{club.slug}/spazzumazz/new/?players=" + ",".join(str(p.pk) for p in players)
    _log_in(page, live_server.url, entry)
    page.context.set_offline(True)
    _tap_a_game(page, ["Anna", "Carla", "Dario"])
    # Meanwhile, Bruno's guest record is removed: the game can no longer be recorded.
    services.remove_guest(player=players[1])
    page.context.set_offline(False)
    refused = page.locator("#offline-refused")
    refused.wait_for(state="visible")
    assert "Not recorded" in refused.inner_text()
    assert "Spazz'u'mazz game at Circolo della Cantina" in refused.inner_text()
    assert SpazzumazzGame.objects.count() == 0
    assert page.locator("#offline-queue").is_hidden()
