"""Spazz'u'mazz records through the checker (RULES.md "Spazz'u'mazz" and "Details of the
records"): deals, error codes, phases, exit codes, short results and the public examples.

Records are built by hand: the cards that matter are named, the rest of the decks fill the
face-down and face-up cards and the stock behind the named stock cards, so every deal is a
legal one unless a test spoils it. Turns are written as in test_rules_spazzumazz_play.py:
``"Anna 7S +7H"`` (``+`` for a face-up card), ``"Anna pickup"``, ``"Anna blind 0"``.
"""

from __future__ import annotations

import copy
import json

import pytest

from rules.bots.spazzumazz import play_game
from rules.check import check_record as check
from rules.spazzumazz import Blind, Pickup, Play, deck_count, read_log, replay

RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
ONE_DECK = [rank + suit for rank in RANKS for suit in "SHDC"]
PARTS = {"face_down": 3, "face_up": 3, "hand": 5}


def build(
    deal: dict[str, dict[str, str]], stock: str = "", turns: tuple[str, ...] = ()
) -> dict[str, object]:
    """A legal record whose players (in ``deal`` order) hold the named cards."""
    pool = ONE_DECK * deck_count(len(deal))
    for given in [*(part for parts in deal.values() for part in parts.values()), stock]:
        for card in given.split():
            pool.remove(card)  # a ValueError here is a mistake in the test
    dealt = {}
    for name, parts in deal.items():
        dealt[name] = {}
        for part, size in PARTS.items():
            cards = parts.get(part, "").split()
            dealt[name][part] = cards + [pool.pop() for _ in range(size - len(cards))]
    return {
        "game": "spazzumazz",
        "players": list(deal),
        "deal": dealt,
        "stock": stock.split() + pool,
        "turns": [turn(text) for text in turns],
    }


def turn(text: str) -> dict[str, object]:
    player, *rest = text.split()
    if rest == ["pickup"]:
        return {"player": player, "pickup": True}
    if rest[:1] == ["blind"]:
        return {"player": player, "blind": int(rest[1])}
    return {
        "player": player,
        "play": [t for t in rest if not t.startswith("+")],
        "face_up": [t[1:] for t in rest if t.startswith("+")],
    }


def two(anna: str = "4C 5C 6C 8C 9C", bruno: str = "4D 5D 6D 8D 9D", **more: str) -> dict:
    """Anna and Bruno with the given hands (and face-up cards ``anna_up``/``bruno_up``)."""
    return {
        "Anna": {"hand": anna, "face_up": more.get("anna_up", "")},
        "Bruno": {"hand": bruno, "face_up": more.get("bruno_up", "")},
    }


def errors(record: object) -> tuple[int, list[tuple[str, object]]]:
    code, result = check(record)
    return code, [(e["code"], e["at"]) for e in result.get("errors", [])]


# -- a valid log -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def finished() -> dict:
    """A whole game, played to its end by the bot."""
    return json.loads(json.dumps(play_game(3, players=3)))


def test_a_whole_game_gives_the_finish_order_the_idiot_and_the_counts(finished):
    code, result = check(finished)
    assert code == 0
    assert set(result) == {"valid", "finish_order", "idiot", "turns", "pickups", "sweeps"}
    assert sorted(result["finish_order"]) == sorted(finished["players"])
    assert result["idiot"] == result["finish_order"][-1]
    assert result["turns"] == len(finished["turns"])
    assert set(result["pickups"]) == set(finished["players"])
    assert sum(result["pickups"].values()) >= sum("pickup" in t for t in finished["turns"])
    assert isinstance(result["sweeps"], int) and result["sweeps"] >= 0


def test_any_turn_after_the_end_is_after_end(finished):
    record = copy.deepcopy(finished)
    idiot = check(finished)[1]["idiot"]
    record["turns"].append({"player": idiot, "pickup": True})
    assert errors(record) == (1, [("after_end", len(finished["turns"]))])


