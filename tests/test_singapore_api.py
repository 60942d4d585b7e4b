"""The tables' API as others script against it: ``/api/v1/table-sessions/``."""

import os

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from matches.models import AuditEntry, Hand, Outcome
from tests.singapore_helpers import CLOSING, SEVENTY, make_table

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(make_user):
    return make_table(make_user, ("Anna", "Bruno", "Carla", "Dario", "Elena", "Franco"))


@pytest.fixture
def api(api):
    api.credentials(HTTP_ACCEPT_LANGUAGE="en")
    return api


@pytest.fixture
def scorer_api(api, world):
    api.force_authenticate(world["scorer"])
    return api


def ids(world, *names):
    return [world["players"][n].pk for n in names]


def open_table(api, world, names=("Anna", "Bruno", "Carla", "Dario"), **extra):
    body = {"club": world["club"].slug, "name": "Tavolo 1", "point_value": None}
    body["seats"] = ids(world, *names)
    body.update(extra)
    response = api.post("/api/v1/table-sessions/", body, format="json")
    assert response.status_code == 201, response.data
    return response.data


def result_body(world, dealer, opponent, **kwargs):
    """A correction's body: the hand's result, without its players (which it cannot change:
    sent, they would be refused as unknown fields)."""
    body = hand_body(world, dealer, opponent, **kwargs)
    del body["dealer"], body["opponent"]
    return body


def hand_body(world, dealer, opponent, *, winner="dealer", quotas=1, covers=None, **extra):
    p = world["players"]
    body = {
        "dealer": p[dealer].pk,
        "opponent": p[opponent].pk,
        "winner": winner,
        "winner_cards": CLOSING,
        "loser_cards": SEVENTY,
        "dealer_quotas": quotas,
        "covers": {str(p[n].pk): q for n, q in (covers or {opponent: 1}).items()},
        "side_bets": [],
    }
    body.update(extra)
    return body


def post_hand(api, table, body, **headers):
    return api.post(f"/api/v1/table-sessions/{table['id']}/hands/", body, format="json", **headers)


def test_opening_a_table_answers_its_seats_and_who_is_next(scorer_api, world):
    anna, bruno = ids(world, "Anna", "Bruno")
    table = open_table(scorer_api, world, first_dealer=anna, first_opponent=bruno)
    assert table["seats"] == ids(world, "Anna", "Bruno", "Carla", "Dario")
    assert table["next"] == {"dealer": anna, "opponent": bruno}
    assert table["point_value"] is None and table["unit"] == "points"
    assert table["open"] is True and table["draw"] is None
    assert table["club"] == world["club"].slug


def test_a_drawn_table_shows_its_seed(scorer_api, world):
    table = open_table(scorer_api, world, seed=7, point_value="0.10")
    assert table["draw"] == {"seed": 7, "seats": table["seats"]}
    assert {table["next"]["dealer"], table["next"]["opponent"]} <= set(table["seats"])
    assert table["point_value"] == "0.10" and table["unit"] == "EUR"


def test_the_texts_worked_example_through_the_api(scorer_api, world):
    table = open_table(
        scorer_api, world, first_dealer=ids(world, "Anna")[0], first_opponent=ids(world, "Bruno")[0]
    )
    body = hand_body(world, "Anna", "Bruno", quotas=5, covers={"Bruno": 2, "Carla": 1, "Dario": 2})
    response = post_hand(scorer_api, table, body)
    assert response.status_code == 201, response.data
    anna, bruno, carla, dario = ids(world, "Anna", "Bruno", "Carla", "Dario")
    hand = response.data
    assert hand["status"] == "confirmed" and hand["number"] == 1
    assert hand["result"]["points"] == 70 and hand["result"]["multiplier"] == 1
    assert hand["result"]["balances"] == {
        str(anna): 350,
        str(bruno): -140,
        str(carla): -70,
        str(dario): -140,
    }
    assert hand["transfers"] == [
        {"from": bruno, "to": anna, "points": 140, "amount": None},
        {"from": carla, "to": anna, "points": 70, "amount": None},
        {"from": dario, "to": anna, "points": 140, "amount": None},
    ]
    listed = scorer_api.get(f"/api/v1/table-sessions/{table['id']}/").data
    assert listed["next"] == {"dealer": anna, "opponent": carla}


def codes(response) -> set[str]:
    """The rules engine's codes in an error body (``{field: [{"code", ...}]}``)."""
    return {e["code"] for errors in response.json().values() for e in errors if isinstance(e, dict)}


