"""No traps at the table: what cannot be undone asks first, on a page
that works without JavaScript (GET changes nothing, POST does); a table closed by mistake
is reopened the same night; a Spazz'u'mazz game is corrected by tapping the players, never
by typing ids; entrants come in many at once, with guests made on the fly by name."""

from datetime import timedelta

import pytest
from django.utils import timezone

from clubs.models import Player
from matches.models import Entrant, OutcomeStatus, SpazzumazzGame, TableSession, Tournament
from matches.results import steps
from matches.singapore import services as singapore
from matches.spazzumazz.services import record_spazzumazz_game
from matches.sputo import services as sputo
from matches.sputo.forms import ResultForm
from tests.singapore_helpers import make_table, open_table, play
from tests.sputo_world import drawn, make_members, match_at, new_tournament, win

pytestmark = pytest.mark.django_db


@pytest.fixture
def client(client):
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "en"
    return client


def logged_in(client, user):
    client.force_login(user)
    return client


# --- The walkover / retirement / double forfeit choices ---------------------------------------


def test_the_other_results_are_radio_buttons_each_named_once(people):
    club, admin = people["club"], people["admin"]
    players = make_members(club, 2)
    match = match_at(drawn(club, admin, players), 1, 0)
    html = str(ResultForm(match=match)["other"])
    assert html.count('type="radio"') == 6
    walkover = f"{players[0].display_name} wins by walkover"
    assert html.count(walkover) == 1
    assert "<option" not in html


def test_a_walkover_chosen_on_the_match_page_is_the_result(client, people):
    club, admin = people["club"], people["admin"]
    players = make_members(club, 2)
    tournament = drawn(club, admin, players)
    match = match_at(tournament, 1, 0)
    url = f"/clubs/{club.slug}/tournaments/{tournament.pk}/matches/{match.pk}/"
    response = logged_in(client, admin).post(f"{url}report/", {"other": "walkover_b"})
    assert response.status_code == 302
    match.refresh_from_db()
    assert match.winner_id == match.player_b_id
    assert match.result == "walkover"


def test_a_dispute_is_decided_with_a_walkover_chosen_on_the_page(client, people):
    club, admin = people["club"], people["admin"]
    players = make_members(club, 2)
    tournament = drawn(club, admin, players)
    match = match_at(tournament, 1, 0)
    steps.report_outcome(subject=match, payload=win(match, match.player_a), by=players[0].user)
    steps.dispute_outcome(subject=match, by=players[1].user, reason="Non ho giocato")
    url = f"/clubs/{club.slug}/tournaments/{tournament.pk}/matches/{match.pk}/decide/"
    response = logged_in(client, admin).post(
        url, {"uphold": "no", "decide-other": "walkover_b", "note": "Assente"}
    )
    assert response.status_code == 302
    match.refresh_from_db()
    assert (match.result, match.winner_id) == ("walkover", match.player_b_id)


# --- Cancelling a tournament ------------------------------------------------------------------


def test_cancelling_a_running_tournament_says_what_is_lost_and_changes_nothing_on_get(
    client, people
):
    club, admin = people["club"], people["admin"]
    players = make_members(club, 4)
    tournament = drawn(club, admin, players)
    first = match_at(tournament, 1, 0)
    steps.report_outcome(subject=first, payload=win(first, first.player_a), by=admin)
    second = match_at(tournament, 1, 1)
    steps.report_outcome(subject=second, payload=win(second, second.player_a), by=players[2].user)
    url = f"/clubs/{club.slug}/tournaments/{tournament.pk}/cancel/"
    page = logged_in(client, admin).get(url)
    assert page.status_code == 200
    lost = page.context["lost"]
    assert lost[0].startswith("1 match played")
    assert any("still to play" in item for item in lost)
    assert any(item.startswith("1 result reported") for item in lost)
    assert 'id="lost"' in page.content.decode()
    tournament.refresh_from_db()
    assert tournament.status == "running"

    done = client.post(url)
    assert done.status_code == 302
    tournament.refresh_from_db()
    assert tournament.status == "cancelled"


