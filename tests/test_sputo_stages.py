"""Sputo tournaments beyond one bracket, end to end through the services and the API: a
round robin, groups then a knockout, a Swiss; each result through the one result cycle;
the standings, the next stage, the next round, the places; a combination of fields that
makes no sense refused naming the field."""

from collections import Counter
from itertools import combinations

import pytest
from rest_framework.test import APIClient

from matches.models import TournamentMatch
from matches.results import steps
from matches.sputo import stages
from matches.sputo.models import Entrant, TournamentStatus
from plumbing.errors import Conflict
from tests.sputo_world import drawn, make_members, win

pytestmark = pytest.mark.django_db


def api(user):
    client = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    client.default_format = "json"
    client.force_authenticate(user)
    return client


def play(match, winner, by, cards_left=3):
    """A scorer's (an admin's) result, in force at once."""
    match = TournamentMatch.objects.select_related("tournament", "player_a", "player_b").get(
        pk=match.pk
    )
    steps.report_outcome(subject=match, payload=win(match, winner, cards_left), by=by)


def undecided(tournament, **filters):
    return list(
        tournament.matches.filter(result="", **filters)
        .select_related("player_a", "player_b")
        .order_by("round", "position")
    )


def create(client, club, **fields):
    body = {
        "club": club.slug,
        "name": "Torneo",
        "starts_at": "2030-10-03T20:30:00+02:00",
        **fields,
    }
    return client.post("/api/v1/tournaments/", body, format="json")


@pytest.mark.parametrize(
    ("fields", "named"),
    [
        ({"format": "knockout"}, "format"),
        ({"legs": 2}, "legs"),  # a single elimination has no legs
        ({"format": "round_robin", "legs": 3}, "legs"),
        ({"format": "round_robin", "groups": 2}, "groups"),
        ({"format": "groups_then_knockout", "advance": 2}, "groups"),
        ({"format": "groups_then_knockout", "groups": 2}, "advance"),
        ({"format": "groups_then_knockout", "groups": 1, "advance": 1}, "advance"),
        (
            {
                "format": "groups_then_knockout",
                "groups": 2,
                "advance": 1,
                "grand_final_reset": False,
            },
            "grand_final_reset",
        ),
        ({"format": "swiss"}, "swiss_rounds"),
        ({"format": "swiss", "swiss_rounds": 0}, "swiss_rounds"),
        ({"format": "swiss", "swiss_rounds": 3, "third_place": True}, "third_place"),
        ({"format": "round_robin", "knockout_format": "single_elimination"}, "knockout_format"),
        ({"format": "single_elimination", "swiss_rounds": 3}, "swiss_rounds"),
        ({"format": "double_elimination", "legs": 2}, "legs"),
        ({"capacity": 1}, "capacity"),
        ({"format": "swiss", "swiss_rounds": 3, "forbidden_pairs": [[1]]}, "forbidden_pairs"),
        ({"format": "double_elimination", "bogus_field": 1}, "bogus_field"),
    ],
)
def test_a_combination_that_makes_no_sense_is_a_400_naming_the_field(people, fields, named):
    answer = create(api(people["admin"]), people["club"], **fields)
    assert answer.status_code == 400, answer.data
    assert any(key == named or key.startswith(named + "[") for key in answer.data), answer.data


def test_the_format_s_fields_are_stored_and_read_back(people):
    club = people["club"]
    answer = create(
        api(people["admin"]),
        club,
        format="groups_then_knockout",
        groups=2,
        advance=2,
        legs=2,
        capacity=16,
    )
    assert answer.status_code == 201, answer.data
    assert {k: answer.data[k] for k in ("format", "groups", "advance", "legs", "capacity")} == {
        "format": "groups_then_knockout",
        "groups": 2,
        "advance": 2,
        "legs": 2,
        "capacity": 16,
    }
    # A change to a Swiss drops the groups' fields it does not have.
    changed = api(people["admin"]).patch(
        f"/api/v1/tournaments/{answer.data['id']}/", {"format": "swiss", "swiss_rounds": 4}
    )
    assert changed.status_code == 200, changed.data
    assert (changed.data["groups"], changed.data["advance"], changed.data["swiss_rounds"]) == (
        None,
        None,
        4,
    )


