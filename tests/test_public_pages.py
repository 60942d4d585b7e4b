"""Whole pages for the public (``plumbing/public_pages.py``): a public club's page, leaderboards
and player pages as an anonymous visitor sees them come from the cache, in no query at all
within a second and in one query after, each visitor with their own CSRF token; anyone
logged in gets the live page; a private club is never answered from the cache; a change to
the club or a result shows at once."""

import re

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext, override_settings

from clubs import services
from clubs.models import Club
from matches.spazzumazz.services import record_spazzumazz_game

pytestmark = pytest.mark.django_db

PAGES = ["", "leaderboards/", "players/{player}/", "spazzumazz/"]


@pytest.fixture
def club(people):
    return people["club"]


def url(club, page: str, people) -> str:
    return f"/clubs/{club.slug}/" + page.format(player=people["guest"].pk)


def queries(client, path: str, status: int = 200) -> tuple[int, str]:
    with CaptureQueriesContext(connection) as captured:
        response = client.get(path)
    assert response.status_code == status
    return len(captured), response.content.decode()


def play(club, people, django_capture_on_commit_callbacks):
    table = [club.players.get(user=people["member"]), people["guest"]]
    with django_capture_on_commit_callbacks(execute=True):
        record_spazzumazz_game(
            club=club, players=table, by=people["scorer"], finish_order=[p.pk for p in table]
        )


@pytest.mark.parametrize("page", PAGES)
def test_an_anonymous_visitor_gets_the_page_from_the_cache_in_no_query(club, people, page):
    path = url(club, page, people)
    cold, html = queries(Client(), path)
    assert cold > 1
    warm, again = queries(Client(), path)
    assert warm == 0
    token = 'name="csrfmiddlewaretoken" value="'
    assert again.split(token)[0] == html.split(token)[0]


@override_settings(PUBLIC_PAGE_RECHECK_SECONDS=0)
@pytest.mark.parametrize("page", PAGES)
def test_without_the_processes_memory_each_request_checks_the_club_in_one_query(club, people, page):
    path = url(club, page, people)
    queries(Client(), path)
    assert queries(Client(), path)[0] == 1


@pytest.mark.parametrize("page", PAGES)
def test_each_visitor_gets_their_own_working_csrf_token(club, people, page):
    path = url(club, page, people)
    Client().get(path)
    tokens = set()
    for _ in range(2):
        visitor = Client(enforce_csrf_checks=True)
        html = visitor.get(path).content.decode()
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html).group(1)
        assert "csrf-hole" not in html
        tokens.add(token)
        switched = visitor.post(
            "/i18n/setlang/", {"language": "en", "next": path, "csrfmiddlewaretoken": token}
        )
        assert switched.status_code == 302
    assert len(tokens) == 2


@pytest.mark.parametrize("role", ["member", "scorer", "admin", "outsider"])
def test_someone_logged_in_gets_the_live_page_never_the_publics(client, club, people, role):
    Client().get(f"/clubs/{club.slug}/")  # the public's page, now in the cache
    client.force_login(people[role])
    count, html = queries(client, f"/clubs/{club.slug}/")
    assert count > 1
    assert people[role].username in html  # their own header (log out, as them)
    members_only = 'id="section-tables"'  # Singapore's tables: for members only
    assert (members_only in html) == (role != "outsider")
    public, anonymous = queries(Client(), f"/clubs/{club.slug}/")
    assert public == 0
    assert members_only not in anonymous and people[role].username not in anonymous


def test_nothing_a_member_sees_is_kept_for_the_public(client, club, people):
    client.force_login(people["member"])
    assert 'id="section-tables"' in client.get(f"/clubs/{club.slug}/").content.decode()
    count, html = queries(Client(), f"/clubs/{club.slug}/")
    assert count > 1  # built for the public, not taken from the member's
    assert 'id="section-tables"' not in html and "mia" not in html.split("<main")[0]


@pytest.mark.parametrize("page", PAGES)
def test_a_club_turning_private_is_not_found_at_once(club, people, page):
    path = url(club, page, people)
    Client().get(path)
    services.update_club(club=club, is_public=False)
    assert Client().get(path).status_code == 404


@override_settings(PUBLIC_PAGE_RECHECK_SECONDS=0)
def test_a_club_made_private_behind_the_models_back_is_not_found_at_once(club, people):
    Client().get(f"/clubs/{club.slug}/")
    Club.objects.filter(pk=club.pk).update(is_public=False)  # no signal: the check sees it
    assert Client().get(f"/clubs/{club.slug}/").status_code == 404


def test_a_private_clubs_page_is_never_cached(people):
    private = people["other"]
    for _ in range(2):
        assert Client().get(f"/clubs/{private.slug}/").status_code == 404


def test_a_change_to_the_club_shows_at_once(club, people):
    Client().get(f"/clubs/{club.slug}/")
    services.update_club(club=club, meeting_times="Il giovedì sera")
    assert "Il giovedì sera" in Client().get(f"/clubs/{club.slug}/").content.decode()


@override_settings(PUBLIC_PAGE_RECHECK_SECONDS=0)
def test_a_change_to_the_club_shows_at_once_in_the_other_processes_too(club, people):
    Client().get(f"/clubs/{club.slug}/")
    Club.objects.filter(pk=club.pk).update(meeting_times="Il giovedì sera")
    assert "Il giovedì sera" in Client().get(f"/clubs/{club.slug}/").content.decode()


def test_a_result_shows_at_once(club, people, django_capture_on_commit_callbacks):
    before = Client().get(f"/clubs/{club.slug}/").content.decode()
    assert 'id="section-recent-games"' not in before
    play(club, people, django_capture_on_commit_callbacks)
    assert 'id="section-recent-games"' in Client().get(f"/clubs/{club.slug}/").content.decode()


def test_other_changes_reach_the_public_when_the_page_expires(club, people):
    def page():
        return Client(HTTP_ACCEPT_LANGUAGE="en").get(f"/clubs/{club.slug}/").content.decode()

    assert "1 guest" in page()
    services.add_guest(club=club, display_name="Nonna Lina")
    assert "1 guest" in page()  # until the page expires (PUBLIC_PAGE_SECONDS)
    with override_settings(PUBLIC_PAGE_SECONDS=0):
        assert "2 guests" in page()


@pytest.mark.parametrize(
    "cookies, headers",
    [({"sessionid": "whatever"}, {}), ({"messages": "x"}, {}), ({}, {"HTTP_HX_REQUEST": "true"})],
)
def test_a_visitor_with_a_session_messages_or_htmx_gets_the_live_page(
    club, people, cookies, headers
):
    path = f"/clubs/{club.slug}/"
    assert "1 guest" in Client(HTTP_ACCEPT_LANGUAGE="en").get(path).content.decode()
    services.add_guest(club=club, display_name="Nonna Lina")  # the kept page says 1 guest
    visitor = Client(HTTP_ACCEPT_LANGUAGE="en", **headers)
    visitor.cookies.load(cookies)
    assert "2 guests" in queries(visitor, path)[1]
