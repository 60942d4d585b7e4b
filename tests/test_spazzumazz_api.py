"""Spazz'u'mazz's API and the boards' API: the paths and fields of the contract, on good and
bad input."""

from datetime import UTC, datetime, timedelta

import pytest
from rest_framework.test import APIClient

from clubs import services
from rules.bots import spazzumazz as bot
from rules.spazzumazz import check_record

pytestmark = pytest.mark.django_db

T0 = datetime(2025, 2, 7, 21, 0, tzinfo=UTC)


@pytest.fixture
def club(people):
    return people["club"]


@pytest.fixture
def table(club, people):
    mia = club.players.get(user=people["member"])
    return [mia, services.add_guest(club=club, display_name="Bea"), people["guest"]]


def client(user=None):
    api = APIClient()
    if user is not None:
        api.force_authenticate(user)
    return api


@pytest.fixture
def scorer(people):
    return client(people["scorer"])


@pytest.fixture
def post(django_capture_on_commit_callbacks):
    """POST with the tasks queued after commit run, as a worker would."""

    def post(api, url, body):
        with django_capture_on_commit_callbacks(execute=True):
            return api.post(url, body, format="json")

    return post


def ids(players):
    return [p.pk for p in players]


def test_a_scorer_records_a_game_in_force_at_once(club, table, scorer, post):
    order = ids(table)[::-1]
    response = post(
        scorer,
        "/api/v1/spazzumazz-games/",
        {"club": club.slug, "players": ids(table), "finish_order": order, "played_at": T0},
    )
    assert response.status_code == 201, response.json()
    game = response.json()
    assert game["club"] == club.slug and game["players"] == ids(table)
    assert game["finish_order"] == order and game["idiot"] == table[0].pk
    assert game["status"] == "confirmed" and game["full_log"] is False
    assert game["played_at"].startswith("2025-02-07T")


def test_a_player_reports_and_another_confirms_through_the_api(
    club, table, people, post, make_user
):
    bea_user = make_user("bea")
    services.add_member(club=club, user=bea_user)
    table[1] = club.players.get(user=bea_user)
    body = {"club": club.slug, "players": ids(table), "finish_order": ids(table)}
    game = post(client(people["member"]), "/api/v1/spazzumazz-games/", body).json()
    assert game["status"] == "reported"
    url = f"/api/v1/spazzumazz-games/{game['id']}/confirm/"
    assert post(client(people["member"]), url, {}).status_code == 403  # her own report
    confirmed = post(client(bea_user), url, {})
    assert confirmed.status_code == 200 and confirmed.json()["status"] == "confirmed"
    assert post(client(bea_user), url, {}).status_code == 409


def test_a_full_turn_log_is_checked_and_gives_the_order(club, table, scorer, post):
    log = bot.play_game(11, [p.display_name for p in table])
    response = post(
        scorer,
        "/api/v1/spazzumazz-games/",
        {"club": club.slug, "players": ids(table), "record": log},
    )
    assert response.status_code == 201, response.json()
    assert response.json()["full_log"] is True
    by_name = {p.display_name: p.pk for p in table}
    assert response.json()["idiot"] == by_name[check_record(log)["idiot"]]
    broken = {**log, "turns": log["turns"][:-2]}
    refused = post(
        scorer,
        "/api/v1/spazzumazz-games/",
        {"club": club.slug, "players": ids(table), "record": broken},
    )
    assert refused.status_code == 400, refused.json()
    # The engine's error: its code, a translated message and where (``plumbing.rule_errors``).
    [error] = refused.json()["record"]
    assert error["code"] == "not_finished" and error["message"]
    assert "at" in error


@pytest.mark.parametrize(
    "body, field",
    [
        ({"finish_order": None}, "finish_order"),
        ({"finish_order": [1, 2, 3], "record": {}}, "finish_order"),
        ({"players": [1]}, "players"),
        ({"players": [1, 1], "finish_order": [1, 1]}, "players"),
        ({"players": ["1", "2"], "finish_order": [1, 2]}, "players"),
        ({"finish_order": "wrong"}, "finish_order"),
        ({"played_at": "yesterday"}, "played_at"),
    ],
)
def test_bad_games_are_400s_naming_the_field(club, table, scorer, post, body, field):
    good = {"club": club.slug, "players": ids(table), "finish_order": ids(table)}
    sent = {**good, **body}
    if body.get("finish_order", 0) is None:
        del sent["finish_order"]
    response = post(scorer, "/api/v1/spazzumazz-games/", sent)
    assert response.status_code == 400, response.json()
    assert field in response.json()