def test_a_round_robin_meets_everyone_once_finishes_and_ranks_with_reasons(people):
    club, admin = people["club"], people["admin"]
    players = make_members(club, 5)
    tournament = drawn(club, admin, players, format="round_robin")
    matches = list(tournament.matches.all())
    assert Counter(frozenset((m.player_a_id, m.player_b_id)) for m in matches) == Counter(
        frozenset((a.pk, b.pk)) for a, b in combinations(players, 2)
    )
    assert tournament.rounds == 5  # five players: five rounds, one resting each
    for match in undecided(tournament):
        # The better seed wins, but the fifth beats the first.
        a, b = match.player_a, match.player_b
        seed = {p.pk: n for n, p in enumerate(players)}
        better = a if seed[a.pk] < seed[b.pk] else b
        if {a.pk, b.pk} == {players[0].pk, players[4].pk}:
            better = players[4]
        play(match, better, admin)
    tournament.refresh_from_db()
    assert tournament.status == TournamentStatus.FINISHED
    table = api(admin).get(f"/api/v1/tournaments/{tournament.pk}/standings/").data
    assert table["stage"] == "round_robin"
    (group,) = table["groups"]
    rows = group["rows"]
    # Seeds 1 and 2 on three wins, 1 beat 2; seeds 4 and 5 on one, 4 beat 5.
    assert [r["player"] for r in rows] == [p.pk for p in players]
    assert [r["won"] for r in rows] == [3, 3, 2, 1, 1]
    assert rows[0]["why"] == f"above {players[1].display_name}: won their match"
    assert rows[1]["why"] == f"above {players[2].display_name}: more points"
    assert rows[3]["why"] == f"above {players[4].display_name}: won their match"
    assert [r["rank"] for r in rows] == [1, 2, 3, 4, 5]
    assert all(r["played"] == 4 for r in rows)
    assert all(r["why"].startswith("above ") for r in rows[:-1]) and rows[-1]["why"] == ""
    places = dict(Entrant.objects.filter(tournament=tournament).values_list("player_id", "place"))
    assert {pk: places[pk] for pk in places} == {r["player"]: r["rank"] for r in rows}


def test_groups_then_a_knockout_cross_the_groups_and_place_everyone(people):
    club, admin = people["club"], people["admin"]
    players = make_members(club, 8)
    tournament = drawn(club, admin, players, format="groups_then_knockout", groups=2, advance=2)
    groups = {}
    for m in tournament.matches.all():
        groups.setdefault(m.group, set()).update({m.player_a_id, m.player_b_id})
    assert sorted(groups) == ["A", "B"]
    assert players[0].pk in groups["A"] and players[1].pk in groups["B"]  # the snake
    client = api(admin)
    early = client.post(f"/api/v1/tournaments/{tournament.pk}/next-stage/")
    assert early.status_code == 409, early.data
    seed = {p.pk: n for n, p in enumerate(players)}
    for match in undecided(tournament):
        a, b = match.player_a, match.player_b
        play(match, a if seed[a.pk] < seed[b.pk] else b, admin)
    made = client.post(f"/api/v1/tournaments/{tournament.pk}/next-stage/")
    assert made.status_code == 200, made.data
    first_round = made.data["rounds"][0]
    pairs = [{m["player_a"]["id"], m["player_b"]["id"]} for m in first_round]
    # Crossed: the first of A against the second of B, and so on.
    group_of = {pk: name for name, members in groups.items() for pk in members}
    assert all(len({group_of[pk] for pk in pair}) == 2 for pair in pairs)
    again = client.post(f"/api/v1/tournaments/{tournament.pk}/next-stage/")
    assert again.status_code == 409
    for round_ in (1, 2):
        for match in undecided(tournament, kind__in=["main", "third_place"], round=round_):
            if match.player_a_id and match.player_b_id:
                play(match, match.player_a, admin)
    tournament.refresh_from_db()
    assert tournament.status == TournamentStatus.FINISHED
    places = dict(Entrant.objects.filter(tournament=tournament).values_list("player_id", "place"))
    assert sorted(places.values()) == [1, 2, 3, 4, 5, 5, 7, 7]  # thirds share 5th, fourths 7th


def test_a_swiss_pairs_round_by_round_without_rematches_and_explains_each_pairing(people):
    club, admin = people["club"], people["admin"]
    players = make_members(club, 7)
    tournament = drawn(club, admin, players, format="swiss", swiss_rounds=3)
    client = api(admin)
    url = f"/api/v1/tournaments/{tournament.pk}/"
    early = client.post(url + "rounds/next/")
    assert early.status_code == 409
    for number in (1, 2, 3):
        shown = client.get(url + f"matches/?round={number}").data
        assert len(shown) == 4 and sum(m["bye"] for m in shown) == 1
        assert all(m["why"] for m in shown)
        for match in undecided(tournament, round=number):
            play(match, match.player_a, admin)
        if number < 3:
            paired = client.post(url + "rounds/next/")
            assert paired.status_code == 200, paired.data
    met = Counter(
        frozenset((m.player_a_id, m.player_b_id)) for m in tournament.matches.exclude(player_b=None)
    )
    assert max(met.values()) == 1
    byes = Counter(m.player_a_id for m in tournament.matches.filter(player_b=None))
    assert max(byes.values()) == 1
    tournament.refresh_from_db()
    assert tournament.status == TournamentStatus.FINISHED
    assert client.post(url + "rounds/next/").status_code == 409
    table = client.get(url + "standings/").data
    assert table["stage"] == "swiss"
    assert all(row["buchholz"] is not None for row in table["groups"][0]["rows"])
    assert client.get(url + "matches/?round=zero").status_code == 400


