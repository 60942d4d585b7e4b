"""The Sputo tournaments API: the paths and fields others script against, the status
codes (409 for the wrong moment, 404 for another club's match, 400 naming the field), and
two phones confirming at once against a live server on PostgreSQL."""

import threading

import pytest
from rest_framework.test import APIClient

from matches.models import Outcome, OutcomeStatus
from rules.bots import sputo as bot
from tests.sputo_world import drawn, make_members, match_at, win

pytestmark = pytest.mark.django_db


def as_user(user):
    client = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    client.default_format = "json"  # the games' API reads JSON only
    client.force_authenticate(user)
    return client


def test_the_tournaments_api_reads_json_only(admin_api):
    form = admin_api.post("/api/v1/tournaments/", {"name": "x"}, format="multipart")
    assert form.status_code == 415


@pytest.fixture
def admin_api(people):
    return as_user(people["admin"])


def test_an_admin_creates_a_tournament_enters_players_opens_check_in_and_draws(people, admin_api):
    club = people["club"]
    players = make_members(club, 3)
    created = admin_api.post(
        "/api/v1/tournaments/",
        {
            "club": club.slug,
            "name": "Coppa d'autunno",
            "starts_at": "2030-10-03T20:30:00+02:00",
            "variant": "modern",
            "options": {"splash": True},
            "best_of": 3,
            "third_place": True,
            "seeding": "random",
        },
        format="json",
    )
    assert created.status_code == 201, created.data
    tid = created.data["id"]
    assert created.data["status"] == "draft"
    assert created.data["options"] == {"suit_match": False, "splash": True}
    assert (
        admin_api.patch(f"/api/v1/tournaments/{tid}/", {"status": "registration"}).status_code
        == 200
    )
    me = as_user(players[0].user)
    entered = me.post(f"/api/v1/tournaments/{tid}/entrants/", {"player": players[0].pk})
    assert entered.status_code == 201, entered.data
    assert (
        me.post(f"/api/v1/tournaments/{tid}/entrants/", {"player": players[1].pk}).status_code
        == 403
    )
    for p in players[1:]:
        assert (
            admin_api.post(f"/api/v1/tournaments/{tid}/entrants/", {"player": p.pk}).status_code
            == 201
        )
    bad = admin_api.post(f"/api/v1/tournaments/{tid}/entrants/", {"player": 987654})
    assert bad.status_code == 400 and "player" in bad.data
    listed = admin_api.get(f"/api/v1/tournaments/{tid}/entrants/")
    assert [e["name"] for e in listed.data] == ["p01", "p02", "p03"]
    early = me.post(f"/api/v1/tournaments/{tid}/check-in/", {"player": players[0].pk})
    assert early.status_code == 409
    admin_api.patch(f"/api/v1/tournaments/{tid}/", {"status": "check_in"})
    assert (
        me.post(f"/api/v1/tournaments/{tid}/check-in/", {"player": players[0].pk}).status_code
        == 200
    )
    admin_api.post(f"/api/v1/tournaments/{tid}/check-in/", {"player": players[1].pk})
    # A player of the club who did not enter clashes with the entries: 409.
    outsider = make_members(people["club"], 1, prefix="late")[0]
    unentered = admin_api.post(f"/api/v1/tournaments/{tid}/check-in/", {"player": outsider.pk})
    assert unentered.status_code == 409, unentered.data
    assert me.post(f"/api/v1/tournaments/{tid}/draw/").status_code == 403
    bracket = admin_api.post(f"/api/v1/tournaments/{tid}/draw/")
    assert bracket.status_code == 200, bracket.data
    assert len(bracket.data["rounds"]) == 1
    (final,) = bracket.data["rounds"][0]
    assert {final["player_a"]["name"], final["player_b"]["name"]} == {"p01", "p02"}
    assert set(final) >= {
        "id",
        "round",
        "position",
        "player_a",
        "player_b",
        "bye",
        "winner",
        "status",
    }
    assert bracket.data["third_place"] is None and bracket.data["standings"] == []
    gone = admin_api.get(f"/api/v1/tournaments/{tid}/entrants/").data
    assert [e["no_show"] for e in gone if e["name"] == "p03"] == [True]
    assert admin_api.patch(f"/api/v1/tournaments/{tid}/", {"name": "Altro"}).status_code == 409
    listing = admin_api.get(f"/api/v1/tournaments/?club__slug={club.slug}&status=running")
    assert [t["id"] for t in listing.data["results"]] == [tid]
    assert admin_api.get("/api/v1/tournaments/?status=draft").data["results"] == []