def test_a_rules_error_is_a_400_with_the_engines_code_message_and_where(scorer_api, world):
    table = open_table(
        scorer_api, world, first_dealer=ids(world, "Anna")[0], first_opponent=ids(world, "Bruno")[0]
    )
    body = hand_body(world, "Anna", "Bruno", winner_cards=CLOSING[:9] + ["ZZ"])
    response = post_hand(scorer_api, table, body)
    assert response.status_code == 400
    # The one error body: the field at fault, with the engine's code, message and place.
    [error] = response.json()["winner_cards"]
    assert (error["code"], error["at"]) == ("unknown_card", "winner_cards[9]")
    assert "ZZ" in error["message"]
    assert list(response.json()) == ["winner_cards"]
    assert not Hand.objects.exists()


def first_pair(world, dealer="Anna", opponent="Bruno"):
    return {"first_dealer": ids(world, dealer)[0], "first_opponent": ids(world, opponent)[0]}


def test_out_of_turn_is_a_409_naming_who_deals_unless_an_admin_overrides(api, scorer_api, world):
    table = open_table(scorer_api, world, **first_pair(world))
    response = post_hand(scorer_api, table, hand_body(world, "Carla", "Dario"))
    assert response.status_code == 409
    assert "Anna (dealing) against Bruno" in response.data["detail"]
    api.force_authenticate(world["admin"])
    body = hand_body(world, "Carla", "Dario", override="Anna è al telefono")
    response = post_hand(api, table, body)
    assert response.status_code == 201 and response.data["out_of_turn"] is True


def test_the_right_pair_with_the_challenger_dealing_is_a_409_naming_the_dealer(scorer_api, world):
    table = open_table(scorer_api, world, **first_pair(world))
    response = post_hand(scorer_api, table, hand_body(world, "Bruno", "Anna"))
    assert response.status_code == 409
    assert response.data["detail"] == (
        "Out of turn: the winner stays and deals, so the next hand is Anna (dealing) against Bruno."
    )
    assert not Hand.objects.exists()
    # After a hand, its winner deals the next one: the challenger may not.
    won = post_hand(scorer_api, table, hand_body(world, "Anna", "Bruno", winner="opponent"))
    assert won.status_code == 201
    response = post_hand(scorer_api, table, hand_body(world, "Carla", "Bruno"))
    assert (
        response.status_code == 409 and "Bruno (dealing) against Carla" in response.data["detail"]
    )
    assert post_hand(scorer_api, table, hand_body(world, "Bruno", "Carla")).status_code == 201


def test_the_409_names_the_dealer_in_italian(scorer_api, world):
    table = open_table(scorer_api, world, **first_pair(world))
    scorer_api.credentials(HTTP_ACCEPT_LANGUAGE="it")
    response = post_hand(scorer_api, table, hand_body(world, "Bruno", "Anna"))
    assert response.status_code == 409
    assert response.data["detail"] == (
        "Fuori turno: chi vince resta e dà le carte, quindi la prossima mano è di Anna (che dà "
        "le carte) contro Bruno."
    )


def test_an_admins_override_lets_the_challenger_deal_audited_and_marked(api, world):
    api.force_authenticate(world["admin"])
    table = open_table(api, world, **first_pair(world))
    body = hand_body(world, "Bruno", "Anna", override="Anna si è slogata il polso")
    response = post_hand(api, table, body)
    assert response.status_code == 201, response.data
    assert response.data["out_of_turn"] is True
    hand = Hand.objects.get()
    assert hand.out_of_turn
    entry = AuditEntry.objects.get(action="out_of_turn", object_id=hand.pk)
    assert (entry.by, entry.note) == (world["admin"], "Anna si è slogata il polso")
    assert entry.data["played"] == ids(world, "Bruno", "Anna")
    assert entry.data["expected"] == ids(world, "Anna", "Bruno")
    listed = api.get(f"/api/v1/table-sessions/{table['id']}/hands/").data
    assert [h["out_of_turn"] for h in listed] == [True]


@pytest.mark.parametrize("who", ["scorer", "player"])
def test_an_override_from_anyone_but_an_admin_is_a_403(api, scorer_api, world, who):
    table = open_table(scorer_api, world, **first_pair(world))
    api.force_authenticate(world["scorer"] if who == "scorer" else world["users"]["Bruno"])
    body = hand_body(world, "Bruno", "Anna", override="ci siamo accordati")
    response = post_hand(api, table, body)
    assert response.status_code == 403
    assert "admin" in response.data["detail"]
    # Even on a hand in turn: the field is an admin's.
    response = post_hand(api, table, hand_body(world, "Anna", "Bruno", override="per sicurezza"))
    assert response.status_code == 403
    assert not Hand.objects.exists()