def test_a_forbidden_pairing_is_never_paired(people):
    club, admin = people["club"], people["admin"]
    players = make_members(club, 4)
    couple = [players[0].pk, players[2].pk]  # the Dutch system would pair 1 and 3 first
    tournament = drawn(
        club, admin, players, format="swiss", swiss_rounds=2, forbidden_pairs=[couple]
    )
    for number in (1, 2):
        for match in undecided(tournament, round=number):
            assert {match.player_a_id, match.player_b_id} != set(couple)
            play(match, match.player_a, admin)
        if number == 1:
            stages.next_round(tournament=tournament, by=admin)


def test_a_corrected_group_match_after_the_knockout_says_who_would_go_through(people):
    club, admin = people["club"], people["admin"]
    players = make_members(club, 4)
    tournament = drawn(club, admin, players, format="groups_then_knockout", groups=1, advance=2)
    seed = {p.pk: n for n, p in enumerate(players)}
    for match in undecided(tournament):
        a, b = match.player_a, match.player_b
        play(match, a if seed[a.pk] < seed[b.pk] else b, admin)
    stages.make_knockout(tournament=tournament, by=admin)
    # The third seed beat the second after all: the third goes through instead.
    second, third = players[1].pk, players[2].pk
    match = (
        TournamentMatch.objects.select_related("tournament")
        .filter(kind="group", player_a__in=[second, third], player_b__in=[second, third])
        .get()
    )
    preview = steps.preview_correct_outcome(subject=match, payload={"walkover": third}, by=admin)
    assert preview["qualifiers"] == {
        "before": sorted([players[0].pk, second]),
        "after": sorted([players[0].pk, third]),
    }
    assert [row[1] for row in preview["standings"]["after"]][:3] == [players[0].pk, third, second]
    steps.correct_outcome(subject=match, by=admin, payload={"walkover": third}, reason="Sbagliato")
    table = api(admin).get(f"/api/v1/tournaments/{tournament.pk}/standings/").data
    assert [row["player"] for row in table["groups"][0]["rows"]][:3] == [
        players[0].pk,
        third,
        second,
    ]
    # The knockout stays as it was made: the admin decides.
    assert tournament.matches.filter(kind="main", round=1).count() == 1
    with pytest.raises(Conflict):
        stages.make_knockout(tournament=tournament, by=admin)


def ready(tournament):
    return [
        m
        for m in undecided(tournament)
        if m.player_a_id and m.player_b_id and not m.needs_resolution
    ]


def play_out(tournament, admin, pick):
    """Every ready match played, ``pick(match)`` the winner, until none is left."""
    while found := ready(tournament):
        for match in found:
            play(match, pick(match), admin)


@pytest.mark.parametrize(("n", "reset"), [(2, True), (5, True), (8, False), (11, True)])
def test_a_double_elimination_leaves_everyone_but_the_champion_out_after_two_losses(
    people, n, reset
):
    club, admin = people["club"], people["admin"]
    players = make_members(club, n)
    tournament = drawn(club, admin, players, format="double_elimination", grand_final_reset=reset)
    seed = {p.pk: k for k, p in enumerate(players)}
    # The lower seed wins, but the second seed beats the first whenever they meet.
    top_two = {players[0].pk, players[1].pk}

    def pick(match):
        a, b = match.player_a, match.player_b
        if {a.pk, b.pk} == top_two:
            return players[1]
        return a if seed[a.pk] < seed[b.pk] else b

    play_out(tournament, admin, pick)
    tournament.refresh_from_db()
    assert tournament.status == TournamentStatus.FINISHED
    losses = Counter()
    for m in tournament.matches.filter(result="played"):
        losses[m.player_b_id if m.winner_id == m.player_a_id else m.player_a_id] += 1
    places = dict(Entrant.objects.filter(tournament=tournament).values_list("player_id", "place"))
    champion = next(pk for pk, place in places.items() if place == 1)
    assert losses[champion] <= 1
    assert all(losses[p.pk] == 2 for p in players if p.pk != champion)
    assert sorted(places.values())[:2] == [1, 2]
    body = api(admin).get(f"/api/v1/tournaments/{tournament.pk}/bracket/").data
    assert body["brackets"][-1] == "grand_final" and "losers" in body["brackets"] or n == 2
    by_id = {m["id"]: m for rnd in body["rounds"] for m in rnd}
    first_round = [m for m in body["rounds"][0] if not m["bye"]]
    assert all(by_id[m["loser_to"]]["bracket"] in ("losers", "grand_final") for m in first_round)