def test_a_match_reported_confirmed_and_the_409s(people, admin_api):
    club = people["club"]
    players = make_members(club, 4)
    tournament = drawn(club, people["admin"], players, best_of=1)
    m = match_at(tournament, 1, 0)
    a, b = as_user(m.player_a.user), as_user(m.player_b.user)
    final = match_at(tournament, 2, 0)
    unknown = admin_api.post(
        f"/api/v1/tournament-matches/{final.pk}/report/", {"walkover": m.player_a_id}, format="json"
    )
    assert unknown.status_code == 409 and "not known" in str(unknown.data)
    reported = a.post(
        f"/api/v1/tournament-matches/{m.pk}/report/",
        {"games": [{"winner": m.player_b_id, "cards_left": 6}]},
        format="json",
    )
    assert reported.status_code == 201, reported.data
    assert (
        reported.data["status"] == "reported" and reported.data["pending"]["status"] == "reported"
    )
    assert a.post(f"/api/v1/tournament-matches/{m.pk}/confirm/").status_code == 403
    confirmed = b.post(f"/api/v1/tournament-matches/{m.pk}/confirm/")
    assert confirmed.status_code == 200
    assert confirmed.data["winner"] == {"id": m.player_b_id, "name": m.player_b.display_name}
    assert confirmed.data["games"] == [{"winner": m.player_b_id, "cards_left": 6, "log": False}]
    again = admin_api.post(f"/api/v1/tournament-matches/{m.pk}/confirm/")
    assert again.status_code == 409 and again.data["detail"]
    late = a.post(
        f"/api/v1/tournament-matches/{m.pk}/report/", {"walkover": m.player_a_id}, format="json"
    )
    assert late.status_code == 409
    bracket = admin_api.get(f"/api/v1/tournaments/{tournament.pk}/bracket/").data
    assert bracket["rounds"][1][0]["player_a"]["id"] == m.player_b_id


def test_a_reports_answer_is_what_a_read_of_the_match_gives(people, admin_api):
    """The answer to a report is built from what the step wrote, not read back: it must be
    what a read gives, for a player's report waiting for the opponent, an admin's in force
    that seats the winner, a walkover, and the final's that finishes the tournament."""
    club = people["club"]
    players = make_members(club, 4)
    tournament = drawn(club, people["admin"], players, best_of=1, third_place=False)
    first, second = match_at(tournament, 1, 0), match_at(tournament, 1, 1)

    def report(client, match, body, *, status):
        url = f"/api/v1/tournament-matches/{match.pk}/"
        answer = client.post(f"{url}report/", body, format="json")
        assert answer.status_code == 201, answer.data
        assert answer.data["status"] == status
        assert answer.json() == client.get(url).json()
        return answer.data

    waiting = report(
        as_user(first.player_a.user),
        first,
        {"games": [{"winner": first.player_a_id, "cards_left": 4}]},
        status="reported",
    )
    assert waiting["pending"]["reported_by"] == first.player_a.user.username
    assert waiting["winner"] is None
    walkover = report(admin_api, second, {"walkover": second.player_b_id}, status="decided")
    assert walkover["winner"]["id"] == second.player_b_id and walkover["pending"] is None
    confirmed = as_user(first.player_b.user).post(f"/api/v1/tournament-matches/{first.pk}/confirm/")
    assert confirmed.status_code == 200, confirmed.data
    final = match_at(tournament, 2, 0)
    decided = report(admin_api, final, win(final, final.player_b), status="decided")
    assert decided["winner"] == {"id": final.player_b_id, "name": final.player_b.display_name}
    tournament.refresh_from_db()
    assert tournament.status == "finished"


