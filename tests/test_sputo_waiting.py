"""A tournament's capacity and its waiting list: entering a full tournament answers 201
with the place on the list, a withdrawal promotes the first (an inbox item says so), the
list stays out of the draw, and the capacity cannot go below the places taken."""

import pytest
from django.core.exceptions import ValidationError
from rest_framework.test import APIClient

from clubs.inbox.models import Kind, Notification
from matches.results.inbox import after_step
from matches.sputo import services
from tests.sputo_world import make_members, new_tournament

pytestmark = pytest.mark.django_db


def api(user):
    client = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    client.default_format = "json"
    client.force_authenticate(user)
    return client


@pytest.fixture
def full(people):
    club, admin = people["club"], people["admin"]
    players = make_members(club, 5)
    tournament = new_tournament(club, admin, capacity=3)
    services.update_tournament(tournament=tournament, by=admin, status="registration")
    return tournament, players


def test_entering_a_full_tournament_answers_the_place_on_the_waiting_list(people, full, client):
    tournament, players = full
    answers = []
    for player in players:
        answer = api(player.user).post(
            f"/api/v1/tournaments/{tournament.pk}/entrants/", {"player": player.pk}
        )
        assert answer.status_code == 201, answer.data
        answers.append(answer.data["waiting"])
    assert answers == [None, None, None, 1, 2]
    listed = api(people["admin"]).get(f"/api/v1/tournaments/{tournament.pk}/entrants/").data
    assert sorted((e["waiting"] or 0) for e in listed) == [0, 0, 0, 1, 2]
    client.force_login(players[4].user)
    page = client.get(tournament.get_absolute_url(), HTTP_ACCEPT_LANGUAGE="en")
    assert page.status_code == 200
    assert "You are number 2 on the waiting list" in page.content.decode()


def test_a_withdrawal_lets_the_first_in_and_tells_them(people, full):
    tournament, players = full
    entrants = [services.add_entrant(tournament=tournament, player=p, by=p.user) for p in players]
    services.remove_entrant(entrant=entrants[1], by=players[1].user)
    entrants[3].refresh_from_db()
    entrants[4].refresh_from_db()
    assert (entrants[3].waiting, entrants[4].waiting) == (False, True)
    assert services.waiting_position(entrants[4]) == 1
    after_step(tournament.club_id, "matches.tournament", tournament.pk)
    told = Notification.objects.filter(kind=Kind.OFF_WAITING_LIST, done_at=None)
    assert [n.user_id for n in told] == [players[3].user_id]
    # Those still waiting at the draw do not play.
    services.update_tournament(tournament=tournament, by=people["admin"], status="registration")
    services.draw_tournament(tournament=tournament, by=people["admin"])
    seated = {
        pk
        for m in tournament.matches.all()
        for pk in (m.player_a_id, m.player_b_id)
        if pk is not None
    }
    assert players[4].pk not in seated and players[3].pk in seated


def test_the_capacity_cannot_fall_below_the_places_taken_and_more_lets_the_list_in(people, full):
    tournament, players = full
    for p in players:
        services.add_entrant(tournament=tournament, player=p, by=p.user)
    with pytest.raises(ValidationError) as refused:
        services.update_tournament(tournament=tournament, by=people["admin"], capacity=2)
    assert "capacity" in refused.value.message_dict
    answer = api(people["admin"]).patch(f"/api/v1/tournaments/{tournament.pk}/", {"capacity": 4})
    assert answer.status_code == 200, answer.data
    assert tournament.entrants.filter(waiting=False).count() == 4
    assert tournament.entrants.filter(waiting=True).count() == 1


def test_ready_matches_get_free_tables_and_nobody_is_called_to_two(people):
    from matches.results import steps
    from tests.sputo_world import drawn, win

    club, admin = people["club"], people["admin"]
    players = make_members(club, 6)
    tournament = drawn(club, admin, players, format="round_robin", tables=2)
    running = list(tournament.matches.exclude(table=None).select_related("player_a", "player_b"))
    assert sorted(m.table for m in running) == [1, 2]  # three ready, two tables
    seated = [p for m in running for p in (m.player_a_id, m.player_b_id)]
    assert len(seated) == len(set(seated))  # nobody at two tables
    # A result frees its table for the next match whose players are free.
    first = running[0]
    steps.report_outcome(subject=first, payload=win(first, first.player_a), by=admin)
    now = list(tournament.matches.filter(result="").exclude(table=None))
    assert len(now) == 2 and first.table in {m.table for m in now}
    busy = [p for m in now for p in (m.player_a_id, m.player_b_id)]
    assert len(busy) == len(set(busy))
    api_rows = api(admin).get(f"/api/v1/tournaments/{tournament.pk}/matches/").data
    assert {r["table"] for r in api_rows if r["result"] == ""} >= {1, 2}


