"""A double tap in a real browser (Chromium through Playwright, on a phone): the hand form
tapped twice, and the same form sent twice at once, record one hand (``plumbing.once``).

The two requests of a double tap run at the same moment: PostgreSQL, or SQLite in a file
(the second write waits for the first), not the test run's SQLite in memory, whose shared
cache refuses a second writer at once ("database table is locked") instead of waiting."""

import pytest
from django.db import connection

from matches.models import Hand
from tests.conftest import PASSWORD
from tests.singapore_helpers import CLOSING, SEVENTY, make_table, open_table
from tests.test_browser import browser  # noqa: F401 - the shared Chromium fixture

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def _erase_ledgers():
    """The ledger refuses deletes (its triggers): erase the clubs' ledgers before the test
    database's flush, as deleting a club must."""
    yield
    from clubs.models import Club
    from ledger.services import erase_club_ledger

    for club in Club.objects.all():
        erase_club_ledger(club=club)


@pytest.fixture(autouse=True)
def _writers_wait_for_each_other():
    if connection.vendor == "sqlite" and connection.is_in_memory_db():
        pytest.skip("two writers at once need PostgreSQL or SQLite in a file")


def fill_hand(page):
    page.fill("input[name=winner_cards]", " ".join(CLOSING))
    page.fill("input[name=loser_cards]", " ".join(SEVENTY))
    page.check("input[name=winner][value=dealer]")
    page.fill("input[name=dealer_quotas]", "1")


def test_the_hand_form_double_tapped_records_one_hand(live_server, browser, make_user):  # noqa: F811
    world = make_table(make_user, ("Anna", "Bruno"))
    session = open_table(world, ["Anna", "Bruno"], first=("Anna", "Bruno"))
    url = live_server.url
    table_url = f"{url}/clubs/{world['club'].slug}/tables/{session.pk}/"
    context = browser.new_context(locale="en-GB", viewport={"width": 390, "height": 844})
    page = context.new_page()
    page.set_default_timeout(20000)
    posts = []
    page.on("request", lambda r: r.method == "POST" and "/hands/new/" in r.url and posts.append(r))
    page.goto(f"{url}/accounts/login/")
    page.fill("input[name=username]", "sam")
    page.fill("input[name=password]", PASSWORD)
    page.click("main button[type=submit]")
    page.wait_for_url(f"{url}/")

    # A double tap on "Save".
    page.goto(f"{table_url}hands/new/")
    fill_hand(page)
    page.dblclick("button[value=save]")
    page.wait_for_url(table_url)
    assert len(posts) >= 1
    assert Hand.objects.filter(session=session).count() == 1

    # The same form sent twice at once, as a phone on a slow network sends it: both answers
    # go to the table, one hand recorded.
    page.goto(f"{table_url}hands/new/")
    fill_hand(page)
    answers = page.evaluate(
        """async () => {
            const form = document.querySelector("button[value=save]").form;
            const body = () => { const d = new FormData(form); d.set("action", "save"); return d; };
            const to = form.getAttribute("action") || location.href;
            const send = () => fetch(to, {method: "POST", body: body()});
            const both = await Promise.all([send(), send()]);
            const said = "This form was already sent: nothing more recorded.";
            const read = async r => [r.status, r.url, (await r.text()).includes(said)];
            return Promise.all(both.map(read));
        }"""
    )
    assert [status for status, _, _ in answers] == [200, 200]
    assert {answered for _, answered, _ in answers} == {table_url}
    assert any(said for _, _, said in answers)  # the second one's answer says so
    assert Hand.objects.filter(session=session).count() == 2
    context.close()
