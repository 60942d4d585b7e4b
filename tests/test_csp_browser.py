"""The Content-Security-Policy in a real browser (Debian's Chromium through Playwright): the
main pages load, run their scripts and draw their styles without one violation.

Chromium reports each blocked inline script, handler, style attribute or foreign resource as
a ``securitypolicyviolation`` event and a console error; the test collects both on every
page (the club page, a table, the hand form, the sheet, a tournament and its full-screen
bracket, a match's report form, the Spazz'u'mazz quick entry, the ledger, a statement, a
player page, the API docs, the Django admin) and asserts there are none. The other browser
tests run with the same policy and prove the scripts still work.
"""

import pytest

from matches.spazzumazz.services import record_spazzumazz_game
from tests.conftest import PASSWORD
from tests.singapore_helpers import make_table, open_table, play
from tests.sputo_world import drawn, match_at
from tests.test_browser import browser  # noqa: F401 - the shared Chromium fixture

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NAMES = ("Anna", "Bruno", "Carla", "Dario")
WATCH = """
window.__csp = [];
document.addEventListener("securitypolicyviolation", (e) => {
  const where = `${e.sourceFile}:${e.lineNumber}`;
  window.__csp.push(`${e.violatedDirective} blocked ${e.blockedURI} at ${where}`);
});
"""


@pytest.fixture(autouse=True)
def _erase_ledgers():
    """The ledger refuses deletes (its triggers); the test database's flush after this test
    deletes on SQLite: erase the clubs' ledgers first, as deleting a club must."""
    yield
    from clubs.models import Club
    from ledger.services import erase_club_ledger

    for club in Club.objects.all():
        erase_club_ledger(club=club)


@pytest.fixture
def club_night(make_user):
    """A club with a Singapore table (one hand, so a ledger), a drawn Sputo tournament and a
    Spazz'u'mazz game; its admin is also a Django admin."""
    world = make_table(make_user, NAMES)
    club, admin = world["club"], world["admin"]
    admin.is_staff = admin.is_superuser = True
    admin.save()
    players = [world["players"][name] for name in NAMES]
    session = open_table(world, list(NAMES), first=("Anna", "Bruno"), point_value="0.10")
    play(world, session, "Anna", "Bruno")
    tournament = drawn(club, admin, players)
    record_spazzumazz_game(
        club=club, players=players, by=admin, finish_order=[p.pk for p in players]
    )
    base = f"/clubs/{club.slug}"
    return {
        "club page": f"{base}/",
        "members": f"{base}/members/",
        "player page": f"{base}/players/{players[0].pk}/",
        "table": f"{base}/tables/{session.pk}/",
        "hand form": f"{base}/tables/{session.pk}/hands/new/",
        "sheet": f"{base}/tables/{session.pk}/sheet/",
        "tournament": tournament.get_absolute_url(),
        "bracket": f"{tournament.get_absolute_url()}bracket/",
        "match report": match_at(tournament, 1, 1).get_absolute_url(),
        "Spazz'u'mazz quick entry": f"{base}/spazzumazz/new/",
        "Spazz'u'mazz": f"{base}/spazzumazz/",
        "ledger": f"{base}/ledger/",
        "statement": f"{base}/ledger/players/{players[1].pk}/?unit=EUR",
        "API docs": "/api/docs/",
        "Django admin": "/admin/",
    }


def test_the_main_pages_run_under_the_policy_without_a_violation(
    live_server,
    browser,  # noqa: F811
    club_night,
):
    context = browser.new_context(locale="en-GB", viewport={"width": 390, "height": 844})
    context.add_init_script(WATCH)
    page = context.new_page()
    page.set_default_timeout(20000)
    console: list[str] = []
    page.on(
        "console",
        lambda message: console.append(message.text) if message.type == "error" else None,
    )
    page.on("pageerror", lambda error: console.append(str(error)))
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("input[name=username]", "ada")
    page.fill("input[name=password]", PASSWORD)
    page.click("main button[type=submit]")
    page.wait_for_url(f"{live_server.url}/")

    found = {}
    for name, path in club_night.items():
        response = page.goto(f"{live_server.url}{path}", wait_until="load")
        assert response.status == 200, (name, path)
        policy = response.headers["content-security-policy"]
        assert (
            "script-src 'self'" in policy
            and "unsafe-inline" not in policy.split("script-src")[1].split(";")[0]
        ), (name, policy)
        violations = page.evaluate("window.__csp") + console
        console.clear()
        if violations:
            found[name] = violations
    assert found == {}

    # The scripts ran: the print button is shown by site.js, and the full-screen bracket's
    # htmx is loaded and configured not to inject styles.
    page.goto(f"{live_server.url}{club_night['sheet']}")
    assert page.locator("button[data-print]").is_visible()
    page.goto(f"{live_server.url}{club_night['bracket']}")
    assert page.evaluate("htmx.config.includeIndicatorStyles") is False

    # The watch itself works: a style attribute added now is a violation it reports.
    page.evaluate("document.body.insertAdjacentHTML('beforeend', '<p style=\"color: red\">x</p>')")
    page.wait_for_function("window.__csp.length > 0")
    assert "style-src" in page.evaluate("window.__csp")[0]
    context.close()