def test_an_admins_preview_out_of_turn_says_so_and_saves_nothing(api, world):
    api.force_authenticate(world["admin"])
    table = open_table(api, world, **first_pair(world))
    body = hand_body(world, "Bruno", "Anna", override="prova", preview=True)
    response = post_hand(api, table, body)
    assert response.status_code == 200 and response.data["out_of_turn"] is True
    assert not Hand.objects.exists()


def test_a_preview_answers_the_same_and_saves_nothing(scorer_api, world):
    table = open_table(
        scorer_api, world, first_dealer=ids(world, "Anna")[0], first_opponent=ids(world, "Bruno")[0]
    )
    body = hand_body(world, "Anna", "Bruno", quotas=2, covers={"Bruno": 2}, preview=True)
    response = post_hand(scorer_api, table, body)
    assert response.status_code == 200
    assert response.data["status"] == "preview" and response.data["id"] is None
    assert response.data["transfers"][0]["points"] == 140
    assert not Hand.objects.exists() and not Outcome.objects.exists()
    refused = post_hand(scorer_api, table, dict(body, loser_cards=SEVENTY[:5]))
    assert refused.status_code == 400 and codes(refused) == {"hand_size"}


def test_hands_are_listed_in_order_with_their_history(scorer_api, world):
    anna, bruno = ids(world, "Anna", "Bruno")
    table = open_table(scorer_api, world, first_dealer=anna, first_opponent=bruno)
    first = post_hand(scorer_api, table, hand_body(world, "Anna", "Bruno")).data
    post_hand(scorer_api, table, hand_body(world, "Anna", "Carla", winner="opponent"))
    url = f"/api/v1/table-sessions/{table['id']}/hands/{first['id']}/correct/"
    body = result_body(world, "Anna", "Bruno", quotas=2, covers={"Bruno": 2}, reason="Erano 2")
    corrected = scorer_api.post(url, body, format="json")
    assert corrected.status_code == 200, corrected.data
    assert corrected.data["dealer_quotas"] == 2
    assert [h["status"] for h in corrected.data["history"]] == ["superseded", "confirmed"]
    hands = scorer_api.get(f"/api/v1/table-sessions/{table['id']}/hands/").data
    assert [h["number"] for h in hands] == [1, 2]
    assert hands[1]["winner"] == "opponent"
    void = scorer_api.post(
        f"/api/v1/table-sessions/{table['id']}/hands/{hands[1]['id']}/void/",
        {"reason": "Carte viste"},
        format="json",
    )
    assert void.status_code == 200 and void.data["status"] == "voided"


def test_a_correction_that_names_the_hands_players_is_refused_by_name(scorer_api, world):
    anna, bruno = ids(world, "Anna", "Bruno")
    table = open_table(scorer_api, world, first_dealer=anna, first_opponent=bruno)
    first = post_hand(scorer_api, table, hand_body(world, "Anna", "Bruno")).data
    url = f"/api/v1/table-sessions/{table['id']}/hands/{first['id']}/correct/"
    body = hand_body(world, "Anna", "Carla", quotas=2, reason="Era Carla")
    response = scorer_api.post(url, body, format="json")
    assert response.status_code == 400
    assert {"dealer", "opponent"} <= set(response.json()), response.json()
    assert Outcome.objects.get().status == "confirmed"


def test_a_correction_the_rules_refuse_is_a_400_and_changes_nothing(scorer_api, world):
    anna, bruno = ids(world, "Anna", "Bruno")
    table = open_table(scorer_api, world, first_dealer=anna, first_opponent=bruno)
    first = post_hand(scorer_api, table, hand_body(world, "Anna", "Bruno")).data
    url = f"/api/v1/table-sessions/{table['id']}/hands/{first['id']}/correct/"
    body = result_body(
        world, "Anna", "Bruno", loser_cards=["JK", "JK", "JK"] + SEVENTY[3:], reason="x"
    )
    response = scorer_api.post(url, body, format="json")
    assert response.status_code == 400 and codes(response) == {"too_many_copies"}
    assert Outcome.objects.get().status == "confirmed"