def test_another_clubs_match_is_a_404(people):
    other_admin = people["outsider"]  # admin of Circolo Beta (private)
    players = make_members(people["other"], 2, prefix="b")
    tournament = drawn(people["other"], other_admin, players)
    m = match_at(tournament, 1, 0)
    stranger = as_user(people["admin"])
    assert stranger.get(f"/api/v1/tournament-matches/{m.pk}/").status_code == 404
    report = stranger.post(
        f"/api/v1/tournament-matches/{m.pk}/report/", {"walkover": m.player_a_id}, format="json"
    )
    assert report.status_code == 404


@pytest.mark.parametrize(
    "body, field",
    [
        ({"games": [{"winner": 123456, "cards_left": 3}]}, "games"),
        ({"games": [{"winner": "A", "cards_left": 99}]}, "games"),
        ({"walkover": 123456}, "walkover"),
        ({"games": "x"}, "games"),
        ({}, "games"),
        ({"walkover": "A", "double_forfeit": True}, "double_forfeit"),
    ],
)
def test_bad_input_is_a_400_naming_the_field(people, admin_api, body, field):
    players = make_members(people["club"], 2)
    m = match_at(drawn(people["club"], people["admin"], players), 1, 0)
    body = {
        k: (
            [{**g, "winner": m.player_a_id} if g["winner"] == "A" else g for g in v]
            if k == "games" and isinstance(v, list)
            else (m.player_a_id if v == "A" else v)
        )
        for k, v in body.items()
    }
    answer = admin_api.post(f"/api/v1/tournament-matches/{m.pk}/report/", body, format="json")
    assert answer.status_code == 400, answer.data
    # The field, or a part of it: games[0].cards_left.
    assert any(key == field or key.startswith((f"{field}[", f"{field}.")) for key in answer.data)


def test_a_log_that_breaks_the_rules_is_a_400_with_the_event_index(people, admin_api):
    players = make_members(people["club"], 2)
    m = match_at(drawn(people["club"], people["admin"], players), 1, 0)
    record = bot.random_record(
        4, variant="single_deck", options={}, players=[p.display_name for p in players]
    )
    record["events"].insert(1, {"type": "splash", "player": players[0].display_name})
    answer = admin_api.post(
        f"/api/v1/tournament-matches/{m.pk}/report/", {"games": [{"record": record}]}, format="json"
    )
    assert answer.status_code == 400
    # The engine's code, the event index, and its translated message saying which game.
    [error] = answer.json()["games"]
    assert (error["code"], error["at"]) == ("illegal_splash", 1)
    assert error["message"].startswith("Game 1: ") and "1" in error["message"][8:]


def test_a_correction_preview_changes_nothing_and_the_correction_flows_on(people, admin_api):
    players = make_members(people["club"], 4)
    tournament = drawn(people["club"], people["admin"], players, third_place=False)
    m = match_at(tournament, 1, 0)
    admin_api.post(
        f"/api/v1/tournament-matches/{m.pk}/report/",
        {"games": [{"winner": m.player_a_id, "cards_left": 2}]},
        format="json",
    )
    body = {"games": [{"winner": m.player_b_id, "cards_left": 2}], "reason": "Sbagliato"}
    preview = admin_api.post(
        f"/api/v1/tournament-matches/{m.pk}/correct/", {**body, "preview": True}, format="json"
    )
    assert preview.status_code == 200, preview.data
    changes = preview.data["preview"]["changes"]
    final = match_at(tournament, 2, 0)
    assert changes == [
        {
            "match": final.pk,
            "what": "seat",
            "slot": "a",
            "before": m.player_a_id,
            "after": m.player_b_id,
            "result": "",
            "round_label": "Final",
        }
    ]
    assert match_at(tournament, 2, 0).player_a_id == m.player_a_id
    member = as_user(m.player_a.user)
    assert (
        member.post(f"/api/v1/tournament-matches/{m.pk}/correct/", body, format="json").status_code
        == 403
    )
    done = admin_api.post(f"/api/v1/tournament-matches/{m.pk}/correct/", body, format="json")
    assert done.status_code == 200, done.data
    assert match_at(tournament, 2, 0).player_a_id == m.player_b_id