def test_a_log_that_stops_early_is_not_finished(finished):
    record = copy.deepcopy(finished)
    del record["turns"][-1]
    assert errors(record) == (1, [("not_finished", len(record["turns"]))])


def test_card_notation_is_lenient_in_the_deal_the_stock_and_the_turns(finished):
    def lenient(token: str) -> str:
        return " " + token.lower().replace("10", "t").replace("s", "♠") + " "

    record = copy.deepcopy(finished)
    for parts in record["deal"].values():
        for part in parts:
            parts[part] = [lenient(c) for c in parts[part]]
    record["stock"] = [lenient(c) for c in record["stock"]]
    for t in record["turns"]:
        for key in ("play", "face_up"):
            if key in t:
                t[key] = [lenient(c) for c in t[key]]
    assert check(record) == check(finished)


def test_read_log_round_trips_a_canonical_record_and_replay_agrees_with_the_checker(finished):
    log = read_log(finished)
    assert log.as_record() == finished
    assert {"valid": True, **replay(log).as_result()} == check(finished)[1]
    assert {type(t) for t in log.turns} <= {Play, Pickup, Blind}


# -- illegal turns ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("deal", "turns", "code", "at"),
    [
        (two(), ["Anna AS"], "not_in_hand", 0),
        (two(), ["Anna 4C 4C"], "not_in_hand", 0),
        (two(), ["Anna 4C +4D"], "not_in_hand", 0),
        (two(anna="4C 4H 6C 8C 9C"), ["Anna 4C 4H"], None, None),
        (two(), ["Anna 4C 5C"], "mixed_ranks", 0),
        (two(anna_up="5H"), ["Anna 4C +5H"], "mixed_ranks", 0),
        (two(), ["Anna 9C", "Bruno 5D"], "too_low", 1),
        (two(), ["Anna 9C", "Bruno 9D"], None, None),
        (two(), ["Anna pickup"], "must_play", 0),
        (two(anna="KC AC AH AS 9C"), ["Anna AC", "Bruno pickup"], None, None),
        (two(bruno="2D 5D 6D 8D 9D"), ["Anna 9C", "Bruno pickup"], "must_play", 1),
        (two(bruno="10D 5D 6D 8D 9D"), ["Anna 9C", "Bruno pickup"], "must_play", 1),
        (two(), ["Bruno 4D"], "out_of_turn", 0),
        (two(), ["Anna 4C", "Anna 5C"], "out_of_turn", 1),
        (two(anna_up="7H"), ["Anna +7H"], "face_up_not_allowed", 0),
        (two(anna="7C 5C 6C 8C 9C", anna_up="7H"), ["Anna 7C +7H"], None, None),
        (two(), ["Anna blind 0"], "blind_not_allowed", 0),
        # RULES.md: a blind turn before blind play is allowed is blind_not_allowed, whatever
        # the index; an index outside the face-down cards left is not_in_hand.
        (two(), ["Anna blind -1"], "blind_not_allowed", 0),
        (two(), ["Anna blind 3"], "blind_not_allowed", 0),
        (two(), [f"Anna blind {10**4299}"], "blind_not_allowed", 0),
        (two(), ["Anna 4C", "Bruno 4D"], "not_finished", 2),
        (two(), ["Anna 9C", "Bruno 4D", "Anna 4C"], "too_low", 1),
    ],
)
def test_each_illegal_turn_has_its_code_and_index(deal, turns, code, at):
    result = errors(build(deal, turns=tuple(turns)))
    if code is None:  # a legal start: only the end of the log is missing
        assert result == (1, [("not_finished", len(turns))])
    else:
        assert result == (1, [(code, at)])


@pytest.fixture(scope="module")
def with_blind() -> tuple[dict, int]:
    """A bot game with a blind turn, and the index of its first one."""
    for seed in range(100):
        record = json.loads(json.dumps(play_game(seed, players=2)))
        blinds = [i for i, t in enumerate(record["turns"]) if "blind" in t]
        if blinds:
            return record, blinds[0]
    raise AssertionError("no bot game of 100 played blind")


