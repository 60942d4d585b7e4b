"""No traps at the table, in headless Chromium on a 390 px phone in Italian: the walkover
is a radio button that can be chosen and submitted; a confirmation page fits the phone,
its way back changes nothing and its button does what it says.

With ``SHOTS_DIR`` set, the last test also keeps a screenshot of every page that asks
first, at 390x844 and 1366x900, in Italian and in English (never in git)."""

import os

import pytest

from clubs import services as club_services
from matches.models import TableSession, Tournament
from matches.results import steps
from matches.singapore import services as singapore
from matches.spazzumazz.services import record_spazzumazz_game
from matches.sputo import services as sputo
from tests.conftest import PASSWORD
from tests.singapore_helpers import make_table, open_table, play
from tests.sputo_world import drawn, make_members, match_at, new_tournament, win
from tests.test_browser import browser  # noqa: F401 - the shared Chromium fixture

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOTS = os.environ.get("SHOTS_DIR")
SIZES = {"phone": (390, 844), "desktop": (1366, 900)}
LANGUAGES = {"it": "it-IT", "en": "en-GB"}


def device(browser, *, language="it", size="phone", script=True):  # noqa: F811
    width, height = SIZES[size]
    context = browser.new_context(
        locale=LANGUAGES[language],
        viewport={"width": width, "height": height},
        java_script_enabled=script,
    )
    page = context.new_page()
    page.set_default_timeout(20000)
    return context, page


def log_in(page, url, username):
    page.goto(f"{url}/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", PASSWORD)
    page.click("main button[type=submit]")
    page.wait_for_url(f"{url}/")


def fits(page, width=390):
    """Nothing sticks out sideways: the page does not scroll horizontally."""
    return page.evaluate("document.documentElement.scrollWidth") <= width


def test_the_walkover_is_a_radio_that_is_chosen_and_submitted(live_server, browser, make_user):  # noqa: F811
    admin = make_user("ada")
    club = club_services.create_club(name="Circolo Sputo", founder=admin, city="Bari")
    players = make_members(club, 2)
    club_services.rename_player(player=players[1], display_name="Massimiliano Bartolomei")
    tournament = drawn(club, admin, players)
    match = match_at(tournament, 1, 0)
    context, page = device(browser)
    log_in(page, live_server.url, "ada")
    page.goto(f"{live_server.url}{match.get_absolute_url()}")
    assert page.locator("html").get_attribute("lang") == "it"

    page.click("#report-form details.other-result summary")
    walkover = page.locator("#report-form input[name=other][value=walkover_b]")
    assert walkover.is_visible()
    label = page.locator("#report-form label").filter(
        has=page.locator("input[name=other][value=walkover_b]")
    )
    # Each choice named once, beside its own radio.
    assert label.inner_text().count("Massimiliano Bartolomei") == 1
    assert page.locator("#report-form input[name=other]").count() == 6
    label.click()
    assert walkover.is_checked()
    box = label.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390
    assert fits(page)
    with page.expect_navigation():
        page.click("#report-button")
    match.refresh_from_db()
    assert match.result == "walkover"
    assert match.winner_id == players[1].pk
    context.close()


def test_a_confirmation_page_fits_a_phone_in_italian_and_asks_before_closing(
    live_server,
    browser,  # noqa: F811
    make_user,
):
    world = make_table(make_user, ("Anna", "Bruno", "Carla"))
    session = open_table(world, ["Anna", "Bruno", "Carla"], first=("Anna", "Bruno"))
    table_url = f"{live_server.url}/clubs/{world['club'].slug}/tables/{session.pk}/"
    context, page = device(browser)
    log_in(page, live_server.url, "sam")
    page.goto(table_url)
    page.click("#close-link")
    page.wait_for_selector("form.confirm")
    assert page.locator("#confirm-title").inner_text() == "Chiudi il tavolo"
    assert "Chiudere Tavolo 1?" in page.inner_text("form.confirm")
    button = page.locator("#confirm-button")
    box = button.bounding_box()
    assert box["x"] + box["width"] <= 390 and box["height"] >= 40
    assert fits(page)
    # Without JavaScript too: the page is a form and a link.
    assert page.locator("form.confirm[method=post]").count() == 1

    assert page.locator("#confirm-back").inner_text() == "Torna indietro: non cambia nulla"
    page.click("#confirm-back")  # back, nothing changed
    page.wait_for_url(table_url)
    assert TableSession.objects.get(pk=session.pk).is_open

    page.click("#close-link")
    with page.expect_navigation():
        button.click()
    assert not TableSession.objects.get(pk=session.pk).is_open
    assert "Tavolo chiuso." in page.inner_text("main")
    context.close()


def test_cancelling_a_running_tournament_lists_what_is_lost_on_a_phone(
    live_server,
    browser,  # noqa: F811
    make_user,
):
    admin = make_user("ada")
    club = club_services.create_club(name="Circolo Sputo", founder=admin, city="Bari")
    tournament = drawn(club, admin, make_members(club, 4))
    first = match_at(tournament, 1, 0)
    steps.report_outcome(subject=first, payload=win(first, first.player_a), by=admin)
    context, page = device(browser)
    log_in(page, live_server.url, "ada")
    page.goto(f"{live_server.url}{tournament.get_absolute_url()}")
    page.click("#cancel-link")
    lost = page.locator("#lost li").all_inner_texts()
    assert lost[0].startswith("1 partita giocata")
    assert lost[1].startswith("3 partite ancora da giocare")  # the final, third place too
    assert fits(page)
    assert Tournament.objects.get(pk=tournament.pk).status == "running"
    with page.expect_navigation():
        page.click("#confirm-button")
    assert Tournament.objects.get(pk=tournament.pk).status == "cancelled"
    context.close()