def test_a_dispute_is_decided_by_a_scorer(people):
    players = make_members(people["club"], 2)
    m = match_at(drawn(people["club"], people["admin"], players), 1, 0)
    a, b = as_user(players[0].user), as_user(players[1].user)
    a.post(f"/api/v1/tournament-matches/{m.pk}/report/", {"walkover": players[0].pk}, format="json")
    assert (
        b.post(
            f"/api/v1/tournament-matches/{m.pk}/dispute/", {"reason": ""}, format="json"
        ).status_code
        == 400
    )
    assert (
        b.post(
            f"/api/v1/tournament-matches/{m.pk}/dispute/", {"reason": "Ero qui!"}, format="json"
        ).status_code
        == 200
    )
    scorer = as_user(people["scorer"])
    decided = scorer.post(
        f"/api/v1/tournament-matches/{m.pk}/decide/",
        {"uphold": False, "games": [{"winner": players[1].pk, "cards_left": 1}], "note": "Giocata"},
        format="json",
    )
    assert decided.status_code == 200, decided.data
    assert decided.data["winner"]["id"] == players[1].pk


def _post(url, token, body=None):
    import json
    import urllib.error
    import urllib.request

    request = urllib.request.Request(
        url,
        data=json.dumps(body or {}).encode(),
        headers={"Content-Type": "application/json", "Authorization": f"Token {token}"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, json.loads(answer.read() or b"{}")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


def _race(calls):
    barrier = threading.Barrier(len(calls))
    results = [None] * len(calls)

    def run(n, call):
        barrier.wait()
        results[n] = call()

    threads = [threading.Thread(target=run, args=(n, c)) for n, c in enumerate(calls)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    return results


@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
def test_reports_and_confirmations_that_race_leave_exactly_one_outcome(people, live_server):
    """Real concurrent requests (threads) against a live server on PostgreSQL: a double tap
    on report, then the opponent and an admin confirming at once. One wins each time; the
    other gets a 409 with a message, never a 500, and the winner advances once."""
    from django.db import connection

    from clubs.tokens import issue_token

    if connection.vendor != "postgresql":
        pytest.skip("row locks need PostgreSQL (the integration run)")
    players = make_members(people["club"], 4)
    tournament = drawn(people["club"], people["admin"], players)
    m = match_at(tournament, 1, 0)
    tokens = {
        name: issue_token(user=user)[1]
        for name, user in [
            ("a", m.player_a.user),
            ("b", m.player_b.user),
            ("admin", people["admin"]),
        ]
    }
    url = f"{live_server.url}/api/v1/tournament-matches/{m.pk}"
    body = {"games": [{"winner": m.player_a_id, "cards_left": 4}]}
    reports = _race([lambda: _post(f"{url}/report/", tokens["a"], body)] * 2)
    assert sorted(code for code, _ in reports) == [201, 409], reports
    confirms = _race(
        [
            lambda: _post(f"{url}/confirm/", tokens["b"]),
            lambda: _post(f"{url}/confirm/", tokens["admin"]),
        ]
    )
    assert sorted(code for code, _ in confirms) == [200, 409], confirms
    refused = next(data for code, data in confirms if code == 409)
    assert refused["detail"]
    assert Outcome.objects.filter(object_id=m.pk, status=OutcomeStatus.CONFIRMED).count() == 1
    assert Outcome.objects.filter(object_id=m.pk).count() == 1
    final = match_at(tournament, 2, 0)
    assert final.player_a_id == m.player_a_id
