"""Sputo in a real browser (Debian's Chromium through Playwright): an admin creates an
11-player tournament and draws it; two players, each on their own phone, report and confirm
a match; the admin's bracket, refreshing itself, shows the winner through."""

import pytest

from clubs import services as club_services
from matches.models import Tournament, TournamentMatch
from tests.conftest import PASSWORD
from tests.sputo_world import make_members
from tests.test_browser import browser  # noqa: F401 - the shared Chromium fixture

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def phone(browser):  # noqa: F811
    context = browser.new_context(locale="en-GB", viewport={"width": 390, "height": 844})
    page = context.new_page()
    page.set_default_timeout(20000)
    return context, page


def log_in(page, url, username):
    page.goto(f"{url}/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", PASSWORD)
    page.click("main button[type=submit]")
    page.wait_for_url(f"{url}/")


def test_an_admin_draws_eleven_players_and_two_phones_report_and_confirm(
    live_server,
    browser,  # noqa: F811
    make_user,
):
    admin = make_user("ada")
    club = club_services.create_club(name="Circolo Sputo", founder=admin, city="Bari")
    players = make_members(club, 11)
    url = live_server.url

    admin_context, page = phone(browser)
    log_in(page, url, "ada")
    page.goto(f"{url}/clubs/{club.slug}/tournaments/")
    page.fill("#new-tournament input[name=name]", "Coppa di primavera")
    page.fill("#new-tournament input[name=starts_at]", "2030-04-10T21:00")
    page.select_option("#new-tournament select[name=variant]", "single_deck")
    page.select_option("#new-tournament select[name=seeding]", "random")
    page.click("#new-tournament button[type=submit]")
    page.wait_for_selector("#admin-controls")
    tournament = Tournament.objects.get(name="Coppa di primavera")
    page.click("#admin-controls button:has-text('Registration open')")
    for player in players:
        page.select_option("#add-player", label=player.display_name)
        page.click("#add-entrant button[type=submit]")
    assert page.locator("#entrants tbody tr").count() == 11
    page.click("#draw-button")
    page.wait_for_selector("#bracket")
    assert page.locator("#bracket .m.is-bye").count() == 5

    match = (
        TournamentMatch.objects.filter(tournament=tournament, round=1, result="")
        .select_related("player_a", "player_b")
        .order_by("position")
        .first()
    )
    winner, loser = match.player_a, match.player_b
    after = TournamentMatch.objects.get(
        tournament=tournament, kind="main", round=2, position=match.position // 2
    )
    slot = "first" if match.position % 2 == 0 else "last"

    winner_context, winner_page = phone(browser)
    log_in(winner_page, url, winner.user.username)
    winner_page.goto(f"{url}{tournament.get_absolute_url()}")
    winner_page.click("#my-next-match a")
    winner_page.check(f"input[name=winner_1][value='{winner.pk}']")
    winner_page.fill("input[name=cards_1]", "4")
    winner_page.click("#report-button")
    winner_page.wait_for_selector("#pending")

    loser_context, loser_page = phone(browser)
    log_in(loser_page, url, loser.user.username)
    loser_page.goto(f"{url}{match.get_absolute_url()}")
    loser_page.click("#confirm-button")
    loser_page.wait_for_selector("text=Result confirmed")

    # The admin's bracket refreshes itself (htmx): the winner appears in round two.
    card = page.locator(f"#match-{after.pk} .p").nth(0 if slot == "first" else 1)
    card.filter(has_text=winner.display_name).wait_for(timeout=25000)
    assert "won" in page.locator(
        f"#match-{match.pk} .p", has_text=winner.display_name
    ).get_attribute("class")
    for context in (admin_context, winner_context, loser_context):
        context.close()


def test_an_admin_corrects_round_one_on_a_phone_in_italian_and_awards_the_quarter_final(
    live_server,
    browser,  # noqa: F811
    make_user,
):
    from matches.results import steps
    from tests.sputo_world import drawn, inconsistencies, match_at, win

    admin = make_user("ada")
    club = club_services.create_club(name="Circolo Sputo", founder=admin, city="Bari")
    players = make_members(club, 8)
    tournament = drawn(club, admin, players, third_place=True)
    for round_ in (1, 2):
        for m in tournament.matches.filter(round=round_).select_related("player_a", "player_b"):
            if m.player_a_id and m.player_b_id:
                steps.report_outcome(subject=m, payload=win(m, m.player_a), by=admin)
    first, semi = match_at(tournament, 1, 0), match_at(tournament, 2, 0)
    url = live_server.url
    context = browser.new_context(locale="it-IT", viewport={"width": 390, "height": 844})
    page = context.new_page()
    page.set_default_timeout(20000)
    log_in(page, url, "ada")
    page.goto(f"{url}{first.get_absolute_url()}")
    page.locator("details.card > summary").last.click()
    page.locator(f"input[name='correct-winner_1'][value='{first.player_b_id}']").check(force=True)
    page.fill("input[name='correct-cards_1']", "4")
    page.fill("#correct-reason", "Errore di trascrizione")
    page.click("#correct-form button[type=submit]")
    preview = page.locator("#correction-preview")
    preview.wait_for()
    for label in ("Semifinali", "Finale", "Terzo posto"):
        assert preview.locator("h4", has_text=label).count() == 1
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    # The semi-final seed 1 won is set aside; the admin awards it to seed 8 and looks again.
    page.select_option(f"#award-{semi.pk}", str(players[7].pk))
    page.click("#correction-preview button[form=correct-form]")
    page.locator(f"#preview-{semi.pk}", has_text="assegnata a p08").wait_for()
    assert match_at(tournament, 2, 0).winner == players[0]  # nothing applied yet
    page.click("#apply-correction")
    page.wait_for_selector(".message")
    semi = match_at(tournament, 2, 0)
    assert (semi.player_a, semi.winner, semi.result) == (players[7], players[7], "awarded")
    assert match_at(tournament, 3, 0).player_a == players[7]
    assert inconsistencies(tournament) == []
    context.close()