def test_the_status_form_does_not_cancel_without_the_confirmation(client, people):
    club, admin = people["club"], people["admin"]
    tournament = new_tournament(club, admin)
    response = logged_in(client, admin).post(
        f"/clubs/{club.slug}/tournaments/{tournament.pk}/update/", {"status": "cancelled"}
    )
    assert response["Location"] == f"/clubs/{club.slug}/tournaments/{tournament.pk}/cancel/"
    tournament.refresh_from_db()
    assert tournament.status == "draft"


def test_only_an_admin_may_open_the_cancellation(client, people):
    club, admin = people["club"], people["admin"]
    tournament = new_tournament(club, admin)
    url = f"/clubs/{club.slug}/tournaments/{tournament.pk}/cancel/"
    assert logged_in(client, people["scorer"]).get(url).status_code == 403
    assert client.post(url).status_code == 403
    assert Tournament.objects.get(pk=tournament.pk).status == "draft"


# --- Withdrawing an entry ---------------------------------------------------------------------


def test_withdrawing_an_entry_asks_first(client, people):
    club, admin = people["club"], people["admin"]
    tournament = new_tournament(club, admin)
    sputo.update_tournament(tournament=tournament, by=admin, status="registration")
    entrant = sputo.add_entrant(tournament=tournament, player=people["guest"], by=admin)
    url = f"/clubs/{club.slug}/tournaments/{tournament.pk}/entrants/{entrant.pk}/withdraw/"
    page = logged_in(client, people["scorer"]).get(url)
    assert page.status_code == 200
    assert "Withdraw Zio Pino from" in page.content.decode()
    assert Entrant.objects.filter(pk=entrant.pk).exists()
    assert client.post(url).status_code == 302
    assert not Entrant.objects.filter(pk=entrant.pk).exists()


def test_after_the_draw_a_scorer_is_told_to_report_a_walkover(client, people):
    club, admin = people["club"], people["admin"]
    players = make_members(club, 2)
    tournament = drawn(club, admin, players)
    entrant = tournament.entrants.first()
    url = f"/clubs/{club.slug}/tournaments/{tournament.pk}/entrants/{entrant.pk}/withdraw/"
    page = logged_in(client, people["scorer"]).get(url)
    assert "report a walkover" in page.content.decode()
    refused = client.post(url)
    assert refused.status_code == 200
    assert "report a walkover instead" in refused.content.decode()
    assert Entrant.objects.filter(pk=entrant.pk).exists()


def test_after_the_draw_an_admin_withdraws_a_player_by_a_walkover_asked_first(client, people):
    club, admin = people["club"], people["admin"]
    players = make_members(club, 4)
    tournament = drawn(club, admin, players)
    match = match_at(tournament, 1, 0)
    leaving = tournament.entrants.get(player=match.player_a)
    url = f"/clubs/{club.slug}/tournaments/{tournament.pk}/entrants/{leaving.pk}/withdraw/"
    page = logged_in(client, admin).get(url)
    body = page.content.decode()
    assert f"goes to {match.player_b.display_name} by walkover" in body
    match.refresh_from_db()
    assert match.result == ""
    assert client.post(url).status_code == 302
    match.refresh_from_db()
    assert (match.result, match.winner_id) == ("walkover", match.player_b_id)


def test_a_player_waiting_for_an_opponent_cannot_be_withdrawn_yet(client, people):
    club, admin = people["club"], people["admin"]
    players = make_members(club, 4)
    tournament = drawn(club, admin, players)
    first = match_at(tournament, 1, 0)
    steps.report_outcome(subject=first, payload=win(first, first.player_a), by=admin)
    waiting = tournament.entrants.get(player=first.player_a)
    url = f"/clubs/{club.slug}/tournaments/{tournament.pk}/entrants/{waiting.pk}/withdraw/"
    refused = logged_in(client, admin).post(url)
    assert refused.status_code == 200
    assert "no match to play now" in refused.content.decode()
    assert not tournament.matches.filter(result="walkover").exists()


# --- Closing and reopening a table ------------------------------------------------------------


@pytest.fixture
def tables(make_user):
    return make_table(make_user, ("Anna", "Bruno", "Carla"))


