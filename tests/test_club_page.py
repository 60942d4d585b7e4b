"""The club page: what the club does, and the sections and tabs the game features add
through the settings (the protocol: ``clubs/club_page.py``)."""

from datetime import date
from types import SimpleNamespace

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext, override_settings

from clubs import club_page, services
from clubs.club_page import Section, Tab
from matches.results.steps import record_game
from tests.parts import only_parts

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _pages_in_english(client):
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "en"


# Providers for the tests, named in the settings as a game feature's would be.


def hidden(request, access):
    return None


def admins_only(request, access):
    if not access.is_admin:
        return None
    return Section(slug="for-admins", title="For admins", empty="Nothing for admins yet.")


def with_content(request, access):
    season = SimpleNamespace(name="Torneo di prova", start=date(2025, 1, 1), end=date(2025, 1, 2))
    return Section(
        slug="content",
        title="Some content",
        template="clubs/sections/seasons.html",
        context={"seasons": [(season, False)]},
        order=5,
    )


def early_empty(request, access):
    return Section(slug="early", title="Early", empty="Nothing early.", order=1)


def game_tab(request, access):
    return Tab(label="Tornei", url=f"/clubs/{access.club.slug}/tornei/", order=50)


def test_the_page_says_what_the_club_does_where_and_when(client, people):
    services.update_club(
        club=people["club"],
        description="Sputo e Singapore tra amici.",
        venue="Bar Roma, via Po 3",
        meeting_times="Il venerdì dalle 21",
    )
    html = client.get("/clubs/circolo-alfa/").content.decode()
    for words in [
        "Sputo e Singapore tra amici.",
        "Bar Roma, via Po 3, Roma",
        "Il venerdì dalle 21",
    ]:
        assert words in html


def test_the_game_features_have_their_places_saying_honestly_that_there_is_nothing_yet(
    client, people
):
    response = client.get("/clubs/circolo-alfa/")
    empty = {s.slug: s.section.empty for s in response.context["empty_sections"]}
    # Singapore tables are for the club's members: the public sees no place for them.
    assert empty == {
        "tournaments": "No tournament running or open.",
        "spazzumazz": "No Spazz'u'mazz games yet.",
    }
    # No games recorded: the recent games are hidden, not shown empty.
    assert "recent-games" not in {s.slug for s in response.context["sections"]}
    client.force_login(people["member"])
    response = client.get("/clubs/circolo-alfa/")
    empty = {s.slug: s.section.empty for s in response.context["empty_sections"]}
    assert empty["tables"] == "No table is open."


def test_recent_games_show_who_played_under_their_current_names(client, people):
    club, pino = people["club"], people["guest"]
    mia = club.players.get(user=people["member"])
    record_game(
        club=club,
        record={"game": "spazzumazz", "players": ["Pino", "mia"], "finish_order": ["mia", "Pino"]},
        players={"Pino": pino, "mia": mia},
    )
    services.rename_player(player=pino, display_name="Zio Peppino")
    html = client.get("/clubs/circolo-alfa/").content.decode()
    section = html.split('id="section-recent-games"', 1)[1].split("</section>", 1)[0]
    assert "Spazz&#x27;u&#x27;mazz" in section
    assert "mia, Zio Peppino" in section


@pytest.mark.parametrize("role, shown", [("member", ["early"]), ("admin", ["early", "for-admins"])])
def test_sections_come_from_the_apps_each_deciding_what_a_role_sees(
    client, people, role, shown, monkeypatch
):
    only_parts(monkeypatch, "club_sections", (hidden, admins_only, early_empty, with_content))
    client.force_login(people[role])
    response = client.get("/clubs/circolo-alfa/")
    assert [s.slug for s in response.context["sections"]] == ["content", *shown]
    assert [s.slug for s in response.context["empty_sections"]] == shown
    html = response.content.decode()
    assert "Torneo di prova" in html.split('id="section-content"', 1)[1]


@pytest.mark.parametrize(
    "role, labels",
    [
        (None, ["Overview", "Tornei"]),
        ("member", ["Overview", "Members", "Tornei"]),
        ("admin", ["Overview", "Members", "Tornei", "Settings"]),
    ],
)
def test_tabs_come_from_the_apps_in_order_each_for_the_roles_that_may_open_it(
    client, people, role, labels, monkeypatch
):
    tabs = (club_page.overview_tab, club_page.members_tab, club_page.settings_tab, game_tab)
    only_parts(monkeypatch, "club_tabs", tabs)
    if role:
        client.force_login(people[role])
    html = client.get("/clubs/circolo-alfa/").content.decode()
    nav = html.split('class="tabs"', 1)[1].split("</nav>", 1)[0]
    assert [label for label in labels if label in nav] == labels
    assert nav.index(labels[0]) < nav.index(labels[-1])


def test_the_current_tab_is_marked_on_the_pages_under_it(client, people):
    client.force_login(people["admin"])
    html = client.get("/clubs/circolo-alfa/members/").content.decode()
    assert 'class="current" aria-current="page">Members<' in html
    html = client.get(f"/clubs/circolo-alfa/members/guests/{people['guest'].pk}/remove/")
    assert 'aria-current="page">Members<' in html.content.decode()


def play_many(club, players, n):
    for i in range(n):
        a, b = players[i % len(players)], players[(i + 1) % len(players)]
        record_game(
            club=club,
            record={"game": "spazzumazz", "players": ["A", "B"], "finish_order": ["A", "B"]},
            players={"A": a, "B": b},
        )


def count_queries(client, path):
    cache.clear()  # cold: sections may cache their figures (Spazz'u'mazz's does)
    with CaptureQueriesContext(connection) as queries:
        assert client.get(path).status_code == 200
    return len(queries)


@override_settings(MEMBER_PAGE_SECONDS=0)  # the page as built, not as kept for the member
def test_the_club_page_runs_as_many_queries_for_a_big_club_as_for_a_small_one(
    client, people, make_user
):
    club = people["club"]
    client.force_login(people["admin"])
    players = list(club.players.all())
    play_many(club, players, 2)
    small = count_queries(client, "/clubs/circolo-alfa/")
    for n in range(15):
        services.add_member(club=club, user=make_user(f"socio{n}"))
        services.add_guest(club=club, display_name=f"Ospite {n}")
    services.create_season(club=club, name="Una", start=date(2024, 1, 1), end=date(2024, 2, 1))
    services.create_season(club=club, name="Due", start=date(2024, 3, 1), end=date(2024, 4, 1))
    play_many(club, list(club.players.all()), 12)
    assert count_queries(client, "/clubs/circolo-alfa/") == small
