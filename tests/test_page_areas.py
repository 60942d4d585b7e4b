"""What a write makes cold (``plumbing.public_pages.changed``): only the areas of the club
it changed, named by the service that wrote them, once it commits. A hand rebuilds its
table, the ledger and the boards, not the bracket or the Spazz'u'mazz games; a write in
one club leaves every other club's pages alone; a refused write changes nothing."""

import pytest
from django.core.exceptions import ValidationError
from django.test import Client
from django.test.utils import override_settings

from clubs import services as clubs
from matches.results import steps
from matches.spazzumazz.services import record_spazzumazz_game
from matches.sputo.models import TournamentMatch
from tests.singapore_helpers import next_names, nights_ago, open_table, play
from tests.sputo_world import win
from tests.test_member_pages import a_club_of_size, member, queries

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("every_visit_asks")]

# A member's kept page: the session and the user, then one cache read; and the club's id by
# its slug, when a change to a club's row made this process forget the ids it knew.
KEPT = 3


@pytest.fixture
def every_visit_asks():
    """No process memory: each visit asks the cache whether its versions moved."""
    with override_settings(PUBLIC_PAGE_RECHECK_SECONDS=0):
        yield


def pages(people, ids) -> dict[str, str]:
    base = f"/clubs/{people['club'].slug}/"
    return {
        "table": f"{base}tables/{ids['table']}/",
        "ledger": f"{base}ledger/",
        "tournament": f"{base}tournaments/{ids['tournament']}/",
        "leaderboards": f"{base}leaderboards/",
        "members": f"{base}members/",
    }


def kept_after(client, paths: dict[str, str], write) -> dict[str, bool]:
    """Each page visited (so kept), then ``write()``, then whether each is still kept."""
    for path in paths.values():
        queries(client, path)
        assert queries(client, path)[0] <= KEPT, path  # kept before the write
    write()
    return {name: queries(client, path)[0] <= KEPT for name, path in paths.items()}


@pytest.fixture
def world(people, django_capture_on_commit_callbacks):
    ids = a_club_of_size(people, 1, django_capture_on_commit_callbacks)
    return ids, pages(people, ids)


def test_a_hand_makes_cold_its_table_the_ledger_and_the_boards_only(
    people, world, django_capture_on_commit_callbacks
):
    ids, paths = world
    club = people["club"]
    table = club.table_sessions.get(pk=ids["table"])
    hands_world = {"club": club, "scorer": people["scorer"], "players": {}}
    hands_world["players"] = {s.player.display_name: s.player for s in table.seats.all()}

    def a_hand():
        with django_capture_on_commit_callbacks(execute=True):
            play(hands_world, table, *next_names(hands_world, table))

    kept = kept_after(member(people), paths, a_hand)
    assert kept == {
        "table": False,
        "ledger": False,  # its posting
        "tournament": True,
        "leaderboards": False,  # the Singapore statistics task bumped the boards
        "members": True,
    }


def test_a_hand_leaves_another_tables_page_alone(people, world, django_capture_on_commit_callbacks):
    ids, paths = world
    club = people["club"]
    names = list(club.players.filter(user__isnull=True).values_list("display_name", flat=True))
    other_world = {"club": club, "scorer": people["scorer"]}
    other_world["players"] = {n: club.players.get(display_name=n) for n in names[:3]}
    with django_capture_on_commit_callbacks(execute=True):
        other = open_table(other_world, names[:3], seed=7, date=nights_ago(1))
    other_path = f"/clubs/{club.slug}/tables/{other.pk}/"

    def a_hand_at_the_other_table():
        with django_capture_on_commit_callbacks(execute=True):
            play(other_world, other, *next_names(other_world, other))

    kept = kept_after(
        member(people), {"first": paths["table"], "other": other_path}, a_hand_at_the_other_table
    )
    assert kept == {"first": True, "other": False}


def test_a_spazzumazz_game_leaves_the_table_the_ledger_and_the_bracket_alone(
    people, world, django_capture_on_commit_callbacks
):
    ids, paths = world
    club = people["club"]
    mia = club.players.get(user=people["member"])
    guest = club.players.get(display_name="Zio Pino")

    def a_game():
        with django_capture_on_commit_callbacks(execute=True):
            record_spazzumazz_game(
                club=club,
                players=[mia, guest],
                by=people["scorer"],
                finish_order=[guest.pk, mia.pk],
            )

    kept = kept_after(member(people), paths, a_game)
    assert kept == {
        "table": True,
        "ledger": True,
        "tournament": True,
        "leaderboards": False,
        "members": True,
    }


