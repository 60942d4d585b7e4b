"""Sputo records: structure (exit 2), options, short results, card tokens and the deal
(RULES.md "Records and the checker" and "Details of the records")."""

from __future__ import annotations

import copy
import json

import pytest

from rules.bots.sputo import random_record
from rules.check import check_record as check
from rules.errors import MalformedRecordError
from rules.sputo import Options, Variant

ANNA, BRUNO = "Anna", "Bruno"


def bot_record(variant: str = "classic", seed: int = 3, **options: bool) -> dict:
    """A finished, valid record played by the bot (a fresh copy each time)."""
    chosen = {"suit_match": False, "splash": False, **options}
    return copy.deepcopy(_cached(variant, seed, json.dumps(chosen, sort_keys=True)))


_CACHE: dict[tuple[str, int, str], dict] = {}


def _cached(variant: str, seed: int, options: str) -> dict:
    key = (variant, seed, options)
    if key not in _CACHE:
        _CACHE[key] = random_record(seed, variant=variant, options=json.loads(options))
    return _CACHE[key]


def short(**fields: object) -> dict:
    base = {
        "game": "sputo",
        "variant": "classic",
        "options": {"suit_match": False, "splash": False},
        "players": [ANNA, BRUNO],
        "winner": BRUNO,
        "loser_cards_left": 7,
    }
    base.update(fields)
    return {name: value for name, value in base.items() if value is not ...}


def codes(result: dict) -> list[tuple[str, object]]:
    return [(error["code"], error["at"]) for error in result["errors"]]


def exit_code_of(record: dict) -> int:
    return check(record)[0]


# -- short results ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("variant", "left"),
    [("classic", 1), ("classic", 23), ("modern", 28), ("single_deck", 15), ("modern", 7)],
)
def test_a_plausible_short_result_is_valid_and_echoed(variant, left):
    exit_code, result = check(short(variant=variant, loser_cards_left=left, winner=ANNA))
    assert (exit_code, result) == (0, {"valid": True, "winner": ANNA, "loser_cards_left": left})


@pytest.mark.parametrize(
    ("fields", "at"),
    [
        ({"winner": "Carla"}, "winner"),
        ({"winner": 0}, "winner"),
        ({"loser_cards_left": 0}, "loser_cards_left"),
        ({"loser_cards_left": -3}, "loser_cards_left"),
        ({"loser_cards_left": 24}, "loser_cards_left"),
        ({"variant": "single_deck", "loser_cards_left": 16}, "loser_cards_left"),
        ({"variant": "modern", "loser_cards_left": 29}, "loser_cards_left"),
        ({"loser_cards_left": True}, "loser_cards_left"),
        ({"loser_cards_left": 7.0}, "loser_cards_left"),
        ({"loser_cards_left": "7"}, "loser_cards_left"),
        ({"loser_cards_left": 10**400}, "loser_cards_left"),
        ({"loser_cards_left": ...}, "loser_cards_left"),
        ({"winner": ...}, "winner"),
        ({"winner": ..., "loser_cards_left": ...}, "winner"),
    ],
)
def test_an_impossible_short_result_is_unusable(fields, at):
    exit_code, result = check(short(**fields))
    assert exit_code == 2
    assert [(e["code"], e["at"]) for e in result["errors"]] == [("bad_record", at)]


@pytest.mark.parametrize("log_field", ["deal", "events"])
def test_a_record_with_both_a_short_result_and_a_log_is_unusable(log_field):
    record = bot_record()
    record["winner"], record["loser_cards_left"] = ANNA, 3
    assert exit_code_of(record) == 2
    del record[log_field]
    assert exit_code_of(record) == 2


@pytest.mark.parametrize("missing", ["deal", "events"])
def test_a_log_needs_both_the_deal_and_the_events(missing):
    record = bot_record()
    del record[missing]
    exit_code, result = check(record)
    assert (exit_code, codes(result)) == (2, [("bad_record", missing)])


# -- variant, options, players, house rules ----------------------------------------------------


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        (None, Options()),
        ({}, Options()),
        ({"suit_match": True}, Options(suit_match=True)),
        ({"splash": True, "suit_match": False}, Options(splash=True)),
        (["splash"], Options(splash=True)),
        (["suit_match", "splash"], Options(suit_match=True, splash=True)),
        ([], Options()),
    ],
)
def test_options_are_an_object_of_flags_or_a_list_of_names(options, expected):
    assert Options.parse(options) == expected