def test_the_round_clock_starts_counts_and_gives_extra_time(people, client):
    from datetime import timedelta

    from django.utils import timezone

    from matches.sputo.models import RoundClock
    from tests.sputo_world import drawn

    club, admin = people["club"], people["admin"]
    players = make_members(club, 4)
    tournament = drawn(club, admin, players, format="round_robin")
    url = f"/api/v1/tournaments/{tournament.pk}/rounds/1/start/"
    assert api(admin).post(url, {"minutes": 0}).status_code == 400
    assert "minutes" in api(admin).post(url, {}).data
    later = f"/api/v1/tournaments/{tournament.pk}/rounds/9/start/"
    assert api(admin).post(later, {"minutes": 30}).status_code == 409
    started = api(admin).post(url, {"minutes": 30})
    assert started.status_code == 200, started.data
    clock = RoundClock.objects.get(tournament=tournament, round=1)
    assert timedelta(minutes=29) < clock.ends_at - clock.started_at <= timedelta(minutes=30)
    # Time up: the round's undecided matches are shown late, for the admin to decide.
    RoundClock.objects.filter(pk=clock.pk).update(ends_at=timezone.now() - timedelta(seconds=1))
    client.force_login(players[0].user)
    page = client.get(tournament.get_absolute_url(), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Time is up: an admin decides" in page and "data-ends-at" in page
    again = api(admin).post(url, {"minutes": 5})  # extra time
    assert again.status_code == 200
    assert RoundClock.objects.get(pk=clock.pk).ends_at > timezone.now()
    assert api(players[0].user).post(url, {"minutes": 5}).status_code == 403


def test_the_page_says_a_full_tournament_put_you_on_the_waiting_list(people, full, client):
    tournament, players = full
    for p in players[:3]:
        services.add_entrant(tournament=tournament, player=p, by=p.user)
    me = players[3]
    client.force_login(me.user)
    page = client.get(tournament.get_absolute_url(), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "you would be number 1 on the waiting list" in page
    done = client.post(
        f"{tournament.get_absolute_url()}entrants/",
        {"player": me.pk},
        follow=True,
        HTTP_ACCEPT_LANGUAGE="en",
    )
    assert "is number 1 on the waiting list" in done.content.decode()


def test_after_the_draw_the_first_waiting_takes_an_absent_player_s_place(people, full):
    from matches.results import steps
    from tests.sputo_world import win

    tournament, players = full
    admin = people["admin"]
    tournament.capacity = 4
    tournament.save(update_fields=["capacity"])
    entrants = [services.add_entrant(tournament=tournament, player=p, by=admin) for p in players]
    services.draw_tournament(tournament=tournament, by=admin)
    absent = entrants[1]
    answer = api(admin).post(f"/api/v1/tournaments/{tournament.pk}/entrants/{absent.pk}/replace/")
    assert answer.status_code == 200, answer.data
    assert answer.data["player"] == players[4].pk and answer.data["waiting"] is None
    absent.refresh_from_db()
    assert absent.no_show and absent.seed is None
    seated = {pk for m in tournament.matches.all() for pk in (m.player_a_id, m.player_b_id)}
    assert players[4].pk in seated and players[1].pk not in seated
    # Nobody is left waiting; and someone who has played keeps their place.
    again = api(admin).post(
        f"/api/v1/tournaments/{tournament.pk}/entrants/{entrants[0].pk}/replace/"
    )
    assert again.status_code == 409
    match = tournament.matches.filter(player_a=players[0]).select_related(
        "player_a", "player_b", "tournament"
    ).first() or tournament.matches.select_related("player_a", "player_b", "tournament").get(
        player_b=players[0]
    )
    steps.report_outcome(subject=match, payload=win(match, players[0]), by=admin)
    played = api(admin).post(
        f"/api/v1/tournaments/{tournament.pk}/entrants/{entrants[0].pk}/replace/"
    )
    assert played.status_code == 409


def test_two_tournaments_of_one_night_share_the_clubs_tables(people):
    from tests.sputo_world import drawn

    club, admin = people["club"], people["admin"]
    cup = drawn(club, admin, make_members(club, 4, prefix="cup"), format="round_robin", tables=2)
    plate = drawn(club, admin, make_members(club, 4, prefix="plt"), format="round_robin", tables=3)
    given = {
        t.name: sorted(t.matches.exclude(table=None).values_list("table", flat=True))
        for t in (cup, plate)
    }
    # The cup took tables 1 and 2; the plate, drawn later, plays on the one left of its 3.
    assert given == {cup.name: [1, 2], plate.name: [3]}
