"""The Sputo bot's games replay to a finish, and damaged logs fail cleanly (properties)."""

from __future__ import annotations

import copy
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.bots.sputo import random_game, random_record
from rules.check import check_record as check
from rules.sputo import LAYOUT_TOTALS, Options, Restock, Variant, replay

#: What a damaged event log may be refused for (RULES.md's Sputo codes, bar unknown_card:
#: the mutations below only move or alter events, they write no new card tokens).
REPLAY_CODES = {
    "illegal_play",
    "illegal_flip",
    "illegal_splash",
    "blocked",
    "after_end",
    "not_finished",
    "bad_deal",
}

variants = st.sampled_from(list(Variant))
options = st.builds(Options, suit_match=st.booleans(), splash=st.booleans())
seeds = st.integers(min_value=0, max_value=2**32)
fast = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@fast
@given(seed=seeds, variant=variants, chosen=options)
def test_every_bot_game_replays_to_a_finish_with_one_winner(seed, variant, chosen):
    game = random_game(seed, variant=variant, options=chosen)
    record = json.loads(json.dumps(game.as_record()))
    exit_code, result = check(record)
    assert exit_code == 0, result
    assert result["winner"] in record["players"]
    assert 1 <= result["loser_cards_left"] <= LAYOUT_TOTALS[variant.value]
    types = [event["type"] for event in record["events"]]
    assert (result["plays"], result["flips"]) == (types.count("play"), types.count("flip"))
    assert types[0] == "flip"
    times = [event["t"] for event in record["events"]]
    assert all(a < b for a, b in zip(times, times[1:], strict=False))
    assert game.outcome == replay(game.deal, game.events, variant, chosen)
    assert result["winner"] == game.outcome.winner


@settings(max_examples=25, deadline=None)
@given(seed=seeds, variant=st.sampled_from([Variant.MODERN, Variant.SINGLE_DECK]))
def test_bot_games_that_run_the_stocks_out_restock_and_still_check_out(seed, variant):
    game = random_game(seed, variant=variant, flip_anyway=0.7)
    assert check(game.as_record())[0] == 0


def test_lazy_bots_do_restock_now_and_then():
    games = [random_game(seed, variant="single_deck", flip_anyway=0.7) for seed in range(20)]
    assert any(isinstance(e, Restock) for game in games for e in game.events)


def test_the_same_seed_gives_the_same_game():
    assert random_record(42) == random_record(42)
    assert random_record(42) != random_record(43)


def test_the_variant_and_options_are_drawn_from_the_seed_when_not_given():
    drawn = {(r["variant"], json.dumps(r["options"])) for r in map(random_record, range(40))}
    assert {variant for variant, _ in drawn} == {v.value for v in Variant}
    assert len(drawn) > 6


def test_a_bot_that_cannot_finish_within_the_cap_gives_up_instead_of_looping():
    with pytest.raises(RuntimeError):
        random_game(1, variant="classic", max_events=3)


def test_bot_records_use_any_player_names():
    record = random_record(9, players=("Zoe", "Ugo"))
    assert record["players"] == ["Zoe", "Ugo"]
    assert check(record)[0] == 0


# -- damaged logs -------------------------------------------------------------------------------


def assert_clean(record: dict) -> None:
    exit_code, result = check(record)
    assert exit_code in (0, 1), result
    if exit_code == 1:
        assert {e["code"] for e in result["errors"]} <= REPLAY_CODES, result
        for error in result["errors"]:
            at = error["at"]
            assert at is None or (isinstance(at, int) and 0 <= at < len(record["events"]))


def base_record(seed: int, variant: Variant, chosen: Options) -> dict:
    return copy.deepcopy(random_record(seed, variant=variant, options=chosen))


