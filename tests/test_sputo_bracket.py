"""The knockout bracket as data (``matches/sputo/bracket.py``): the draw for every size from
2 to 64, the standard seed order, and what follows from results."""

import math

import pytest

from matches.sputo import bracket
from matches.sputo.bracket import MAIN, Slot, draw, seed_order, settle


def test_the_standard_seed_order_for_8_and_16():
    assert seed_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    assert seed_order(16) == [1, 16, 8, 9, 4, 13, 5, 12, 2, 15, 7, 10, 3, 14, 6, 11]


@pytest.mark.parametrize("size", [2, 4, 8, 16, 32, 64])
def test_each_first_round_pair_adds_up_to_the_size_plus_one(size):
    order = seed_order(size)
    assert sorted(order) == list(range(1, size + 1))
    assert all(order[i] + order[i + 1] == size + 1 for i in range(0, size, 2))


@pytest.mark.parametrize("size", [4, 8, 16, 32, 64])
def test_the_top_two_seeds_are_in_different_halves_and_the_top_four_in_different_quarters(size):
    order = seed_order(size)
    half, quarter = size // 2, size // 4
    assert (order.index(1) < half) != (order.index(2) < half)
    assert len({order.index(s) // quarter for s in (1, 2, 3, 4)}) == 4


def play_out(n, winner=min):
    """Every match of a draw of ``n`` seeds played, ``winner`` of the two seeds winning;
    returns the settled slots (seed numbers stand for player ids)."""
    drawn = draw(n)
    rounds = bracket.rounds_for(n)
    slots = [
        Slot(
            id=i,
            kind=d.kind,
            round=d.round,
            position=d.position,
            a=d.seed_a,
            b=d.seed_b,
            winner=d.seed_a if d.bye else None,
            result=bracket.BYE if d.bye else "",
        )
        for i, d in enumerate(drawn)
    ]
    for round_ in range(1, rounds + 1):
        state = settle(slots, rounds=rounds).slots
        slots = []
        for s in state.values():
            if s.round == round_ and not s.decided:
                s = Slot(**{**s.__dict__, "winner": winner(s.a, s.b), "result": "played"})
            slots.append(s)
    return list(settle(slots, rounds=rounds).slots.values()), rounds


@pytest.mark.parametrize("n", range(2, 65))
def test_a_draw_of_n_places_everyone_once_byes_to_the_top_seeds_and_never_bye_against_bye(n):
    drawn = draw(n)
    first = [d for d in drawn if d.round == 1]
    seated = [s for d in first for s in (d.seed_a, d.seed_b) if s is not None]
    assert sorted(seated) == list(range(1, n + 1))
    byes = [d.seed_a for d in first if d.bye]
    size = bracket.bracket_size(n)
    assert sorted(byes) == list(range(1, size - n + 1))
    assert all(d.seed_a is not None for d in first)
    assert len(drawn) == size - 1


@pytest.mark.parametrize("n", range(2, 65))
def test_the_champion_plays_ceil_log2_n_rounds_or_one_fewer_after_a_bye(n):
    slots, rounds = play_out(n)
    assert rounds == math.ceil(math.log2(n))
    final = next(s for s in slots if s.kind == MAIN and s.round == rounds)
    assert final.winner == 1
    played = [s for s in slots if s.result == "played" and 1 in (s.a, s.b)]
    had_bye = n < bracket.bracket_size(n)
    assert len(played) == rounds - (1 if had_bye else 0)


def test_the_favourites_meet_as_the_seeds_say():
    slots, rounds = play_out(16)
    semis = sorted((s.a, s.b) for s in slots if s.round == rounds - 1)
    assert semis == [(1, 4), (2, 3)]
    final = next(s for s in slots if s.round == rounds)
    assert (final.a, final.b) == (1, 2)


def test_the_semi_final_losers_meet_for_third_place():
    drawn = draw(8, third_place=True)
    assert [(d.kind, d.round) for d in drawn][-1] == (bracket.THIRD, 3)
    rounds = 3
    slots = [
        Slot(id=i, kind=d.kind, round=d.round, position=d.position, a=d.seed_a, b=d.seed_b)
        for i, d in enumerate(drawn)
    ]
    slots = [
        Slot(**{**s.__dict__, "winner": min(s.a, s.b), "result": "played"}) if s.round == 1 else s
        for s in slots
    ]
    state = settle(slots, rounds=rounds).slots
    state = {
        k: Slot(**{**s.__dict__, "winner": min(s.a, s.b), "result": "played"})
        if s.round == 2
        else s
        for k, s in state.items()
    }
    third = settle(list(state.values()), rounds=rounds).slots[(bracket.THIRD, 3, 0)]
    assert (third.a, third.b) == (4, 3)


def test_a_double_forfeit_gives_the_next_opponent_a_walkover():
    drawn = draw(4)
    slots = [
        Slot(id=i, kind=d.kind, round=d.round, position=d.position, a=d.seed_a, b=d.seed_b)
        for i, d in enumerate(drawn)
    ]
    slots[0] = Slot(**{**slots[0].__dict__, "result": bracket.DOUBLE_FORFEIT})
    settled = settle(slots, rounds=2)
    final = settled.slots[(MAIN, 2, 0)]
    assert (final.a, final.b, final.result) == (None, None, "")
    slots[1] = Slot(**{**slots[1].__dict__, "winner": 2, "result": "played"})
    final = settle(slots, rounds=2).slots[(MAIN, 2, 0)]
    assert (final.a, final.b, final.winner, final.result) == (None, 2, 2, bracket.NO_OPPONENT)


def test_standings_put_the_final_then_the_third_place_match_then_the_round_reached():
    slots, rounds = play_out(8)
    places = bracket.standings(slots, rounds=rounds)
    assert [p for p, _player, _r in places] == [1, 2, 3, 3, 5, 5, 5, 5]
    assert [player for _p, player, _r in places][:2] == [1, 2]