@pytest.mark.parametrize(
    "options",
    [
        {"colour": True},
        {"splash": "yes"},
        {"splash": 1},
        {"suit_match": None},
        ["colour"],
        [1],
        [["splash"]],
        "splash",
        True,
        7,
    ],
)
def test_a_bad_option_is_unusable(options):
    with pytest.raises(MalformedRecordError):
        Options.parse(options)
    assert exit_code_of(short(options=options)) == 2


@pytest.mark.parametrize("variant", ["classic", "modern", "single_deck"])
@pytest.mark.parametrize("options", [["suit_match"], ["splash"], ["suit_match", "splash"]])
def test_every_option_works_with_every_variant(variant, options):
    record = random_record(11, variant=variant, options=Options.parse(options).as_dict())
    record["options"] = options
    assert exit_code_of(record) == 0


def test_options_may_be_left_out():
    assert exit_code_of(short(options=...)) == 0


@pytest.mark.parametrize("variant", [..., None, "turbo", "Classic", 3, ["classic"]])
def test_the_variant_is_required_and_one_of_three(variant):
    exit_code, result = check(short(variant=variant))
    assert (exit_code, codes(result)) == (2, [("bad_record", "variant")])


@pytest.mark.parametrize(
    "players",
    [[ANNA], [ANNA, BRUNO, "Carla"], [ANNA, ANNA], [ANNA, ""], [ANNA, 7], "Anna", None],
)
def test_players_are_two_distinct_names(players):
    assert exit_code_of(short(players=players)) == 2


@pytest.mark.parametrize(
    ("house_rules", "exit_code"), [(None, 0), ({}, 0), ({"cap": 100}, 2), ([], 2)]
)
def test_sputo_has_no_house_rules(house_rules, exit_code):
    assert exit_code_of(short(house_rules=house_rules)) == exit_code


def test_fields_not_named_are_ignored():
    record = bot_record()
    record["venue"] = {"deep": [[[]]]}
    record["events"][0]["comment"] = "go!"
    assert exit_code_of(record) == 0


# -- the log's structure -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("description", "change", "at"),
    [
        ("events not a list", None, "events"),
        ("an event not an object", lambda ev, i: ev.__setitem__(i, "play"), "events[{i}]"),
        ("an unknown type", lambda ev, i: ev[i].update(type="deal"), "events[{i}].type"),
        ("a missing type", lambda ev, i: ev[i].pop("type"), "events[{i}].type"),
        ("a missing player", lambda ev, i: ev[i].pop("player"), "events[{i}].player"),
        ("a player not playing", lambda ev, i: ev[i].update(player="Carla"), "events[{i}].player"),
        ("a missing pile", lambda ev, i: ev[i].pop("pile"), "events[{i}].pile"),
        ("a boolean pile", lambda ev, i: ev[i].update(pile=True), "events[{i}].pile"),
        ("a string pile", lambda ev, i: ev[i].update(pile="0"), "events[{i}].pile"),
        ("a float pile", lambda ev, i: ev[i].update(pile=1.0), "events[{i}].pile"),
        ("a centre 2", lambda ev, i: ev[i].update(center=2), "events[{i}].center"),
        ("a boolean centre", lambda ev, i: ev[i].update(center=False), "events[{i}].center"),
        ("a missing centre", lambda ev, i: ev[i].pop("center"), "events[{i}].center"),
        ("a string t", lambda ev, i: ev[i].update(t="12:00"), "events[{i}].t"),
        ("a boolean t", lambda ev, i: ev[i].update(t=True), "events[{i}].t"),
        ("a list t", lambda ev, i: ev[i].update(t=[1]), "events[{i}].t"),
        ("a splash without player", lambda ev, i: ev.insert(i, {"type": "splash"}), None),
        ("a restock without stocks", lambda ev, i: ev.insert(i, {"type": "restock"}), None),
        (
            "a restock for one player",
            lambda ev, i: ev.insert(i, {"type": "restock", "stocks": {ANNA: []}}),
            "events[{i}].stocks",
        ),
        (
            "a restock with a stranger",
            lambda ev, i: ev.insert(
                i, {"type": "restock", "stocks": {ANNA: [], BRUNO: [], "Carla": []}}
            ),
            "events[{i}].stocks",
        ),
        (
            "a restock stock not a list",
            lambda ev, i: ev.insert(i, {"type": "restock", "stocks": {ANNA: [], BRUNO: "QH"}}),
            "events[{i}].stocks.Bruno",
        ),
        (
            "a restock card not a string",
            lambda ev, i: ev.insert(i, {"type": "restock", "stocks": {ANNA: [], BRUNO: [12]}}),
            "events[{i}].stocks.Bruno[0]",
        ),
    ],
)
def test_a_malformed_event_is_unusable_wherever_it_is(description, change, at):
    if change is None:
        record = bot_record()
        record["events"] = {"0": {"type": "flip"}}
        index = None
    else:
        record = bot_record()
        plays = [i for i, e in enumerate(record["events"]) if e["type"] == "play"]
        index = plays[2]
        change(record["events"], index)
    exit_code, result = check(record)
    assert exit_code == 2, description
    assert [e["code"] for e in result["errors"]] == ["bad_record"]
    if at is not None:
        assert result["errors"][0]["at"] == at.format(i=index)