@fast
@given(seed=seeds, variant=variants, chosen=options, data=st.data())
def test_dropping_an_event_gives_a_documented_violation_or_a_valid_result(
    seed, variant, chosen, data
):
    record = base_record(seed, variant, chosen)
    index = data.draw(st.integers(0, len(record["events"]) - 1))
    dropped = record["events"].pop(index)
    assert_clean(record)
    if dropped["type"] == "flip" and index == 0:
        exit_code, result = check(record)
        assert exit_code == 1  # the game starts with a flip: the first play cannot go


@fast
@given(seed=seeds, variant=variants, chosen=options, data=st.data())
def test_altering_an_event_gives_a_documented_violation_or_a_valid_result(
    seed, variant, chosen, data
):
    record = base_record(seed, variant, chosen)
    events = record["events"]
    index = data.draw(st.integers(0, len(events) - 1))
    piles = len(variant.layout)
    replacement = data.draw(
        st.one_of(
            st.just({"type": "flip"}),
            st.builds(
                lambda player, pile, center: {
                    "type": "play",
                    "player": player,
                    "pile": pile,
                    "center": center,
                },
                st.sampled_from(record["players"]),
                st.integers(0, piles - 1),
                st.integers(0, 1),
            ),
            st.builds(
                lambda player: {"type": "splash", "player": player},
                st.sampled_from(record["players"]),
            ),
        )
    )
    how = data.draw(st.sampled_from(["replace", "insert", "duplicate", "swap"]))
    if how == "replace":
        events[index] = replacement
    elif how == "insert":
        events.insert(index, replacement)
    elif how == "duplicate":
        events.insert(index, copy.deepcopy(events[index]))
    elif index + 1 < len(events):
        events[index], events[index + 1] = events[index + 1], events[index]
    assert_clean(record)


@settings(max_examples=30, deadline=None)
@given(seed=seeds, variant=st.sampled_from([Variant.MODERN, Variant.SINGLE_DECK]), data=st.data())
def test_a_damaged_restock_is_a_bad_deal_or_illegal(seed, variant, data):
    game = random_game(seed, variant=variant, flip_anyway=0.7)
    record = json.loads(json.dumps(game.as_record()))
    restocks = [i for i, e in enumerate(record["events"]) if e["type"] == "restock"]
    if not restocks:
        return
    index = data.draw(st.sampled_from(restocks))
    stocks = record["events"][index]["stocks"]
    name = data.draw(st.sampled_from(sorted(n for n in stocks if stocks[n])), label="name")
    stocks[name].pop(data.draw(st.integers(0, len(stocks[name]) - 1)))
    exit_code, result = check(record)
    assert (exit_code, [(e["code"], e["at"]) for e in result["errors"]]) == (
        1,
        [("bad_deal", index)],
    )


@pytest.mark.parametrize("variant", list(Variant))
def test_a_log_cut_before_the_winning_play_is_not_finished(variant):
    for seed in range(5):
        record = random_record(seed, variant=variant)
        assert record["events"][-1]["type"] == "play"
        record["events"].pop()
        exit_code, result = check(record)
        assert [(e["code"], e["at"]) for e in result["errors"]] == [("not_finished", None)]


@pytest.mark.parametrize("extra", [{"type": "flip"}, {"type": "splash", "player": "Anna"}])
def test_an_event_after_the_winning_play_is_after_end(extra):
    record = random_record(3, options={"splash": True})
    record["events"].append(extra)
    exit_code, result = check(record)
    assert [(e["code"], e["at"]) for e in result["errors"]] == [
        ("after_end", len(record["events"]) - 1)
    ]


@fast
@given(seed=seeds, variant=variants, data=st.data())
def test_shuffling_cards_within_the_deal_never_crashes_the_checker(seed, variant, data):
    record = base_record(seed, variant, Options())
    hand = record["deal"][data.draw(st.sampled_from(record["players"]))]
    cards = [c for pile in hand["piles"] for c in pile]
    shuffled = data.draw(st.permutations(cards))
    start = 0
    for pile in hand["piles"]:
        pile[:] = shuffled[start : start + len(pile)]
        start += len(pile)
    assert_clean(record)
