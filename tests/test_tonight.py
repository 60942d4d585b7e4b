"""Tonight at the club: the page, who sees what, its constant number of
queries, the home page's "tonight at your clubs", and the live stream."""

import threading
import time
import urllib.request

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from clubs import services as clubs
from matches.boards import live
from matches.results import steps
from matches.spazzumazz.services import record_spazzumazz_game
from tests.singapore_helpers import make_table, open_table, play
from tests.sputo_world import drawn, make_members, match_at, win

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(make_user):
    world = make_table(make_user, names=("Anna", "Bruno", "Carla", "Dario"))
    return world


def _night(world, *, tables=1, tournaments=1, games=2, label="a"):
    club, admin = world["club"], world["admin"]
    names = ["Anna", "Bruno", "Carla", "Dario"]
    sessions = []
    for n in range(tables):
        # Nobody sits at two open tables of one night: the first table is Anna's, the
        # others are other people's.
        seated = names if (label, n) == ("a", 0) else [f"{name} {label}{n}" for name in names]
        for name in seated:
            if name not in world["players"]:
                world["players"][name] = clubs.add_guest(club=club, display_name=name)
        session = open_table(world, seated, first=seated[:2], point_value="0.50")
        session.name = f"Tavolo {n + 1}"
        session.save(update_fields=["name"])
        play(world, session, *seated[:2])  # the first stays and deals; the third's turn
        sessions.append(session)
    for n in range(tournaments):
        players = make_members(club, 4, prefix=f"{label}{n}x")
        tournament = drawn(club, admin, players, name=f"Torneo {n + 1}")
        first = match_at(tournament, 1, 0)
        steps.take("report", subject=first, by=admin, payload=win(first, first.player_a))
    players = [world["players"][name] for name in names]
    for n in range(games):
        order = players[n % 4 :] + players[: n % 4]
        record_spazzumazz_game(
            club=club, players=order, by=admin, finish_order=[p.pk for p in order]
        )
    return sessions