# RULES.md, "Details of the records / Sputo": an integer pile that is not one of the
# player's piles is illegal_play at that event; a centre other than 0 or 1 is exit 2.
@pytest.mark.parametrize(
    ("variant", "pile"),
    [
        ("classic", -1),
        ("classic", 7),
        ("modern", 7),
        ("single_deck", 5),
        ("single_deck", -5),
        ("classic", 10**400),
        ("modern", -(10**4299)),
    ],
)
def test_an_integer_pile_the_player_does_not_have_is_an_illegal_play(variant, pile):
    record = bot_record(variant)
    index = [i for i, e in enumerate(record["events"]) if e["type"] == "play"][2]
    record["events"][index]["pile"] = pile
    exit_code, result = check(record)
    assert (exit_code, codes(result)) == (1, [("illegal_play", index)])
    assert "no pile" in result["errors"][0]["message"]
    json.dumps(result)  # however large the pile, the message prints


@pytest.mark.parametrize("center", [-1, 2, 10**400, True, 0.0, "0", None])
def test_a_centre_other_than_0_or_1_is_unusable(center):
    record = bot_record()
    index = [i for i, e in enumerate(record["events"]) if e["type"] == "play"][2]
    record["events"][index]["center"] = center
    exit_code, result = check(record)
    assert (exit_code, codes(result)) == (2, [("bad_record", f"events[{index}].center")])


def test_a_blocked_player_is_blocked_whatever_the_pile():
    record = bot_record("modern", splash=True)
    events = record["events"]
    splash = next(i for i, e in enumerate(events) if e["type"] == "splash")
    victim = BRUNO if events[splash]["player"] == ANNA else ANNA
    events.insert(splash + 1, {"type": "play", "player": victim, "pile": 99, "center": 0})
    assert codes(check(record)[1]) == [("blocked", splash + 1)]


def test_a_malformed_event_late_in_the_log_outranks_an_illegal_early_one():
    record = bot_record()
    record["events"][1]["pile"] = (record["events"][1]["pile"] + 1) % 7
    record["events"][-1]["center"] = 5
    assert exit_code_of(record) == 2


@pytest.mark.parametrize("t", [None, 0, -5, 3.25, 10**30])
def test_a_t_may_be_any_number_or_null_and_need_not_increase(t):
    record = bot_record()
    for event in record["events"]:
        event["t"] = t
    assert exit_code_of(record) == 0
    for event in record["events"]:
        del event["t"]
    assert exit_code_of(record) == 0


# -- the deal's structure and cards -------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "at"),
    [
        (lambda deal: deal.pop(BRUNO), "deal"),
        (lambda deal: deal.update(Carla=deal[ANNA]), "deal"),
        (lambda deal: deal.update(Anna=[]), "deal.Anna"),
        (lambda deal: deal[ANNA].pop("piles"), "deal.Anna.piles"),
        (lambda deal: deal[ANNA].pop("stock"), "deal.Anna.stock"),
        (lambda deal: deal[ANNA].update(piles={"0": []}), "deal.Anna.piles"),
        (lambda deal: deal[ANNA]["piles"].__setitem__(2, "QH"), "deal.Anna.piles[2]"),
        (lambda deal: deal[BRUNO].update(stock="QH"), "deal.Bruno.stock"),
        (lambda deal: deal[BRUNO]["stock"].__setitem__(4, 7), "deal.Bruno.stock[4]"),
        (lambda deal: deal[BRUNO]["piles"][0].__setitem__(0, None), "deal.Bruno.piles[0][0]"),
    ],
)
def test_a_malformed_deal_is_unusable(change, at):
    record = bot_record()
    change(record["deal"])
    exit_code, result = check(record)
    assert (exit_code, codes(result)) == (2, [("bad_record", at)])