@pytest.mark.parametrize(
    "body, field",
    [
        ({"players": [99999, 99998], "finish_order": [99998, 99999]}, "players"),
        ({"club": "no-such-club"}, "club"),
    ],
)
def test_a_game_naming_what_is_not_there_is_a_404(club, table, scorer, post, body, field):
    sent = {"club": club.slug, "players": ids(table), "finish_order": ids(table), **body}
    response = post(scorer, "/api/v1/spazzumazz-games/", sent)
    assert response.status_code == 404, response.json()
    assert list(response.json()) == [field]
    assert not club.spazzumazz_games.exists()


def test_a_finishing_order_naming_someone_else_is_a_400(club, table, scorer, post, people):
    other = services.add_guest(club=club, display_name="Ugo")
    body = {"club": club.slug, "players": ids(table), "finish_order": [other.pk, *ids(table)[1:]]}
    response = post(scorer, "/api/v1/spazzumazz-games/", body)
    assert response.status_code == 400 and "finish_order" in response.json()


def test_a_batch_records_a_club_nights_games_in_order_or_none(club, table, scorer, post):
    orders = [ids(table), ids(table)[::-1], [table[1].pk, table[0].pk, table[2].pk]]
    body = {"club": club.slug, "players": ids(table), "finish_orders": orders, "played_at": T0}
    response = post(scorer, "/api/v1/spazzumazz-games/batch/", body)
    assert response.status_code == 201
    assert [g["finish_order"] for g in response.json()] == orders
    bad = {**body, "finish_orders": [ids(table), [table[0].pk]]}
    refused = post(scorer, "/api/v1/spazzumazz-games/batch/", bad)
    assert refused.status_code == 400 and "finish_orders[1]" in refused.json()
    assert club.spazzumazz_games.count() == 3


def test_games_are_filtered_by_club_season_and_player(club, table, scorer, post, people):
    season = services.create_season(
        club=club, name="Febbraio", start="2025-02-01", end="2025-02-28"
    )
    for n, players in enumerate([table, table[:2], table[1:]]):
        post(
            scorer,
            "/api/v1/spazzumazz-games/",
            {
                "club": club.slug,
                "players": ids(players),
                "finish_order": ids(players),
                "played_at": T0 + timedelta(days=30 * n),
            },
        )

    def count(query):
        return scorer.get(f"/api/v1/spazzumazz-games/?{query}").json()["count"]

    assert count(f"club__slug={club.slug}") == 3
    assert count("club__slug=circolo-beta") == 0
    assert count(f"season={season.pk}") == 1
    assert count(f"player={table[0].pk}") == 2
    assert count(f"player={table[2].pk}&club__slug={club.slug}") == 2


def test_correct_and_dispute_need_a_reason(club, table, scorer, post):
    game = post(
        scorer,
        "/api/v1/spazzumazz-games/",
        {"club": club.slug, "players": ids(table), "finish_order": ids(table)},
    ).json()
    url = f"/api/v1/spazzumazz-games/{game['id']}/correct/"
    assert "reason" in post(scorer, url, {"finish_order": ids(table)[::-1]}).json()
    fixed = post(scorer, url, {"finish_order": ids(table)[::-1], "reason": "Sbagliato"})
    assert fixed.status_code == 200 and fixed.json()["idiot"] == table[0].pk


def play_five(club, table, scorer, post):
    for n, order in enumerate([[0, 1, 2], [1, 0, 2], [2, 1, 0], [0, 2, 1], [1, 2, 0]]):
        post(
            scorer,
            "/api/v1/spazzumazz-games/",
            {
                "club": club.slug,
                "players": ids(table),
                "finish_order": [table[i].pk for i in order],
                "played_at": T0 + timedelta(hours=n),
            },
        )