def test_a_game_is_corrected_by_tapping_the_players(live_server, browser, make_user):  # noqa: F811
    admin = make_user("ada")
    club = club_services.create_club(name="Circolo Spazz", founder=admin, city="Lecce")
    players = [
        club_services.add_guest(club=club, display_name=n) for n in ("Anna", "Bruno", "Carla")
    ]
    game, _ = record_spazzumazz_game(
        club=club, players=players, by=admin, finish_order=[p.pk for p in players]
    )
    context, page = device(browser, language="en")
    log_in(page, live_server.url, "ada")
    page.goto(f"{live_server.url}/clubs/{club.slug}/spazzumazz/{game.pk}/")
    save = page.locator("#fix-save")
    assert save.is_disabled()
    for name in ("Carla", "Anna"):  # Bruno is left: the idiot
        page.click(f"#fix-form button.tap:has-text('{name}')")
    assert page.locator("#fix-idiot").inner_text() == "Idiot: Bruno"
    page.fill("#fix-reason", "Ordine sbagliato")
    with page.expect_navigation():
        save.click()
    assert page.locator("#finish-order li").all_inner_texts() == ["Carla", "Anna", "Bruno (idiot)"]
    assert fits(page)
    context.close()


def _pages(live_server, make_user):
    """Every page that asks first, by name: its address (and what to do on it)."""
    admin = make_user("ada")
    club = club_services.create_club(name="Circolo delle Carte", founder=admin, city="Bari")
    players = make_members(club, 4)
    for player, name in zip(
        players,
        ("Anna Esposito", "Bruno Ferrante", "Carla De Santis", "Dario Lombardi"),
        strict=True,
    ):
        club_services.rename_player(player=player, display_name=name)
    tournament = drawn(club, admin, players, name="Coppa d'inverno")
    first = match_at(tournament, 1, 0)
    steps.report_outcome(subject=first, payload=win(first, first.player_a), by=admin)
    open_one = new_tournament(club, admin, name="Torneo di primavera")
    sputo.update_tournament(tournament=open_one, by=admin, status="registration")
    entrant = sputo.add_entrant(tournament=open_one, player=players[0], by=admin)
    for name in ("Zio Pino", "Nonna Rosa"):
        club_services.add_guest(club=club, display_name=name)
    session = singapore.open_session(
        club=club,
        by=admin,
        name="Tavolo 1",
        seats=players[:3],
        first_dealer=players[0],
        first_opponent=players[1],
    )
    world = {"club": club, "scorer": admin, "players": {p.display_name: p for p in players}}
    hand = play(world, session, "Anna Esposito", "Bruno Ferrante").hand
    closed = singapore.open_session(
        club=club,
        by=admin,
        name="Tavolo 2",
        seats=players[2:],
        first_dealer=players[2],
        first_opponent=players[3],
    )
    singapore.close_table(session=closed, by=admin)
    game, _ = record_spazzumazz_game(
        club=club, players=players, by=admin, finish_order=[p.pk for p in players]
    )
    second = match_at(tournament, 1, 1)
    c, t = club.slug, f"/clubs/{club.slug}/tournaments"
    return {
        "match-walkover": (second.get_absolute_url(), "#report-form details.other-result summary"),
        "cancel-tournament": (f"{t}/{tournament.pk}/cancel/", None),
        "withdraw-entry": (f"{t}/{open_one.pk}/entrants/{entrant.pk}/withdraw/", None),
        "withdraw-after-draw": (
            f"{t}/{tournament.pk}/entrants/{tournament.entrants.get(player=second.player_a).pk}"
            "/withdraw/",
            None,
        ),
        "tournament-running": (tournament.get_absolute_url(), None),
        "tournament-entrants": (open_one.get_absolute_url(), None),
        "enter-many": (f"{t}/{open_one.pk}/entrants/add/", None),
        "close-table": (f"/clubs/{c}/tables/{session.pk}/close/", None),
        "table-reopen": (f"/clubs/{c}/tables/{closed.pk}/", None),
        "void-hand": (f"/clubs/{c}/tables/{session.pk}/hands/{hand.pk}/void/", None),
        "spazzumazz-correct": (f"/clubs/{c}/spazzumazz/{game.pk}/", "#fix-form button.tap"),
        "void-game": (f"/clubs/{c}/spazzumazz/{game.pk}/void/", None),
    }


@pytest.mark.skipif(not SHOTS, reason="set SHOTS_DIR to keep the screenshots")
def test_screenshots_of_the_changed_pages(live_server, browser, make_user):  # noqa: F811
    pages = _pages(live_server, make_user)
    for language in LANGUAGES:
        for size in SIZES:
            context, page = device(browser, language=language, size=size)
            log_in(page, live_server.url, "ada")
            for name, (path, click) in pages.items():
                page.goto(f"{live_server.url}{path}")
                if click:
                    page.locator(click).first.click()
                page.screenshot(path=f"{SHOTS}/{name}-{language}-{size}.png", full_page=True)
                if size == "phone":
                    assert fits(page), name
            context.close()
    # Without JavaScript: lists of seats and places instead of taps, no ids to type.
    context, page = device(browser, script=False)
    log_in(page, live_server.url, "ada")
    for name in ("spazzumazz-correct", "match-walkover"):
        page.goto(f"{live_server.url}{pages[name][0]}")
        page.screenshot(path=f"{SHOTS}/{name}-it-phone-nojs.png", full_page=True)
        assert fits(page), name
    context.close()
