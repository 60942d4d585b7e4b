"""Fast for members: what every member sees of a club's pages is kept once per club state
(``plumbing.public_pages.shared``) and only the member's own part is read per request, so each
member page runs at most 8 queries whatever the club's size; a write request shows at once;
a failing cache builds the page."""

from decimal import Decimal

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from redis.exceptions import ConnectionError as RedisConnectionError

import plumbing.public_pages as public_pages
from clubs import services as clubs
from clubs.models import Role
from ledger import services as ledger
from matches.models import Entrant
from matches.results import steps
from matches.spazzumazz.services import record_spazzumazz_game
from matches.sputo import services as sputo
from tests.singapore_helpers import next_names, open_table, play
from tests.sputo_world import make_guests, new_tournament, win

pytestmark = pytest.mark.django_db

MOST_QUERIES = 8
PAGES = ["", "tables/{table}/", "ledger/", "tournaments/{tournament}/", "leaderboards/"]
PAGES += ["players/{player}/"]


def a_club_of_size(people, n: int, capture) -> dict:
    """The people's club with ``n`` times as much of everything: guests, a Singapore table
    (with points worth money, so a ledger), hands, Spazz'u'mazz games and a tournament."""
    club, admin, scorer = people["club"], people["admin"], people["scorer"]
    mia = club.players.get(user=people["member"])
    guests = make_guests(club, 8 * n, prefix=f"Ospite{n}")
    world = {"club": club, "scorer": scorer, "players": {"mia": mia}}
    world["players"].update({g.display_name: g for g in guests[:3]})
    with capture(execute=True):
        table = open_table(world, list(world["players"]), point_value="0.10", seed=n)
        for _ in range(3 * n):
            dealer, opponent = next_names(world, table)
            play(world, table, dealer, opponent)
        for guest in guests[: 2 * n]:
            record_spazzumazz_game(
                club=club, players=[mia, guest], by=scorer, finish_order=[mia.pk, guest.pk]
            )
        tournament = new_tournament(club, admin, seeding="random", name=f"Torneo {n}")
        sputo.update_tournament(tournament=tournament, by=admin, status="registration")
        entrants = [mia, *guests[: 8 * n - 1]]
        Entrant.objects.bulk_create(Entrant(tournament=tournament, player=p) for p in entrants)
        sputo.draw_tournament(tournament=tournament, by=admin)
        first = (
            tournament.matches.filter(round=1, result="")
            .exclude(player_a=mia)
            .exclude(player_b=mia)  # mia's match stays to play: her next match
            .select_related("player_a", "player_b")
            .order_by("position")
        )
        for match in list(first)[: 2 * n - 1]:
            steps.report_outcome(subject=match, payload=win(match, match.player_a), by=admin)
    return {"table": table.pk, "tournament": tournament.pk, "player": mia.pk}


def member(people) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(people["member"])
    return client


def queries(client, path: str) -> tuple[int, str]:
    with CaptureQueriesContext(connection) as captured:
        response = client.get(path)
    assert response.status_code == 200, path
    return len(captured), response.content.decode()


@pytest.mark.parametrize("size", [1, 4])
@pytest.mark.parametrize("page", PAGES)
def test_a_member_page_runs_at_most_8_queries_whatever_the_clubs_size(
    people, django_capture_on_commit_callbacks, size, page
):
    ids = a_club_of_size(people, size, django_capture_on_commit_callbacks)
    path = f"/clubs/{people['club'].slug}/" + page.format(**ids)
    client = member(people)
    queries(client, path)  # the first member's request keeps what every member sees
    count, _html = queries(client, path)
    assert count <= MOST_QUERIES


def test_each_member_gets_their_own_part_of_a_kept_page(
    people, django_capture_on_commit_callbacks, make_user
):
    ids = a_club_of_size(people, 1, django_capture_on_commit_callbacks)
    club = people["club"]
    bea = make_user("bea")
    clubs.add_member(club=club, user=bea, role=Role.MEMBER)
    path = f"/clubs/{club.slug}/tables/{ids['table']}/"
    assert "Sit at this table" not in queries(member(people), path)[1]  # mia sits there
    other = Client(HTTP_ACCEPT_LANGUAGE="en")
    other.force_login(bea)
    count, html = queries(other, path)
    assert "Sit at this table" in html and count <= MOST_QUERIES