def test_closing_a_table_asks_first_and_says_until_when_it_may_be_reopened(client, tables):
    session = open_table(tables, ["Anna", "Bruno", "Carla"])
    url = f"/clubs/{tables['club'].slug}/tables/{session.pk}/close/"
    page = logged_in(client, tables["scorer"]).get(url)
    assert page.status_code == 200
    assert "an admin may reopen it." in page.content.decode()
    session.refresh_from_db()
    assert session.is_open
    assert client.post(url).status_code == 302
    session.refresh_from_db()
    assert not session.is_open


def test_an_admin_reopens_a_table_the_same_night_and_hands_go_on(client, tables):
    session = open_table(tables, ["Anna", "Bruno", "Carla"], first=("Anna", "Bruno"))
    play(tables, session, "Anna", "Bruno")
    singapore.close_table(session=session, by=tables["scorer"])
    base = f"/clubs/{tables['club'].slug}/tables/{session.pk}"
    admin = logged_in(client, tables["admin"])
    assert 'id="reopen-button"' in admin.get(f"{base}/").content.decode()
    assert admin.post(f"{base}/reopen/").status_code == 302
    session.refresh_from_db()
    assert session.is_open
    play(tables, session, "Anna", "Carla")  # the winner stays and deals
    assert session.hands.count() == 2


def test_a_scorer_may_not_reopen_a_table(client, tables):
    session = open_table(tables, ["Anna", "Bruno"])
    singapore.close_table(session=session, by=tables["scorer"])
    base = f"/clubs/{tables['club'].slug}/tables/{session.pk}"
    assert logged_in(client, tables["scorer"]).post(f"{base}/reopen/").status_code == 403
    session.refresh_from_db()
    assert not session.is_open