def test_a_correction_in_the_winners_bracket_flows_into_the_losers_bracket(people):
    club, admin = people["club"], people["admin"]
    players = make_members(club, 4)
    tournament = drawn(club, admin, players, format="double_elimination")
    play_out(tournament, admin, lambda m: m.player_a)
    tournament.refresh_from_db()
    assert tournament.status == TournamentStatus.FINISHED
    first = (
        TournamentMatch.objects.select_related("tournament", "player_a", "player_b")
        .filter(tournament=tournament, kind="winners", round=1)
        .order_by("position")
        .first()
    )
    dropped = TournamentMatch.objects.get(tournament=tournament, kind="losers", round=1)
    assert first.player_b_id in (dropped.player_a_id, dropped.player_b_id)
    preview = steps.preview_correct_outcome(
        subject=first, payload={"walkover": first.player_b_id}, by=admin
    )
    assert preview["set_aside"] and preview["status"]["after"] == "running"
    steps.correct_outcome(
        subject=first, by=admin, payload={"walkover": first.player_b_id}, reason="Sbagliato"
    )
    dropped.refresh_from_db()
    assert first.player_a_id in (dropped.player_a_id, dropped.player_b_id)  # the new loser
    tournament.refresh_from_db()
    assert tournament.status == TournamentStatus.RUNNING
    play_out(tournament, admin, lambda m: m.player_a)
    tournament.refresh_from_db()
    assert tournament.status == TournamentStatus.FINISHED


def test_a_stage_before_its_draw_reads_empty(people):
    from tests.sputo_world import new_tournament

    tournament = new_tournament(people["club"], people["admin"], format="round_robin")
    client = api(people["admin"])
    url = f"/api/v1/tournaments/{tournament.pk}/"
    assert client.get(url + "standings/").data == {
        "stage": "round_robin",
        "groups": [{"name": "", "rows": []}],
    }
    assert client.get(url + "matches/").data == []
    assert client.get(url + "bracket/").status_code == 200


def test_an_admin_keeps_a_couple_apart_from_the_page_for_the_rounds_still_to_pair(people, client):
    club, admin = people["club"], people["admin"]
    players = make_members(club, 4)
    tournament = drawn(club, admin, players, format="swiss", swiss_rounds=3)
    first = undecided(tournament, round=1)
    for match in first:
        play(match, match.player_a, admin)
    winners = [m.player_a for m in first]  # the Swiss would pair the two winners next
    client.force_login(admin)
    page = tournament.get_absolute_url()
    shown = client.get(page, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Never paired together" in shown and "Keep them apart" in shown
    url = page + "forbidden-pairs/"
    kept = client.post(url, {"a": winners[0].pk, "b": winners[1].pk}, HTTP_ACCEPT_LANGUAGE="en")
    assert kept.status_code == 302
    tournament.refresh_from_db()
    assert tournament.forbidden_pairs == [[winners[0].pk, winners[1].pk]]
    shown = client.get(page, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert f"{winners[0].display_name} and {winners[1].display_name}" in shown
    assert api(admin).post(f"/api/v1/tournaments/{tournament.pk}/rounds/next/").status_code == 200
    second = {frozenset((m.player_a_id, m.player_b_id)) for m in undecided(tournament, round=2)}
    assert frozenset((winners[0].pk, winners[1].pk)) not in second
    assert len(second) == 2  # everyone still plays
    # Allowed to meet again; the API does the same on a running Swiss, and refuses a knockout.
    client.post(url, {"remove": f"{winners[0].pk}-{winners[1].pk}"})
    tournament.refresh_from_db()
    assert tournament.forbidden_pairs == []
    patched = api(admin).patch(
        f"/api/v1/tournaments/{tournament.pk}/", {"forbidden_pairs": [[winners[0].pk, 10**9]]}
    )
    assert patched.status_code == 400 and "forbidden_pairs" in patched.data
    knockout = drawn(club, admin, make_members(club, 4, prefix="k"))
    refused = api(admin).patch(f"/api/v1/tournaments/{knockout.pk}/", {"forbidden_pairs": []})
    assert refused.status_code == 400 and "forbidden_pairs" in refused.data
