"""A group stage and its knockout in a real browser, on a phone: the admin creates "groups
then a knockout" from the form (the groups' fields shown, the Swiss's hidden), enters and
draws; the players report and confirm their group matches from their phones; the admin
makes the knockout from the page and the final is played."""

import pytest

from clubs import services as club_services
from matches.models import Tournament, TournamentMatch
from tests.sputo_world import make_members
from tests.test_browser import browser  # noqa: F401 - the shared Chromium fixture
from tests.test_sputo_browser import log_in, phone

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def report_and_confirm(browser, url, match, winner):  # noqa: F811
    """The winner reports from their phone; the other confirms from theirs."""
    loser = match.player_b if winner == match.player_a else match.player_a
    for player, action in ((winner, "report"), (loser, "confirm")):
        context, page = phone(browser)
        log_in(page, url, player.user.username)
        page.goto(f"{url}{match.get_absolute_url()}")
        if action == "report":
            page.check(f"input[name=winner_1][value='{winner.pk}']")
            page.fill("input[name=cards_1]", "3")
            page.click("#report-button")
            page.wait_for_selector("#pending")
        else:
            page.click("#confirm-button")
            page.wait_for_selector("text=Result confirmed")
        context.close()


def test_a_group_stage_and_its_knockout_played_on_phones(
    live_server,
    browser,  # noqa: F811
    make_user,
):
    admin = make_user("ada")
    club = club_services.create_club(name="Circolo Gironi", founder=admin, city="Lecce")
    players = make_members(club, 4)
    url = live_server.url

    admin_context, page = phone(browser)
    log_in(page, url, "ada")
    page.goto(f"{url}/clubs/{club.slug}/tournaments/")
    form = page.locator("#new-tournament")
    form.locator("input[name=format][value=groups_then_knockout]").check()
    assert form.locator("input[name=groups]").is_visible()
    assert not form.locator("input[name=swiss_rounds]").is_visible()
    form.locator("input[name=name]").fill("Gironi di primavera")
    form.locator("input[name=starts_at]").fill("2030-04-10T21:00")
    form.locator("input[name=groups]").fill("2")
    form.locator("input[name=advance]").fill("1")
    form.locator("select[name=seeding]").select_option("manual")
    form.locator("button[type=submit]").click()
    page.wait_for_selector("#admin-controls")
    tournament = Tournament.objects.get(name="Gironi di primavera")
    assert (tournament.format, tournament.groups, tournament.advance) == (
        "groups_then_knockout",
        2,
        1,
    )
    page.click("#admin-controls button:has-text('Registration open')")
    for player in players:
        page.select_option("#add-player", label=player.display_name)
        page.click("#add-entrant button[type=submit]")
    page.click("#draw-button")
    page.wait_for_selector("#group-A")
    assert page.locator("#group-B .stage-table tbody tr").count() == 2

    # Each group's match: the first listed wins, reported and confirmed on phones.
    for match in TournamentMatch.objects.filter(tournament=tournament, kind="group").select_related(
        "player_a", "player_b", "tournament", "club"
    ):
        report_and_confirm(browser, url, match, match.player_a)
    page.reload()
    assert "above" in page.locator("#group-A .stage-table tbody tr").first.inner_text()
    page.click("#next-stage-button")
    page.wait_for_selector("text=The knockout stage is made.")
    final = TournamentMatch.objects.select_related(
        "player_a", "player_b", "tournament", "club"
    ).get(tournament=tournament, kind="main")
    winners = {
        m.winner_id for m in TournamentMatch.objects.filter(tournament=tournament, kind="group")
    }
    assert {final.player_a_id, final.player_b_id} == winners  # each group's first
    report_and_confirm(browser, url, final, final.player_a)
    page.reload()
    page.wait_for_selector("text=Final places")
    tournament.refresh_from_db()
    assert tournament.status == "finished"
    admin_context.close()