def test_a_table_closed_the_night_before_stays_closed(api, tables):
    session = open_table(tables, ["Anna", "Bruno"])
    singapore.close_table(session=session, by=tables["scorer"])
    TableSession.objects.filter(pk=session.pk).update(
        closed_at=timezone.now() - timedelta(hours=13)
    )
    api.force_authenticate(tables["admin"])
    response = api.post(f"/api/v1/table-sessions/{session.pk}/reopen/", HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 409
    assert "same night" in response.json()["detail"]
    session.refresh_from_db()
    assert not session.is_open


def test_the_api_reopens_a_table_for_an_admin(api, tables):
    session = open_table(tables, ["Anna", "Bruno"])
    singapore.close_table(session=session, by=tables["scorer"])
    api.force_authenticate(tables["scorer"])
    assert api.post(f"/api/v1/table-sessions/{session.pk}/reopen/").status_code == 403
    api.force_authenticate(tables["admin"])
    response = api.post(f"/api/v1/table-sessions/{session.pk}/reopen/")
    assert response.status_code == 200
    session.refresh_from_db()
    assert session.is_open
    assert api.post(f"/api/v1/table-sessions/{session.pk}/reopen/").status_code == 409


# --- Voiding a hand or a game -----------------------------------------------------------------


def test_voiding_a_hand_asks_first_with_its_reason(client, tables):
    session = open_table(tables, ["Anna", "Bruno"], first=("Anna", "Bruno"))
    hand = play(tables, session, "Anna", "Bruno").hand
    url = f"/clubs/{tables['club'].slug}/tables/{session.pk}/hands/{hand.pk}/void/"
    page = logged_in(client, tables["scorer"]).get(url)
    assert page.status_code == 200
    body = page.content.decode()
    assert "Void hand 1 of Tavolo 1?" in body and 'name="reason"' in body
    assert hand.outcome_in_force() is not None
    refused = client.post(url, {"reason": " "})
    assert refused.status_code == 200 and refused.context["error"]
    assert hand.outcome_in_force() is not None
    assert client.post(url, {"reason": "Mazzo sbagliato"}).status_code == 302
    assert hand.outcome_in_force() is None
    assert hand.outcomes.get(status=OutcomeStatus.VOIDED).note == "Mazzo sbagliato"


def test_voiding_a_game_asks_first(client, people):
    club = people["club"]
    players = [people["guest"], club.players.get(user=people["member"])]
    game, _ = record_spazzumazz_game(
        club=club, players=players, by=people["scorer"], finish_order=[p.pk for p in players]
    )
    url = f"/clubs/{club.slug}/spazzumazz/{game.pk}/void/"
    page = logged_in(client, people["scorer"]).get(url)
    assert page.status_code == 200
    assert "Void this game" in page.content.decode()
    assert game.outcome_in_force() is not None
    assert client.post(url, {"reason": "Per prova"}).status_code == 302
    assert game.outcome_in_force() is None


# --- Correcting a Spazz'u'mazz game by tapping -------------------------------------------------


@pytest.fixture
def game(people):
    club = people["club"]
    players = [
        people["guest"],
        club.players.get(user=people["member"]),
        club.players.get(user=people["scorer"]),
    ]
    game, _ = record_spazzumazz_game(
        club=club, players=players, by=people["scorer"], finish_order=[p.pk for p in players]
    )
    return game, players


def test_the_correction_form_is_the_tap_screen_with_no_ids_to_type(client, people, game):
    game, players = game
    page = logged_in(client, people["scorer"]).get(
        f"/clubs/{people['club'].slug}/spazzumazz/{game.pk}/"
    )
    body = page.content.decode()
    assert 'id="fix-form"' in body and "tap-order" in body
    assert body.count('class="tap"') == 3
    assert 'name="place_3"' in body  # the lists, without JavaScript
    assert "players' numbers" not in body and 'name="order" id="fix-order"' not in body


def test_a_game_is_corrected_by_the_tapped_order(client, people, game):
    game, players = game
    url = f"/clubs/{people['club'].slug}/spazzumazz/{game.pk}/correct/"
    tapped = ",".join(str(p.pk) for p in players[::-1])
    response = logged_in(client, people["scorer"]).post(
        url, {"order": tapped, "reason": "Ordine sbagliato"}
    )
    assert response.status_code == 302
    assert game.outcome_in_force().payload["finish_order"] == [p.pk for p in players[::-1]]


def test_without_javascript_a_game_is_corrected_from_the_lists_of_places(client, people, game):
    game, players = game
    url = f"/clubs/{people['club'].slug}/spazzumazz/{game.pk}/correct/"
    places = {f"place_{n}": p.pk for n, p in enumerate([players[1], players[2], players[0]], 1)}
    response = logged_in(client, people["scorer"]).post(
        url, {"order": "", "reason": "Ordine sbagliato", **places}
    )
    assert response.status_code == 302
    assert game.outcome_in_force().payload["finish_order"] == [
        players[1].pk,
        players[2].pk,
        players[0].pk,
    ]


def test_a_place_left_empty_is_refused_and_nothing_changes(client, people, game):
    game, players = game
    url = f"/clubs/{people['club'].slug}/spazzumazz/{game.pk}/correct/"
    before = game.outcome_in_force().pk
    response = logged_in(client, people["scorer"]).post(
        url, {"reason": "x", "place_1": players[1].pk, "place_2": players[0].pk}, follow=True
    )
    assert "Choose a player for every place." in response.content.decode()
    assert game.outcome_in_force().pk == before


def test_without_javascript_a_new_game_starts_from_the_lists_of_seats(client, people):
    club = people["club"]
    guest, mia = people["guest"], club.players.get(user=people["member"])
    new = f"/clubs/{club.slug}/spazzumazz/new/"
    page = logged_in(client, people["scorer"]).get(new, {"seat_1": mia.pk, "seat_2": guest.pk})
    assert page.context["players"] == [mia, guest]
    response = client.post(
        new,
        {"players": f"{mia.pk},{guest.pk}", "order": "", "place_1": guest.pk, "place_2": mia.pk},
    )
    assert response.status_code == 302
    game = SpazzumazzGame.objects.get()
    assert game.outcome_in_force().payload["finish_order"] == [guest.pk, mia.pk]


# --- Entrants many at once --------------------------------------------------------------------


@pytest.fixture
def open_tournament(people):
    tournament = new_tournament(people["club"], people["admin"])
    sputo.update_tournament(tournament=tournament, by=people["admin"], status="registration")
    return tournament


def test_ticked_players_and_pasted_names_are_entered_with_new_guests(
    client, people, open_tournament
):
    club = people["club"]
    mia = club.players.get(user=people["member"])
    url = f"/clubs/{club.slug}/tournaments/{open_tournament.pk}/entrants/add/"
    page = logged_in(client, people["scorer"]).get(url)
    assert page.status_code == 200 and mia in page.context["members"]
    response = client.post(
        url, {"player": [mia.pk], "names": "zio pino\n\n  Nina   Neri \nOscar Ori\n"}
    )
    assert response.status_code == 302
    entered = set(open_tournament.entrants.values_list("player__display_name", flat=True))
    assert entered == {mia.display_name, "Zio Pino", "Nina Neri", "Oscar Ori"}
    assert set(club.players.guests().values_list("display_name", flat=True)) >= {
        "Nina Neri",
        "Oscar Ori",
    }


def test_duplicates_refuse_the_whole_list_each_named_and_create_no_guest(
    client, people, open_tournament
):
    club = people["club"]
    sputo.add_entrant(tournament=open_tournament, player=people["guest"], by=people["admin"])
    url = f"/clubs/{club.slug}/tournaments/{open_tournament.pk}/entrants/add/"
    response = logged_in(client, people["scorer"]).post(
        url, {"names": "Nina Neri\nZio Pino\nnina neri"}
    )
    assert response.status_code == 400
    errors = response.context["errors"]["names"]
    assert "Zio Pino is already entered." in errors
    assert "nina neri is listed twice." in errors
    assert response.context["names"] == "Nina Neri\nZio Pino\nnina neri"
    assert not Player.objects.filter(club=club, display_name="Nina Neri").exists()
    assert open_tournament.entrants.count() == 1


def test_the_bulk_api_enters_players_and_names(api, people, open_tournament):
    club = people["club"]
    mia = club.players.get(user=people["member"])
    api.force_authenticate(people["scorer"])
    url = f"/api/v1/tournaments/{open_tournament.pk}/entrants/bulk/"
    response = api.post(url, {"players": [mia.pk], "names": ["Nina Neri"]}, format="json")
    assert response.status_code == 201, response.json()
    body = response.json()
    assert [e["name"] for e in body["entrants"]] == [mia.display_name, "Nina Neri"]
    assert [g["name"] for g in body["new_guests"]] == ["Nina Neri"]
    again = api.post(
        url, {"players": [mia.pk], "names": ["Oscar Ori"]}, format="json", HTTP_ACCEPT_LANGUAGE="en"
    )
    assert again.status_code == 400
    assert again.json()["players"] == [f"{mia.display_name} is already entered."]
    assert not Player.objects.filter(club=club, display_name="Oscar Ori").exists()
    # The one-at-a-time path stays as it was.
    single = api.post(
        f"/api/v1/tournaments/{open_tournament.pk}/entrants/",
        {"player": people["guest"].pk},
        format="json",
    )
    assert single.status_code == 201


def test_a_member_may_not_enter_others_in_bulk(api, people, open_tournament):
    api.force_authenticate(people["member"])
    response = api.post(
        f"/api/v1/tournaments/{open_tournament.pk}/entrants/bulk/",
        {"names": ["Nina Neri"]},
        format="json",
    )
    assert response.status_code == 403
    assert not open_tournament.entrants.exists()


def test_the_bulk_api_with_nobody_named_enters_nobody_and_a_stranger_is_a_404(
    api, people, open_tournament
):
    api.force_authenticate(people["scorer"])
    url = f"/api/v1/tournaments/{open_tournament.pk}/entrants/bulk/"
    empty = api.post(url, {}, format="json")
    assert empty.status_code == 200 and empty.json() == {"entrants": [], "new_guests": []}
    stranger = api.post(url, {"players": [999999]}, format="json")
    assert stranger.status_code == 404 and "players" in stranger.json()
    assert not open_tournament.entrants.exists()
