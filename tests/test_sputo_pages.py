"""The tournament pages: the bracket (its query count does not grow with the bracket; htmx
gets the bracket alone), reporting from a phone in a few taps, the admin's controls, the
correction's preview, my next match, and the calendar feeds."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from icalendar import Calendar

from matches.models import CalendarFeed, Entrant
from matches.results import steps
from matches.sputo import services
from tests.sputo_world import drawn, make_guests, make_members, match_at, new_tournament, win

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _pages_in_english(client):
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "en"


def bracket_of_size(club, admin, n, name):
    players = make_guests(club, n, prefix=name)
    tournament = new_tournament(club, admin, seeding="random", name=name)
    services.update_tournament(tournament=tournament, by=admin, status="registration")
    Entrant.objects.bulk_create(Entrant(tournament=tournament, player=p) for p in players)
    services.draw_tournament(tournament=tournament, by=admin)
    first = tournament.matches.filter(round=1, result="").select_related("player_a", "player_b")
    for m in list(first)[: n // 4]:
        steps.report_outcome(subject=m, payload=win(m, m.player_a), by=admin)
    return tournament


def queries_for(client, url, **headers):
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url, **headers)
    assert response.status_code == 200
    return len(queries), response


@pytest.mark.parametrize("htmx", [False, True])
def test_the_bracket_page_takes_as_many_queries_for_64_entrants_as_for_8(client, people, htmx):
    club, admin = people["club"], people["admin"]
    client.force_login(people["member"])
    headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}
    counts = {}
    for n in (8, 64):
        tournament = bracket_of_size(club, admin, n, f"T{n}")
        url = f"/clubs/{club.slug}/tournaments/{tournament.pk}/bracket/"
        client.get(url, **headers)  # the member's own cached bits (the bell's count) warm
        counts[n], response = queries_for(client, url, **headers)
        body = response.content.decode()
        assert body.count('class="m ') == n - 1 + 1  # and the third-place match
        assert ("<html" in body) is not htmx
    assert counts[8] == counts[64], counts
    tournament_page = f"/clubs/{club.slug}/tournaments/{tournament.pk}/"
    assert client.get(tournament_page).status_code == 200


def test_the_bracket_marks_byes_walkovers_and_the_matches_being_played(client, people):
    club, admin = people["club"], people["admin"]
    players = make_members(club, 5)
    tournament = drawn(club, admin, players)
    m = match_at(tournament, 1, 1)
    steps.report_outcome(subject=m, payload={"walkover": m.player_a_id}, by=admin)
    client.force_login(players[0].user)
    body = client.get(f"/clubs/{club.slug}/tournaments/{tournament.pk}/").content.decode()
    assert body.count("is-bye") == 3
    assert "walkover" in body and "is-ready" in body
    assert 'hx-trigger="every 10s"' in body
    assert "My next match" in body


def test_a_player_reports_with_a_few_taps_and_the_other_confirms(client, people):
    club, admin = people["club"], people["admin"]
    players = make_members(club, 4)
    tournament = drawn(club, admin, players, best_of=3)
    m = match_at(tournament, 1, 0)
    url = f"/clubs/{club.slug}/tournaments/{tournament.pk}/matches/{m.pk}/"
    client.force_login(m.player_a.user)
    page = client.get(url).content.decode()
    assert 'id="report-form"' in page
    bad = client.post(url + "report/", {"winner_1": m.player_a_id})
    assert bad.status_code == 400 and "How many cards" in bad.content.decode()
    client.post(
        url + "report/",
        {"winner_1": m.player_a_id, "cards_1": 4, "winner_2": m.player_a_id, "cards_2": 2},
    )
    client.force_login(m.player_b.user)
    page = client.get(url).content.decode()
    assert 'id="confirm-button"' in page
    response = client.post(url + "confirm/", follow=True)
    assert "Result confirmed" in response.content.decode()
    assert match_at(tournament, 2, 0).player_a == m.player_a
    again = client.post(url + "confirm/", follow=True)
    assert "no reported result" in again.content.decode()


def test_an_admin_previews_a_correction_then_applies_exactly_that(client, people):
    club, admin = people["club"], people["admin"]
    players = make_members(club, 4)
    tournament = drawn(club, admin, players, third_place=False)
    m = match_at(tournament, 1, 0)
    steps.report_outcome(subject=m, payload=win(m, m.player_a), by=admin)
    client.force_login(admin)
    url = f"/clubs/{club.slug}/tournaments/{tournament.pk}/matches/{m.pk}/"
    preview = client.post(
        url + "correct/",
        {"correct-winner_1": m.player_b_id, "correct-cards_1": 3, "reason": "Sbagliato"},
    )
    body = preview.content.decode()
    assert 'id="correction-preview"' in body
    before, after = m.player_a.display_name, m.player_b.display_name
    assert f"<s>{before} – …: waiting for its players</s> → {after} – …" in body
    assert match_at(tournament, 2, 0).player_a == m.player_a  # nothing changed yet
    import html
    import re

    payload = html.unescape(re.search(r'name="payload" value="([^"]+)"', body).group(1))
    client.post(url + "correct/", {"payload": payload, "reason": "Sbagliato"})
    assert match_at(tournament, 2, 0).player_a == m.player_b


def test_an_admin_runs_a_tournament_from_the_pages(client, people):
    club, admin = people["club"], people["admin"]
    players = make_members(club, 3)
    client.force_login(admin)
    created = client.post(
        f"/clubs/{club.slug}/tournaments/new/",
        {
            "name": "Torneo del venerdì",
            "starts_at": "2030-05-02T21:00",
            "variant": "classic",
            "best_of": 1,
            "seeding": "random",
            "third_place": "on",
        },
    )
    assert created.status_code == 302
    tournament = club.tournaments.get(name="Torneo del venerdì")
    base = f"/clubs/{club.slug}/tournaments/{tournament.pk}/"
    client.post(base + "update/", {"status": "registration"})
    for p in players:
        client.post(base + "entrants/", {"player": p.pk})
    client.post(base + "update/", {"status": "check_in"})
    for p in players[:2]:
        client.post(base + "check-in/", {"player": p.pk})
    client.post(base + "draw/")
    tournament.refresh_from_db()
    assert tournament.status == "running"
    assert tournament.entrants.filter(no_show=True).count() == 1
    page = client.get(base).content.decode()
    assert "Bracket" in page


def test_the_calendar_feeds_answer_without_a_session_and_a_new_token_retires_the_old(
    client, people
):
    club, admin = people["club"], people["admin"]
    players = make_members(club, 2)
    tournament = drawn(club, admin, players)
    client.force_login(players[0].user)
    client.get("/calendar/")
    feed = CalendarFeed.objects.get(user=players[0].user)
    client.logout()
    mine = client.get(f"/calendar/{feed.token}/matches.ics")
    assert mine.status_code == 200 and mine["Content-Type"].startswith("text/calendar")
    events = Calendar.from_ical(mine.content).walk("VEVENT")
    assert [str(e["summary"]) for e in events] == ["Sputo: p01 – p02 (Final)"]
    club_feed = client.get(f"/calendar/{feed.token}/clubs/{club.slug}.ics")
    assert [str(e["summary"]) for e in Calendar.from_ical(club_feed.content).walk("VEVENT")] == [
        f"Sputo: {tournament.name}"
    ]
    assert client.get(f"/calendar/{feed.token}/clubs/{people['other'].slug}.ics").status_code == 404
    old = feed.token
    client.force_login(players[0].user)
    client.post("/calendar/")
    client.logout()
    assert client.get(f"/calendar/{old}/matches.ics").status_code == 404