def test_the_club_page_shows_my_next_match_live_and_the_tournaments_kept(
    people, django_capture_on_commit_callbacks
):
    a_club_of_size(people, 1, django_capture_on_commit_callbacks)
    path = f"/clubs/{people['club'].slug}/"
    html = queries(member(people), path)[1]
    assert 'id="my-next-match"' in html and 'id="section-tournaments"' in html
    scorer = Client(HTTP_ACCEPT_LANGUAGE="en")
    scorer.force_login(people["scorer"])  # not entered: no next match, the same tournaments
    html = queries(scorer, path)[1]
    assert 'id="my-next-match"' not in html and 'id="section-tournaments"' in html


def test_a_write_request_shows_at_once_to_every_member(people, django_capture_on_commit_callbacks):
    ids = a_club_of_size(people, 1, django_capture_on_commit_callbacks)
    club = people["club"]
    path = f"/clubs/{club.slug}/tables/{ids['table']}/"
    scorer = Client(HTTP_ACCEPT_LANGUAGE="en")
    scorer.force_login(people["scorer"])
    assert "Nonna Lina" not in queries(scorer, path)[1]  # kept
    admin = Client(HTTP_ACCEPT_LANGUAGE="en")
    admin.force_login(people["admin"])
    with django_capture_on_commit_callbacks(execute=True):  # committed, as on a server
        response = admin.post(f"/clubs/{club.slug}/members/guests/", {"display_name": "Nonna Lina"})
    assert response.status_code == 302
    assert "Nonna Lina" in queries(scorer, path)[1]  # a scorer may seat her: built again


class BrokenCache:
    """A cache backend that raises on every call (one that is not the forgiving Redis)."""

    def __getattr__(self, name):
        def down(*args, **kwargs):
            raise RedisConnectionError("Redis is down")

        return down


def test_a_failing_cache_builds_the_member_pages(
    people, django_capture_on_commit_callbacks, monkeypatch
):
    ids = a_club_of_size(people, 1, django_capture_on_commit_callbacks)
    monkeypatch.setattr(public_pages, "django_cache", BrokenCache())
    client = member(people)
    for page in PAGES[:4]:
        path = f"/clubs/{people['club'].slug}/" + page.format(**ids)
        queries(client, path)
        assert queries(client, path)[0] > 3  # built from the database again, never a 500


def test_an_anonymous_post_keeps_what_the_members_see(people, django_capture_on_commit_callbacks):
    ids = a_club_of_size(people, 1, django_capture_on_commit_callbacks)
    club = people["club"]
    path = f"/clubs/{club.slug}/tables/{ids['table']}/"
    scorer = Client(HTTP_ACCEPT_LANGUAGE="en")
    scorer.force_login(people["scorer"])
    queries(scorer, path)
    clubs.add_guest(club=club, display_name="Nonna Lina")  # not committed: no bump
    failed = Client().post("/accounts/login/", {"username": "sam", "password": "wrong"})
    assert failed.status_code == 200
    assert "Nonna Lina" not in queries(scorer, path)[1]  # still the kept rows


def test_a_write_request_shows_at_once_to_the_public_too(
    people, django_capture_on_commit_callbacks
):
    club = people["club"]
    path = f"/clubs/{club.slug}/"
    assert "1 guest" in Client(HTTP_ACCEPT_LANGUAGE="en").get(path).content.decode()  # kept
    admin = Client(HTTP_ACCEPT_LANGUAGE="en")
    admin.force_login(people["admin"])
    with django_capture_on_commit_callbacks(execute=True):
        response = admin.post(f"/clubs/{club.slug}/members/guests/", {"display_name": "Nonna Lina"})
    assert response.status_code == 302
    assert "2 guests" in Client(HTTP_ACCEPT_LANGUAGE="en").get(path).content.decode()


def test_what_waits_for_one_scorer_is_never_kept_for_another(people, committed, make_user):
    club = people["club"]
    sara = make_user("sara")
    clubs.add_member(club=club, user=sara, role=Role.SCORER)
    mia, sam = (club.players.get(user=people[who]) for who in ("member", "scorer"))
    committed(
        lambda: ledger.record_payment(
            club=club, payer=mia, payee=sam, amount=Decimal("2"), unit="EUR", by=people["member"]
        )
    )
    path = f"/clubs/{club.slug}/"
    scorer = Client(HTTP_ACCEPT_LANGUAGE="en")
    scorer.force_login(people["scorer"])
    assert "paid you 2.00 EUR" in queries(scorer, path)[1]  # the scorers' sections are kept
    other = Client(HTTP_ACCEPT_LANGUAGE="en")
    other.force_login(sara)
    html = queries(other, path)[1]
    assert 'id="section-waiting"' not in html and "paid you" not in html