def test_a_deal_that_is_not_an_object_is_unusable():
    record = bot_record()
    record["deal"] = [[["QH"]]]
    assert codes(check(record)[1]) == [("bad_record", "deal")]


@pytest.mark.parametrize("token", ["1", "11H", "JOKER", "A S", "JKS", "QX", ""])
def test_a_string_that_is_not_a_card_is_an_unknown_card(token):
    record = bot_record("modern")
    record["deal"][BRUNO]["piles"][1][0] = token
    exit_code, result = check(record)
    assert (exit_code, codes(result)) == (1, [("unknown_card", "deal.Bruno.piles[1][0]")])


@pytest.mark.parametrize("token", [" qh ", "10h", "Th", "q♠", "JK"])
def test_card_notation_is_forgiving_in_a_deal(token):
    record = bot_record("modern")
    card = (
        "JK"
        if token == "JK"
        else {"qh": "QH", "10h": "10H", "th": "10H", "q♠": "QS"}[token.strip().lower()]
    )
    # Write one occurrence of the card in a non-canonical spelling.
    for hand in record["deal"].values():
        for pile in hand["piles"]:
            if card in pile:
                pile[pile.index(card)] = token
                assert exit_code_of(record) == 0
                return
        if card in hand["stock"]:
            hand["stock"][hand["stock"].index(card)] = token
            assert exit_code_of(record) == 0
            return
    raise AssertionError(f"{card} is nowhere in the deal")


def test_every_unknown_card_is_reported_and_before_the_deal_is_counted():
    record = bot_record()
    record["deal"][ANNA]["piles"][0][0] = "1"
    record["deal"][ANNA]["stock"][3] = "ZZ"
    record["deal"][BRUNO]["piles"][6].append("11H")  # also a pile of the wrong size
    exit_code, result = check(record)
    assert exit_code == 1
    assert codes(result) == [
        ("unknown_card", "deal.Anna.piles[0][0]"),
        ("unknown_card", "deal.Anna.stock[3]"),
        ("unknown_card", "deal.Bruno.piles[6][2]"),
    ]


def test_a_malformed_field_outranks_unknown_cards():
    record = bot_record()
    record["deal"][ANNA]["piles"][0][0] = "1"
    record["events"][0]["t"] = "now"
    assert exit_code_of(record) == 2


# -- the deal's counts ----------------------------------------------------------------------------


def test_classic_piles_of_the_wrong_sizes_are_a_bad_deal_naming_the_player():
    record = bot_record("classic")
    bruno = record["deal"][BRUNO]
    bruno["stock"].insert(0, bruno["piles"][3].pop(0))  # a pile of 4 where 5 is due
    exit_code, result = check(record)
    assert (exit_code, codes(result)) == (1, [("bad_deal", BRUNO)])
    assert "[2, 3, 4, 4, 4, 3, 2]" in result["errors"][0]["message"]


@pytest.mark.parametrize(
    ("variant", "order"),
    [
        ("modern", [2, 4, 6, 7, 5, 3, 1]),
        ("modern", [1, 2, 3, 4, 5, 6, 7]),
        ("classic", [5, 4, 4, 3, 3, 2, 2]),
        ("single_deck", [1, 3, 5, 4, 2]),
    ],
)
def test_pile_sizes_count_as_a_multiset_so_any_order_is_fine(variant, order):
    record = bot_record(variant)
    for hand in record["deal"].values():
        cards = [c for pile in hand["piles"] for c in pile]
        piles, start = [], 0
        for size in order:
            piles.append(cards[start : start + size])
            start += size
        hand["piles"] = piles
    exit_code, result = check(record)
    # The events were played on the original piles, so the replay may go wrong: but the
    # deal itself is accepted.
    assert exit_code in (0, 1)
    assert "bad_deal" not in {e["code"] for e in result.get("errors", [])}


@pytest.mark.parametrize(
    ("variant", "change"),
    [
        ("classic", "an extra pile"),
        ("classic", "a missing pile"),
        ("modern", "an extra pile"),
        ("single_deck", "a missing pile"),
    ],
)
def test_the_wrong_number_of_piles_is_a_bad_deal(variant, change):
    record = bot_record(variant)
    hand = record["deal"][ANNA]
    if change == "an extra pile":
        hand["piles"].append([hand["stock"].pop()])
    else:
        hand["stock"].extend(hand["piles"].pop())
    assert codes(check(record)[1]) == [("bad_deal", ANNA)]