@pytest.mark.parametrize("index", [-1, -4, 3, 10**4299, -(10**4299)])
def test_a_blind_index_outside_the_face_down_cards_left_is_not_in_hand(with_blind, index):
    record, at = copy.deepcopy(with_blind[0]), with_blind[1]
    record["turns"][at]["blind"] = index
    code, result = check(record)
    assert (code, [(e["code"], e["at"]) for e in result["errors"]]) == (1, [("not_in_hand", at)])
    json.dumps(result)  # the message prints, however large the index


def test_a_replay_stops_at_the_first_illegal_turn():
    record = build(two(), turns=("Anna 9C", "Bruno 5D", "Anna AS", "Anna pickup"))
    assert errors(record) == (1, [("too_low", 1)])


def test_the_error_messages_name_the_player_the_cards_and_the_ranks():
    code, result = check(build(two(), turns=("Anna AS",)))
    assert result["errors"][0]["message"] == "turn 0: Anna does not hold ['AS'] in hand"
    code, result = check(build(two(), turns=("Anna 9C", "Bruno 5D")))
    assert result["errors"][0]["message"] == "turn 1: 5 is lower than 9"


# -- the deal --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "decks"),
    [(2, 2), (3, 2), (4, 2), (5, 3), (7, 3), (8, 4), (10, 4), (11, 5), (14, 6)],
)
def test_the_decks_grow_by_one_for_every_three_players_beyond_two(players, decks):
    assert deck_count(players) == decks
    names = [f"P{i}" for i in range(players)]
    record = build({name: {} for name in names})
    assert len(record["stock"]) == 52 * decks - 11 * players
    assert errors(record) == (1, [("not_finished", 0)])
    fewer = dict(record, stock=record["stock"][52:])
    assert errors(fewer)[1][0][0] == "bad_deal"
    more = dict(record, stock=record["stock"] + ONE_DECK)
    assert errors(more)[1][0][0] == "bad_deal"


def spoil(record: dict, how: str) -> dict:
    record = copy.deepcopy(record)
    anna, bruno = record["deal"]["Anna"], record["deal"]["Bruno"]
    if how == "hand of four":
        record["stock"].append(anna["hand"].pop())
    elif how == "hand of six":
        anna["hand"].append(record["stock"].pop())
    elif how == "four face up":
        bruno["face_up"].append(record["stock"].pop())
    elif how == "two face down":
        record["stock"].append(bruno["face_down"].pop())
    elif how == "a joker":
        record["stock"][0] = "JK"
    elif how == "a third copy":
        record["stock"][0] = anna["hand"][0]
    elif how == "a card missing":
        record["stock"].pop()
    return record


@pytest.mark.parametrize(
    ("how", "at"),
    [
        ("hand of four", ["deal.Anna.hand"]),
        ("hand of six", ["deal.Anna.hand"]),
        ("four face up", ["deal.Bruno.face_up"]),
        ("two face down", ["deal.Bruno.face_down"]),
        ("a joker", ["stock"]),
        ("a third copy", ["stock"]),
        ("a card missing", ["stock"]),
    ],
)
def test_a_deal_that_is_not_three_three_five_from_exactly_the_decks_is_bad_deal(how, at):
    assert errors(spoil(build(two()), how)) == (1, [("bad_deal", where) for where in at])


def test_every_bad_deal_is_reported_together():
    record = spoil(spoil(build(two()), "hand of four"), "four face up")
    record["stock"].pop()
    assert errors(record) == (
        1,
        [("bad_deal", "deal.Anna.hand"), ("bad_deal", "deal.Bruno.face_up"), ("bad_deal", "stock")],
    )


# -- unknown cards and the phases ------------------------------------------------------------


def test_every_unknown_card_is_reported_with_its_place():
    record = build(two(), turns=("Anna 4C", "Bruno 4D"))
    record["deal"]["Anna"]["hand"][0] = "1"
    record["stock"][3] = "JKS"
    record["turns"][1]["play"] = ["4D", "11"]
    record["turns"][0]["face_up"] = ["A S"]
    assert errors(record) == (
        1,
        [
            ("unknown_card", "deal.Anna.hand[0]"),
            ("unknown_card", "stock[3]"),
            ("unknown_card", "turns[0].face_up[0]"),
            ("unknown_card", "turns[1].play[1]"),
        ],
    )