def test_a_player_reports_and_the_other_confirms_through_the_api(api, world):
    sam_api = api
    sam_api.force_authenticate(world["scorer"])
    anna, bruno = ids(world, "Anna", "Bruno")
    table = open_table(sam_api, world, first_dealer=anna, first_opponent=bruno)
    api.force_authenticate(world["users"]["Anna"])
    reported = post_hand(api, table, hand_body(world, "Anna", "Bruno"))
    assert reported.status_code == 201 and reported.data["status"] == "reported"
    url = f"/api/v1/table-sessions/{table['id']}/hands/{reported.data['id']}/confirm/"
    assert api.post(url).status_code == 403
    api.force_authenticate(world["users"]["Bruno"])
    confirmed = api.post(url)
    assert confirmed.status_code == 200 and confirmed.data["status"] == "confirmed"


def test_the_same_idempotency_key_answers_the_hand_already_recorded(scorer_api, world):
    anna, bruno = ids(world, "Anna", "Bruno")
    table = open_table(
        scorer_api, world, names=("Anna", "Bruno"), first_dealer=anna, first_opponent=bruno
    )
    body = hand_body(world, "Anna", "Bruno")
    first = post_hand(scorer_api, table, body, HTTP_IDEMPOTENCY_KEY="k-1")
    again = post_hand(scorer_api, table, body, HTTP_IDEMPOTENCY_KEY="k-1")
    assert (first.status_code, again.status_code) == (201, 200)
    assert first.data["id"] == again.data["id"] and Hand.objects.count() == 1


def test_seats_join_leave_sit_out_and_return(scorer_api, world):
    anna, bruno, elena = ids(world, "Anna", "Bruno", "Elena")
    table = open_table(scorer_api, world, first_dealer=anna, first_opponent=bruno)
    base = f"/api/v1/table-sessions/{table['id']}/seats/"
    joined = scorer_api.post(base, {"player": elena}, format="json")
    assert joined.status_code == 201 and joined.data["seats"][-1] == elena
    out = scorer_api.post(f"{base}{bruno}/sit-out/")
    assert out.status_code == 200
    assert next(s for s in out.data["seating"] if s["player"] == bruno)["sitting_out"]
    assert out.data["next"] is None  # the drawn pair is broken: any two may play
    back = scorer_api.post(f"{base}{bruno}/return/")
    assert back.data["next"] == {"dealer": anna, "opponent": bruno}
    left = scorer_api.post(f"{base}{elena}/leave/")
    assert elena not in left.data["seats"]
    assert next(s for s in left.data["seating"] if s["player"] == elena)["left"]
    again = scorer_api.post(f"{base}{elena}/leave/")
    assert again.status_code == 409 and "player" in again.data
    nobody = scorer_api.post(f"{base}{ids(world, 'Carla')[0] + 1000}/leave/")
    assert nobody.status_code == 404


def test_tables_are_filtered_by_club_season_and_open(scorer_api, world):
    first = open_table(scorer_api, world)
    second = open_table(scorer_api, world, names=("Elena", "Franco"))
    scorer_api.post(f"/api/v1/table-sessions/{second['id']}/close/")
    url = f"/api/v1/table-sessions/?club__slug={world['club'].slug}"
    assert {t["id"] for t in scorer_api.get(url).data["results"]} == {first["id"], second["id"]}
    assert [t["id"] for t in scorer_api.get(url + "&open=true").data["results"]] == [first["id"]]
    assert [t["id"] for t in scorer_api.get(url + "&open=false").data["results"]] == [second["id"]]
    assert scorer_api.get("/api/v1/table-sessions/?club__slug=nope").data["results"] == []


@pytest.mark.parametrize(
    "change, field",
    [
        ({"seats": [1, 1]}, "seats"),
        ({"seats": ["1", "2"]}, "seats"),
        ({"name": ""}, "name"),
        ({"point_value": "-2"}, "point_value"),
        ({"point_value": 0.5}, "point_value"),
    ],
)
def test_a_bad_table_is_a_400_naming_the_field(scorer_api, world, change, field):
    body = {"club": world["club"].slug, "name": "T", "seats": ids(world, "Anna", "Bruno")}
    body.update(change)
    response = scorer_api.post("/api/v1/table-sessions/", body, format="json")
    assert response.status_code == 400 and field in response.data, response.data