def test_a_member_sees_each_tables_next_dealer_and_opponent_by_name_and_the_balances(world, client):
    _night(world)
    client.force_login(world["users"]["Carla"])
    response = client.get(f"/clubs/{world['club'].slug}/tonight/", HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 200
    page = response.content.decode()
    assert "<strong>Anna</strong> deals against <strong>Carla</strong>" in page
    assert "Torneo 1" in page and "Spazz&#x27;u&#x27;mazz" in page
    assert 'class="num">+' in page  # the night's running balance per seat
    assert "Tavolo 1: Anna beats Bruno" in page or "Torneo 1" in page


def test_the_screen_and_the_public_see_no_money(world, client):
    _night(world)
    club = world["club"]
    client.force_login(world["users"]["Carla"])
    screen = client.get(f"/clubs/{club.slug}/tonight/?screen=1").content.decode()
    assert "deals against" in screen or "dà le carte" in screen
    assert 'class="num">+' not in screen
    client.logout()
    clubs.update_club(club=club, is_public=False)
    assert client.get(f"/clubs/{club.slug}/tonight/").status_code == 404  # a private club
    clubs.update_club(club=club, is_public=True)
    public = client.get(f"/clubs/{club.slug}/tonight/", HTTP_ACCEPT_LANGUAGE="en")
    assert public.status_code == 200
    page = public.content.decode()
    assert "<strong>Anna</strong> deals against <strong>Carla</strong>" in page
    assert 'class="num">+' not in page


def test_the_page_takes_the_same_queries_whatever_the_nights_size(world, client, make_user):
    client.force_login(world["admin"])
    url = f"/clubs/{world['club'].slug}/tonight/"
    _night(world, tables=1, tournaments=1, games=1)
    client.get(url)
    with CaptureQueriesContext(connection) as small:
        assert client.get(url).status_code == 200
    _night(world, tables=3, tournaments=2, games=6, label="b")
    with CaptureQueriesContext(connection) as large:
        assert client.get(url).status_code == 200
    assert len(large) == len(small), [q["sql"] for q in large.captured_queries]


def test_a_long_nights_tally_counts_every_game_and_shows_the_last_ones(world):
    """The tally and the count are the whole night's; the games listed the last eight."""
    from django.utils import timezone

    from matches.boards import night_of
    from matches.spazzumazz import tonight
    from matches.spazzumazz.boards import games_of_night, night_rows

    _night(world, tables=0, tournaments=0, games=11)
    club, night = world["club"], night_of(timezone.now())
    pane = tonight.tonight_pane(club, night=night, sees_money=False)
    every = list(games_of_night(club, night).order_by("-played_at", "-pk"))
    assert len(every) == 11
    rows, tally = night_rows(every)
    assert pane.context["tally"] == tally  # the database's count is the rows' own
    assert sum(n for _name, n in tally) == 11
    shown = [row["game"].pk for row in pane.context["games"]]
    assert shown == [game.pk for game in every[: tonight.SHOWN]]
    assert pane.context["more"] == 11 - tonight.SHOWN


def test_the_panes_are_built_once_for_all_who_see_them_alike_until_a_game_moves(
    world, client, django_capture_on_commit_callbacks
):
    """A second member reads the panes the first one's request built; a game recorded
    after them shows at once; the screen and the public never get the members' money."""
    from django.test import Client

    _night(world, games=1)
    club, url = world["club"], f"/clubs/{world['club'].slug}/tonight/"
    first, second = Client(), Client()
    first.force_login(world["users"]["Carla"])
    second.force_login(world["users"]["Dario"])
    with CaptureQueriesContext(connection) as built:
        assert first.get(url, HTTP_ACCEPT_LANGUAGE="en").status_code == 200
    with CaptureQueriesContext(connection) as kept:
        page = second.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert len(kept) < len(built) - 5, [q["sql"] for q in kept.captured_queries]
    assert 'class="num">+' in page and "1 game tonight" in page
    screen = second.get(f"{url}?screen=1", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert 'class="num">+' not in screen and "1 game tonight" in screen
    players = [world["players"][name] for name in ("Anna", "Bruno", "Carla")]
    with django_capture_on_commit_callbacks(execute=True):
        record_spazzumazz_game(
            club=club, players=players, by=world["admin"], finish_order=[p.pk for p in players]
        )
    for reader in (second, first):
        page = reader.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
        assert "2 games tonight" in page
    panes = second.get(f"{url}?panes=1&screen=1", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert panes.startswith('<div id="tonight-panes">') and "2 games tonight" in panes
    assert 'class="num">+' not in panes


def test_the_home_page_shows_a_member_tonight_at_their_clubs(world, client):
    _night(world, tables=1, tournaments=0, games=2)
    client.force_login(world["users"]["Anna"])
    page = client.get("/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Your clubs" in page and "Tonight: " in page
    assert "1 table open · 2 Spazz'u'mazz games" in page
    assert f"/clubs/{world['club'].slug}/tonight/" in page


def test_a_step_moves_the_tonight_version_after_commit(world, django_capture_on_commit_callbacks):
    session = _night(world, tables=1, tournaments=0, games=0)[0]
    before = live.version(world["club"].pk)
    with django_capture_on_commit_callbacks(execute=True):
        play(world, session, "Anna", "Carla")
    assert live.version(world["club"].pk) > before


def test_the_stream_is_for_those_who_see_the_page(world, client):
    club = world["club"]
    clubs.update_club(club=club, is_public=False)
    assert client.get(f"/clubs/{club.slug}/tonight/events/").status_code == 404
    client.force_login(world["users"]["Anna"])
    live.publish(club.pk)
    response = client.get(f"/clubs/{club.slug}/tonight/events/?since=0", HTTP_LAST_EVENT_ID="0")
    assert response["Content-Type"] == "text/event-stream"
    first = b""
    for chunk in response.streaming_content:
        first += chunk
        if b"event: changed" in first:
            break
    assert b"retry: 1000" in first and b"event: changed" in first
    response.close()


@pytest.mark.django_db(transaction=True)
def test_a_screen_hears_of_a_result_within_two_seconds_of_its_commit(live_server, make_user):
    world = make_table(make_user, names=("Anna", "Bruno", "Carla"))
    club = world["club"]
    clubs.update_club(club=club, is_public=True)
    session = open_table(world, ["Anna", "Bruno", "Carla"], first=("Anna", "Bruno"))
    heard = []
    opened = threading.Event()

    def listen():
        url = f"{live_server.url}/clubs/{club.slug}/tonight/events/"
        with urllib.request.urlopen(url, timeout=10) as stream:
            for line in stream:
                opened.set()
                if line.startswith(b"event: changed"):
                    heard.append(time.monotonic())
                    return

    listener = threading.Thread(target=listen, daemon=True)
    listener.start()
    assert opened.wait(5)
    time.sleep(0.3)
    play(world, session, "Anna", "Bruno")  # committed: the outbox runs the task after commit
    committed = time.monotonic()
    listener.join(5)
    assert heard, "no event within 5 s"
    assert heard[0] - committed < 2.0