@pytest.mark.parametrize(
    ("spoilt", "expected"),
    [
        ("unknown card and bad deal", (1, [("unknown_card", "stock[0]")])),
        ("unknown card in a turn and bad deal", (1, [("unknown_card", "turns[1].play[0]")])),
        ("bad deal and an illegal turn", (1, [("bad_deal", "deal.Anna.hand")])),
        ("unknown card and a malformed turn", (2, [("bad_record", "turns[2].player")])),
    ],
)
def test_checks_stop_at_the_first_phase_that_fails(spoilt, expected):
    record = build(two(), turns=("Anna 9C", "Bruno 5D", "Anna 4C"))
    if "unknown card and" in spoilt:
        record["stock"][0] = "ZZ"
    if "in a turn" in spoilt:
        record["turns"][1]["play"] = ["ZZ"]
    if "bad deal" in spoilt:
        record["stock"].append(record["deal"]["Anna"]["hand"].pop())
    if "malformed turn" in spoilt:
        record["turns"][2]["player"] = "Zeno"
    assert errors(record) == expected


# -- malformed records (exit 2) --------------------------------------------------------------


def _malformed() -> list[tuple[str, object]]:
    base = build(two(), turns=("Anna 4C",))
    cases: list[tuple[str, object]] = []

    def case(desc: str, change) -> None:
        record = copy.deepcopy(base)
        change(record)
        cases.append((desc, record))

    case("players missing", lambda r: r.pop("players"))
    case("players not a list", lambda r: r.update(players="Anna Bruno"))
    case("one player", lambda r: r.update(players=["Anna"]))
    case("a repeated player", lambda r: r.update(players=["Anna", "Anna"]))
    case("an empty name", lambda r: r.update(players=["Anna", ""]))
    case("a name that is not a string", lambda r: r.update(players=["Anna", 7]))
    case("deal missing", lambda r: r.pop("deal"))
    case("deal not an object", lambda r: r.update(deal=[]))
    case("no deal for a player", lambda r: r["deal"].pop("Bruno"))
    case("a deal for a stranger", lambda r: r["deal"].update(Zeno=r["deal"]["Anna"]))
    case("a deal entry not an object", lambda r: r["deal"].update(Anna=["4C"]))
    case("a hand missing", lambda r: r["deal"]["Anna"].pop("hand"))
    case("face up not a list", lambda r: r["deal"]["Anna"].update(face_up="4C"))
    case("a card that is not a string", lambda r: r["deal"]["Anna"]["hand"].__setitem__(0, 4))
    case("stock missing", lambda r: r.pop("stock"))
    case("stock not a list", lambda r: r.update(stock={}))
    case("a stock card that is null", lambda r: r["stock"].__setitem__(0, None))
    case("turns missing", lambda r: r.pop("turns"))
    case("turns not a list", lambda r: r.update(turns={"0": {}}))
    case("a turn not an object", lambda r: r["turns"].append(["Bruno", "pickup"]))
    case("a turn without player", lambda r: r["turns"].append({"pickup": True}))
    case("a turn by a stranger", lambda r: r["turns"].append({"player": "Zeno", "pickup": True}))
    case("a turn by a number", lambda r: r["turns"].append({"player": 10**400, "pickup": True}))
    case("a turn with nothing", lambda r: r["turns"].append({"player": "Bruno"}))
    case("two empty lists", lambda r: r["turns"].append(turn("Bruno")))
    case("null lists", lambda r: r["turns"].append({"player": "Bruno", "play": None}))
    case("pickup false", lambda r: r["turns"].append({"player": "Bruno", "pickup": False}))
    case("pickup 1", lambda r: r["turns"].append({"player": "Bruno", "pickup": 1}))
    case(
        "pickup with cards",
        lambda r: r["turns"].append({"player": "Bruno", "pickup": True, "play": ["4D"]}),
    )
    case(
        "pickup and blind",
        lambda r: r["turns"].append({"player": "Bruno", "pickup": True, "blind": 0}),
    )
    case("blind true", lambda r: r["turns"].append({"player": "Bruno", "blind": True}))
    case("blind 1.0", lambda r: r["turns"].append({"player": "Bruno", "blind": 1.0}))
    case("blind '0'", lambda r: r["turns"].append({"player": "Bruno", "blind": "0"}))
    case(
        "blind with cards",
        lambda r: r["turns"].append({"player": "Bruno", "blind": 0, "play": []}),
    )
    case("play a string", lambda r: r["turns"].append({"player": "Bruno", "play": "4D"}))
    case("play an object", lambda r: r["turns"].append({"player": "Bruno", "play": {"4D": 1}}))
    case("face up numbers", lambda r: r["turns"].append({"player": "Bruno", "face_up": [4]}))
    case(
        "nested junk",
        lambda r: r["turns"].append({"player": "Bruno", "play": [[[["4D"]]]]}),
    )
    case("short result and log", lambda r: r.update(finish_order=["Anna", "Bruno"]))
    case("an unknown house rule", lambda r: r.update(house_rules={"jokers": 2}))
    case("idiot_min_games 0", lambda r: r.update(house_rules={"idiot_min_games": 0}))
    case("idiot_min_games '10'", lambda r: r.update(house_rules={"idiot_min_games": "10"}))
    case("idiot_min_games true", lambda r: r.update(house_rules={"idiot_min_games": True}))
    return cases