@pytest.mark.parametrize(
    "change, field",
    [
        ({"seats": [999999, 1]}, "seats"),
        ({"club": "nope"}, "club"),
        ({"first_dealer": 999999, "first_opponent": 1}, "first_dealer"),
    ],
)
def test_a_table_naming_what_is_not_there_is_a_404(scorer_api, world, change, field):
    body = {"club": world["club"].slug, "name": "T", "seats": ids(world, "Anna", "Bruno")}
    body.update(change)
    response = scorer_api.post("/api/v1/table-sessions/", body, format="json")
    assert response.status_code == 404 and list(response.data) == [field], response.data


@pytest.mark.parametrize(
    "change, field",
    [
        ({"winner": "nobody"}, "winner"),
        ({"dealer_quotas": "many"}, "dealer_quotas"),
        ({"dealer_quotas": 0}, "dealer_quotas"),
        ({"covers": {"12": "x"}}, "covers"),
        ({"covers": [1, 2]}, "covers"),
        ({"winner_cards": "AS"}, "winner_cards"),
        ({"side_bets": [{"backer_of_winner": 1}]}, "side_bets[0].backer_of_loser"),
        ({"dealer": "1"}, "dealer"),
    ],
)
def test_a_bad_hand_is_a_400_naming_the_field(scorer_api, world, change, field):
    anna, bruno = ids(world, "Anna", "Bruno")
    table = open_table(scorer_api, world, first_dealer=anna, first_opponent=bruno)
    response = post_hand(scorer_api, table, dict(hand_body(world, "Anna", "Bruno"), **change))
    assert response.status_code == 400 and field in response.data, response.data


@pytest.mark.parametrize(
    "change, field",
    [
        ({"covers": {"abc": 1}}, "covers"),
        ({"covers": {"999999": 1}}, "covers.999999"),
        ({"dealer": 999999}, "dealer"),
        ({"opponent": 999999}, "opponent"),
    ],
)
def test_a_hand_naming_who_is_not_there_is_a_404(scorer_api, world, change, field):
    anna, bruno = ids(world, "Anna", "Bruno")
    table = open_table(scorer_api, world, first_dealer=anna, first_opponent=bruno)
    response = post_hand(scorer_api, table, dict(hand_body(world, "Anna", "Bruno"), **change))
    assert response.status_code == 404 and list(response.data) == [field], response.data
    assert not Hand.objects.exists()


@pytest.mark.parametrize("field", ["dealer", "opponent"])
def test_a_player_of_the_club_without_a_seat_here_is_named_in_the_404(scorer_api, world, field):
    anna, bruno = ids(world, "Anna", "Bruno")
    table = open_table(scorer_api, world, first_dealer=anna, first_opponent=bruno)
    body = dict(hand_body(world, "Anna", "Bruno"), **{field: world["players"]["Elena"].pk})
    response = post_hand(scorer_api, table, body)
    assert response.status_code == 404 and list(response.data) == [field], response.data
    assert "Elena is not playing at this table" in str(response.data[field])
    assert not Hand.objects.exists()


def _hand_queries(api, world, table, dealer, opponent, covers, bets):
    p = world["players"]
    body = hand_body(world, dealer, opponent, quotas=10, covers=covers)
    body["side_bets"] = [
        {"backer_of_winner": p[a].pk, "backer_of_loser": p[b].pk, "quotas": 1} for a, b in bets
    ]
    with CaptureQueriesContext(connection) as queries:
        response = post_hand(api, table, body)
    assert response.status_code == 201, response.data
    if os.environ.get("SHOW_QUERIES"):
        print(len(queries), *(q["sql"][:200] for q in queries.captured_queries), sep="\n")
    return len(queries)


def test_recording_a_hand_takes_as_many_queries_with_two_people_as_with_six(scorer_api, world):
    everyone = ("Anna", "Bruno", "Carla", "Dario", "Elena", "Franco")
    anna, bruno = ids(world, "Anna", "Bruno")
    table = open_table(scorer_api, world, names=everyone, first_dealer=anna, first_opponent=bruno)
    _hand_queries(scorer_api, world, table, "Anna", "Bruno", {"Bruno": 1}, [])  # warm caches
    small = _hand_queries(scorer_api, world, table, "Anna", "Carla", {"Carla": 1}, [])
    big = _hand_queries(
        scorer_api,
        world,
        table,
        "Anna",
        "Dario",
        {"Dario": 2, "Bruno": 2, "Carla": 2},
        [("Elena", "Franco"), ("Franco", "Elena")],
    )
    assert small == big, (small, big)