def test_in_classic_each_player_has_exactly_his_own_deck():
    record = bot_record("classic")
    anna, bruno = record["deal"][ANNA], record["deal"][BRUNO]
    # Anna's 2nd stock card swapped for one she already has: a duplicate and a gap.
    gone, twice = anna["stock"][1], anna["stock"][0]
    anna["stock"][1] = twice
    exit_code, result = check(record)
    assert codes(result) == [("bad_deal", ANNA)]
    message = result["errors"][0]["message"]
    assert f"missing {gone}" in message and f"extra {twice}" in message
    # Swapping a card between the players keeps the total but breaks both decks.
    record = bot_record("classic")
    anna, bruno = record["deal"][ANNA], record["deal"][BRUNO]
    mine = anna["stock"][0]
    theirs = next(c for c in bruno["stock"] if c != mine)
    anna["stock"][0] = theirs
    bruno["stock"][bruno["stock"].index(theirs)] = mine
    assert codes(check(record)[1]) == [("bad_deal", ANNA), ("bad_deal", BRUNO)]


def test_in_classic_a_joker_is_not_part_of_the_deck():
    record = bot_record("classic")
    record["deal"][ANNA]["stock"][0] = "JK"
    assert codes(check(record)[1]) == [("bad_deal", ANNA)]


@pytest.mark.parametrize("variant", ["modern", "single_deck"])
def test_outside_classic_the_cut_may_be_uneven(variant):
    record = bot_record(variant)
    anna, bruno = record["deal"][ANNA], record["deal"][BRUNO]
    bruno["stock"].extend(anna["stock"][:5])
    del anna["stock"][:5]
    exit_code, result = check(record)
    assert exit_code in (0, 1)
    assert "bad_deal" not in {e["code"] for e in result.get("errors", [])}


@pytest.mark.parametrize(
    ("variant", "change"),
    [
        ("modern", "a joker replaced by a card"),
        ("modern", "a card missing"),
        ("modern", "a third copy of a card"),
        ("single_deck", "a joker replaced by a card"),
        ("single_deck", "a second copy of a card"),
        ("single_deck", "a third joker"),
    ],
)
def test_outside_classic_both_players_together_hold_exactly_the_decks(variant, change):
    record = bot_record(variant)
    deal = record["deal"]
    cards = [c for hand in deal.values() for pile in hand["piles"] for c in pile] + [
        c for hand in deal.values() for c in hand["stock"]
    ]
    stock = deal[ANNA]["stock"] if deal[ANNA]["stock"] else deal[BRUNO]["stock"]
    if change == "a joker replaced by a card":
        for hand in deal.values():
            if "JK" in hand["stock"]:
                hand["stock"][hand["stock"].index("JK")] = "5H"
                break
        else:
            pytest.skip("no joker in the stocks of this deal")
    elif change == "a card missing":
        stock.pop()
    elif change in ("a third copy of a card", "a second copy of a card"):
        stock.append(next(c for c in cards if c != "JK"))
    else:
        stock.append("JK")
    exit_code, result = check(record)
    assert (exit_code, codes(result)) == (1, [("bad_deal", "deal")])


def test_bad_piles_of_both_players_are_reported_together():
    record = bot_record("single_deck")
    for hand in record["deal"].values():
        hand["stock"].append(hand["piles"][0].pop())
    assert codes(check(record)[1]) == [("bad_deal", ANNA), ("bad_deal", BRUNO)]


def test_a_bad_deal_stops_the_check_before_the_replay():
    record = bot_record("classic")
    record["deal"][ANNA]["stock"][0] = record["deal"][ANNA]["stock"][1]
    record["events"] = [{"type": "play", "player": ANNA, "pile": 0, "center": 0}]
    assert codes(check(record)[1]) == [("bad_deal", ANNA)]


# -- the results of a valid log -------------------------------------------------------------------


@pytest.mark.parametrize("variant", [v.value for v in Variant])
def test_a_valid_log_reports_winner_loser_cards_plays_and_flips(variant):
    record = bot_record(variant, seed=5)
    exit_code, result = check(record)
    assert exit_code == 0
    assert set(result) == {"valid", "winner", "loser_cards_left", "plays", "flips"}
    types = [event["type"] for event in record["events"]]
    assert (result["plays"], result["flips"]) == (types.count("play"), types.count("flip"))
    assert 1 <= result["loser_cards_left"] <= Variant(variant).layout_total
