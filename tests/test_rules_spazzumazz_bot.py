"""The random bot's games, as properties: each replays to its end with one idiot, the legal
turns the bot chooses from agree with the rules the replay enforces, and no mutation of a
log makes the checker do anything but answer."""

from __future__ import annotations

import copy
import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.bots.spazzumazz import deal, play_game, play_log, player_names
from rules.check import check_record as check
from rules.errors import RuleViolation
from rules.spazzumazz import Pickup, Table, deck_count
from tests.rules_codes import EXIT_1_CODES

CODES = EXIT_1_CODES["spazzumazz"]


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.integers(2, 10))
def test_every_bot_game_replays_to_a_finish_with_one_idiot(seed, players):
    record = json.loads(json.dumps(play_game(seed, players)))
    code, result = check(record)
    assert code == 0, result
    order = result["finish_order"]
    assert sorted(order) == sorted(record["players"]) and len(order) == players
    assert result["idiot"] == order[-1]
    assert result["turns"] == len(record["turns"])
    assert set(result["pickups"]) == set(record["players"])
    assert len(record["stock"]) == 52 * deck_count(players) - 11 * players


def test_the_bot_is_deterministic_and_takes_names_or_a_count():
    assert play_game(11, 3) == play_game(11, 3)
    assert play_game(11, 3) != play_game(12, 3)
    assert play_game(5, ["Zia", "Nonno"])["players"] == ["Zia", "Nonno"]
    assert player_names(4) == ["Anna", "Bruno", "Carla", "Dario"]
    with pytest.raises(ValueError):
        play_log(1, ["Anna", "Anna"])


def test_a_game_over_the_turn_cap_is_dealt_again_and_the_bot_gives_up_in_the_end():
    uncapped = play_log(21, 4)
    capped = play_log(21, 4, max_turns=len(uncapped.turns) - 1)
    assert capped.deal != uncapped.deal and len(capped.turns) < len(uncapped.turns)
    assert check(capped.as_record())[0] == 0
    with pytest.raises(RuntimeError):
        play_log(21, 4, max_turns=5, max_attempts=3)


@pytest.mark.parametrize(("seed", "players"), [(1, 2), (2, 3), (3, 4), (4, 7)])
def test_the_legal_turns_are_exactly_what_the_rules_allow(seed, players):
    rng = random.Random(seed)
    names = player_names(players)
    dealt, stock = deal(rng, names)
    table = Table(names, dealt, stock)
    steps = 0
    while not table.finished:
        options = table.legal_turns()
        plays = [t for t in options if not isinstance(t, Pickup)]
        assert table.can_play() == bool(plays)
        assert options == (plays or [Pickup(table.current or "")])
        if plays:
            with pytest.raises(RuleViolation) as refused:
                table.apply(Pickup(table.current or ""))
            assert refused.value.code == "must_play"
        if steps % 7 == 0:
            for option in options:
                copy.deepcopy(table).apply(option)  # each one is legal
        table.apply(rng.choice(options), steps)
        steps += 1
    assert len(table.finish_order) == players


# -- mutated logs ----------------------------------------------------------------------------

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=8,
)
TOKENS = st.sampled_from(["AS", "10H", "th", "JK", "1", "", "KS ", "q♠"]) | st.text(max_size=4)


@st.composite
def mutated(draw: st.DrawFn) -> dict:
    record = copy.deepcopy(_RECORDS[draw(st.integers(0, len(_RECORDS) - 1))])
    turns = record["turns"]
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(turns) - 1))
        kind = draw(st.integers(0, 9))
        if kind in (3, 4, 5, 7) and not isinstance(turns[i], dict):
            continue  # an earlier mutation made it junk
        if kind == 0:
            del turns[i]
        elif kind == 1:
            turns.insert(i, copy.deepcopy(turns[draw(st.integers(0, len(turns) - 1))]))
        elif kind == 2:
            j = draw(st.integers(0, len(turns) - 1))
            turns[i], turns[j] = turns[j], turns[i]
        elif kind == 3:
            turns[i]["player"] = draw(st.sampled_from([*record["players"], "Zeno"]) | JSON)
        elif kind == 4 and turns[i].get("play"):
            turns[i]["play"][0] = draw(TOKENS)
        elif kind == 5:
            turns[i] = {"player": turns[i].get("player"), "blind": draw(st.integers(-5, 2**70))}
        elif kind == 6:
            turns[i] = draw(JSON)
        elif kind == 7:
            turns[i][draw(st.sampled_from(["play", "face_up", "pickup", "blind"]))] = draw(JSON)
        elif kind == 8:
            name = draw(st.sampled_from(record["players"]))
            part = draw(st.sampled_from(["hand", "face_up", "face_down"]))
            record["deal"][name][part][0] = draw(TOKENS)
        else:
            record[draw(st.sampled_from(["players", "deal", "stock", "turns", "x"]))] = draw(JSON)
            break
        if not turns:
            break
    return record


_RECORDS = [json.loads(json.dumps(play_game(seed, 2 + seed % 4))) for seed in range(6)]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(record=mutated())
def test_mutated_logs_never_crash_the_checker(record):
    code, result = check(record)
    json.dumps(result)
    if code == 0:
        assert result["valid"] is True and result["idiot"] == result["finish_order"][-1]
    else:
        assert result["valid"] is False and result["errors"]
        if code == 1:
            assert {e["code"] for e in result["errors"]} <= CODES