def test_idiot_stats_have_exactly_the_contracts_fields(club, table, scorer, post, people):
    services.update_house_rules(
        club=club, game="spazzumazz", values={"idiot_min_games": 3}, by=people["admin"]
    )
    play_five(club, table, scorer, post)
    body = client().get(f"/api/v1/clubs/{club.slug}/idiot-stats/").json()
    assert set(body) == {"game_name", "players"}
    # Pino (table[2]) and Mia were the idiot of 2 of the 5 games each, Bea of 1; Pino's
    # places (3, 3, 1, 2, 2) are worse than Mia's (1, 2, 3, 1, 3): the game is Pino's.
    assert body["game_name"]["player"] == table[2].pk
    assert body["game_name"]["name"] == "Zio Pino"
    assert body["game_name"]["since"] == "2025-02-07"
    assert {p["player"] for p in body["players"][:2]} == {table[0].pk, table[2].pk}
    first = next(p for p in body["players"] if p["player"] == table[2].pk)
    assert set(first) == {
        "player",
        "name",
        "games",
        "idiot",
        "idiot_rate",
        "average_place",
        "current_streak",
        "longest_streak",
    }
    assert (first["player"], first["games"], first["idiot"], first["idiot_rate"]) == (
        table[2].pk,
        5,
        2,
        0.4,
    )
    assert (first["current_streak"], first["longest_streak"]) == (0, 2)
    assert first["average_place"] == pytest.approx((1 + 1 + 0 + 0.5 + 0.5) / 5)


def test_idiot_stats_of_a_season_and_a_bad_season(club, table, scorer, post, people):
    season = services.create_season(club=club, name="Marzo", start="2025-03-01", end="2025-03-31")
    play_five(club, table, scorer, post)
    url = f"/api/v1/clubs/{club.slug}/idiot-stats/"
    assert client().get(url, {"season": season.pk}).json() == {"game_name": None, "players": []}
    for bad in ["x", "0", "1.0", "-1"]:
        response = client().get(url, {"season": bad})
        assert response.status_code == 400 and "season" in response.json()
    other = services.create_season(
        club=people["other"], name="Altrove", start="2025-03-01", end="2025-03-31"
    )
    for missing in ["99999", str(other.pk)]:  # no season of this club: a 404 naming it
        response = client().get(url, {"season": missing})
        assert response.status_code == 404 and list(response.json()) == ["season"]


def test_the_leaderboard_of_each_game(club, table, scorer, post):
    play_five(club, table, scorer, post)
    url = f"/api/v1/clubs/{club.slug}/leaderboards/spazzumazz/"
    board = client().get(url).json()
    assert board["game"] == "spazzumazz" and board["season"] is None
    assert [c["key"] for c in board["columns"]][:2] == ["idiot_rate", "games"]
    assert board["rows"][0]["player"] == table[2].pk
    by_games = client().get(url, {"ordering": "-rating"}).json()["rows"]
    assert [r["rating"] for r in by_games] == sorted((r["rating"] for r in by_games), reverse=True)
    assert client().get(url, {"min_games": 6}).json()["rows"] == []
    assert client().get(url, {"min_games": "-1"}).status_code == 400
    assert client().get(url, {"ordering": "nope"}).status_code == 400
    # A game with no provider yet (or no data) has an empty board; an unknown one is a 404.
    empty = client().get(f"/api/v1/clubs/{club.slug}/leaderboards/sputo/")
    assert empty.status_code == 200 and empty.json()["rows"] == []
    assert client().get(f"/api/v1/clubs/{club.slug}/leaderboards/briscola/").status_code == 404


def test_a_players_ratings_with_their_history_and_head_to_head(club, table, scorer, post):
    play_five(club, table, scorer, post)
    body = client().get(f"/api/v1/players/{table[0].pk}/ratings/", {"game": "spazzumazz"}).json()
    [rating] = body["ratings"]
    assert body["player"] == table[0].pk and rating["game"] == "spazzumazz"
    assert rating["games"] == 5 and rating["provisional"] is True
    assert [h["sequence"] for h in rating["history"]] == [1, 2, 3, 4, 5]
    assert rating["history"][-1]["display"] == rating["display"]
    assert client().get(f"/api/v1/players/{table[0].pk}/ratings/", {"game": "x"}).status_code == 400
    h2h = client().get(f"/api/v1/players/{table[0].pk}/head-to-head/").json()
    assert {o["player"] for o in h2h["opponents"]} == {table[1].pk, table[2].pk}
    bea = next(o for o in h2h["opponents"] if o["player"] == table[1].pk)
    assert (bea["games"], bea["behind"] + bea["ahead"]) == (5, 5)