def test_a_sputo_result_makes_cold_the_tournament_not_the_table_or_the_ledger(
    people, world, django_capture_on_commit_callbacks
):
    ids, paths = world
    mia = people["club"].players.get(user=people["member"])  # whose pages are visited
    match = (
        TournamentMatch.objects.filter(tournament_id=ids["tournament"], round=1, result="")
        .exclude(player_a=None)
        .exclude(player_b=None)
        .exclude(player_a=mia)  # her own match would change what waits for her: every page
        .exclude(player_b=mia)
        .filter(outcomes__isnull=True)
        .order_by("pk")
        .first()
    )

    def a_result():
        with django_capture_on_commit_callbacks(execute=True):
            steps.report_outcome(
                subject=match, payload=win(match, match.player_a), by=people["admin"]
            )

    kept = kept_after(member(people), paths, a_result)
    assert kept["tournament"] is False
    assert kept["table"] is True and kept["ledger"] is True and kept["members"] is True, kept


def test_the_clubs_own_change_makes_every_page_cold(
    people, world, django_capture_on_commit_callbacks
):
    _ids, paths = world

    def a_guest():
        with django_capture_on_commit_callbacks(execute=True):
            clubs.add_guest(club=people["club"], display_name="Nonna Lina")

    kept = kept_after(member(people), paths, a_guest)
    assert not any(kept.values()), kept


def test_a_write_in_another_club_leaves_this_clubs_pages_alone(
    people, world, django_capture_on_commit_callbacks
):
    _ids, paths = world

    def elsewhere():
        with django_capture_on_commit_callbacks(execute=True):
            clubs.add_guest(club=people["other"], display_name="Nonna Lina")
            clubs.update_club(club=people["other"], city="Napoli")

    kept = kept_after(member(people), paths, elsewhere)
    assert all(kept.values()), kept


def test_a_refused_write_changes_nothing(people, world, django_capture_on_commit_callbacks):
    _ids, paths = world

    def refused():
        with django_capture_on_commit_callbacks(execute=True):
            with pytest.raises(ValidationError):
                clubs.add_guest(club=people["club"], display_name="Zio Pino")  # taken

    kept = kept_after(member(people), paths, refused)
    assert all(kept.values()), kept


def test_a_write_through_the_api_names_its_area_not_every_club(
    people, world, django_capture_on_commit_callbacks
):
    """Before, any logged-in API write (its path names no club) made every club's pages
    cold. Now a payment recorded through the API makes cold this club's ledger alone."""
    from rest_framework.test import APIClient

    _ids, paths = world
    club = people["club"]
    api = APIClient()
    api.force_authenticate(people["admin"])
    mia = club.players.get(user=people["member"])
    guest = club.players.get(display_name="Zio Pino")

    def a_payment():
        with django_capture_on_commit_callbacks(execute=True):
            body = {"club": club.slug, "from": mia.pk, "to": guest.pk, "amount": "1.00"}
            response = api.post("/api/v1/ledger/payments/", {**body, "unit": "EUR"}, format="json")
        assert response.status_code == 201, response.content

    kept = kept_after(member(people), paths, a_payment)
    assert kept == {
        "table": True,
        "ledger": False,
        "tournament": True,
        "leaderboards": True,
        "members": True,
    }


def test_the_public_page_follows_only_its_areas(people, django_capture_on_commit_callbacks):
    club = people["club"]
    path = f"/clubs/{club.slug}/spazzumazz/"
    anonymous = Client(HTTP_ACCEPT_LANGUAGE="en")
    queries(anonymous, path)
    kept = queries(anonymous, path)[0]
    assert kept == 1  # the club's row, then the cache
    with django_capture_on_commit_callbacks(execute=True):
        clubs.create_season(club=club, name="2027", start="2027-01-01", end="2027-12-31")
    assert queries(anonymous, path)[0] > kept  # the club's own change: built again
    mia = club.players.get(user=people["member"])
    guest = club.players.get(display_name="Zio Pino")
    with django_capture_on_commit_callbacks(execute=True):
        record_spazzumazz_game(
            club=club, players=[mia, guest], by=people["scorer"], finish_order=[mia.pk, guest.pk]
        )
    built, html = queries(anonymous, path)
    assert built > kept and "Zio Pino" in html