@pytest.mark.parametrize(("desc", "record"), _malformed(), ids=[c[0] for c in _malformed()])
def test_a_malformed_record_is_exit_2(desc, record):
    code, result = check(record)
    assert code == 2, desc
    assert result["valid"] is False
    assert {e["code"] for e in result["errors"]} == {"bad_record"}


def test_a_malformed_turn_late_in_the_log_wins_over_an_illegal_turn_early():
    record = build(two(), turns=("Anna AS",))
    record["turns"].append({"player": "Bruno", "pickup": "yes"})
    assert errors(record) == (2, [("bad_record", "turns[1]")])


def test_fields_not_named_are_ignored_and_house_rules_may_be_given():
    record = build(two(), turns=("Anna 4C",))
    record["note"] = {"deep": [[[]]]}
    record["turns"][0]["t"] = 12.5
    record["house_rules"] = {"idiot_min_games": 3}
    assert errors(record) == (1, [("not_finished", 1)])


# -- short results ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "order"),
    [
        (["Anna", "Bruno"], ["Bruno", "Anna"]),
        (["Anna", "Bruno", "Carla"], ["Carla", "Anna", "Bruno"]),
        (["Anna", "Bruno", "Carla", "Dario"], ["Anna", "Bruno", "Carla", "Dario"]),
    ],
)
def test_a_short_result_names_the_idiot_last(players, order):
    record = {"game": "spazzumazz", "players": players, "finish_order": order}
    assert check(record) == (0, {"valid": True, "finish_order": order, "idiot": order[-1]})


@pytest.mark.parametrize(
    "order",
    [
        ["Anna"],
        ["Anna", "Anna", "Bruno"],
        ["Anna", "Bruno", "Zeno"],
        ["Anna", "Zeno"],
        ["Anna", "Bruno", "Carla", "Anna"],
        "Anna, Bruno, Carla",
        ["Anna", "Bruno", 3],
        [["Anna"], "Bruno", "Carla"],
    ],
)
def test_a_finish_order_that_is_not_every_player_once_is_exit_2(order):
    record = {"game": "spazzumazz", "players": ["Anna", "Bruno", "Carla"], "finish_order": order}
    assert errors(record) == (2, [("bad_record", "finish_order")])


def test_a_record_with_neither_a_short_result_nor_a_log_is_exit_2():
    assert check({"game": "spazzumazz", "players": ["Anna", "Bruno"]})[0] == 2
