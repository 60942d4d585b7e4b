"""The formats' engines (``matches.sputo.formats``) over random sizes from 2 to 64: a round
robin's pairs meet ``legs`` times, groups spread the seeds, a Swiss round pairs by score
with no rematch until one is unavoidable and a bye at most each, and a double elimination
puts everyone but the champion out after exactly two lost matches."""

import random
from collections import Counter
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from matches.sputo import bracket
from matches.sputo.formats import double_elimination as de
from matches.sputo.formats import groups, round_robin, standings, swiss

sizes = st.integers(2, 64)


# --- Round robin ------------------------------------------------------------------------------


@settings(deadline=None)  # timing is not what these check; CI shares two cores
@given(n=sizes, legs=st.sampled_from([1, 2]))
def test_in_a_round_robin_every_pair_meets_legs_times(n, legs):
    players = list(range(1, n + 1))
    made = round_robin.rounds(players, legs=legs)
    even = n + n % 2
    assert len(made) == legs * (even - 1)
    met = Counter(frozenset(pair) for pairs in made for pair in pairs if None not in pair)
    assert met == {frozenset(pair): legs for pair in combinations(players, 2)}
    for pairs in made:  # everyone once a round; an odd count: one rests
        seated = [p for pair in pairs for p in pair if p is not None]
        assert sorted(seated) == players
        assert len(round_robin.rests(pairs)) == n % 2
    played = Counter(p for pairs in made for pair in pairs if None not in pair for p in pair)
    assert set(played.values()) == {legs * (n - 1)}  # everyone plays the right number


@settings(deadline=None)  # timing is not what these check; CI shares two cores
@given(n=sizes)
def test_a_second_leg_swaps_the_seats(n):
    first = round_robin.rounds(list(range(n)), legs=1)
    both = round_robin.rounds(list(range(n)), legs=2)
    assert both[len(first) :] == [[(b, a) for a, b in pairs] for pairs in first]


def test_the_circle_method_for_four():
    assert round_robin.rounds([1, 2, 3, 4]) == [
        [(1, 4), (2, 3)],
        [(3, 1), (4, 2)],
        [(1, 2), (3, 4)],
    ]


def test_a_round_robin_of_one_plays_nothing_and_legs_are_one_or_two():
    assert round_robin.rounds([7]) == []
    with pytest.raises(ValueError):
        round_robin.rounds([1, 2], legs=3)


# --- Groups -----------------------------------------------------------------------------------


@settings(deadline=None)  # timing is not what these check; CI shares two cores
@given(data=st.data(), n=st.integers(4, 64))
def test_groups_are_near_equal_and_seeds_one_to_k_sit_apart(data, n):
    count = data.draw(st.integers(1, n // 2))
    drawn = groups.snake(list(range(1, n + 1)), count)
    assert len(drawn) == count
    sizes_ = {len(group) for group in drawn}
    assert max(sizes_) - min(sizes_) <= 1 and min(sizes_) >= 2
    assert sorted(p for group in drawn for p in group) == list(range(1, n + 1))
    for k in range(1, count + 1):  # the top k seeds in k different groups
        holding = {i for i, group in enumerate(drawn) for p in group if p <= k}
        assert len(holding) == k


def test_the_snake_goes_back_from_the_last_group():
    assert groups.snake(list(range(1, 9)), 3) == [[1, 6, 7], [2, 5, 8], [3, 4]]
    assert [groups.name(i) for i in (0, 1, 25, 26, 27)] == ["A", "B", "Z", "AA", "AB"]
    with pytest.raises(ValueError):
        groups.snake([1, 2, 3], 2)


# --- Swiss ------------------------------------------------------------------------------------


def play(players, rounds_count, seed, *, forbidden=()):
    """Every round paired and played (random winners): the rounds and their explanations."""
    draw = random.Random(seed)
    rounds, whys = [], []
    for _number in range(rounds_count):
        paired = swiss.pair(players, rounds, total_rounds=rounds_count, forbidden=forbidden)
        whys.append(paired)
        rounds.append(
            [
                (why.a, why.b, why.a if why.b is None else draw.choice([why.a, why.b]))
                for why in paired
            ]
        )
    return rounds, whys


@settings(max_examples=30, deadline=None)
@given(n=sizes, data=st.data())
def test_swiss_has_no_rematch_and_a_bye_at_most_each(n, data):
    rounds_count = data.draw(st.integers(1, min(n - 1, 6)))
    players = list(range(100, 100 + n))
    rounds, whys = play(players, rounds_count, data.draw(st.integers(0, 999)))
    met = Counter(frozenset((a, b)) for played in rounds for a, b, _w in played if b)
    assert set(met.values()) <= {1}  # fewer rounds than players: no rematch is needed
    byes = Counter(a for played in rounds for a, b, _w in played if b is None)
    assert set(byes.values()) <= {1}
    assert sum(byes.values()) == rounds_count * (n % 2)
    for paired in whys:  # everyone in every round, once
        assert sorted(p for why in paired for p in (why.a, why.b) if p) == players
        assert not any(why.rematch for why in paired)


@settings(max_examples=20, deadline=None)
@given(half=st.integers(2, 16), data=st.data())
def test_swiss_pairs_by_score(half, data):
    """Round two of an even field: the round's winners meet each other and its losers each
    other, one pair across at most (when the winners are odd in number)."""
    n = 2 * half
    players = list(range(1, n + 1))
    _rounds, whys = play(players, 2, data.draw(st.integers(0, 999)))
    across = [why for why in whys[1] if why.score_a != why.score_b]
    assert len(across) == half % 2


def test_when_every_pair_has_met_a_rematch_comes_and_says_so():
    players = [1, 2, 3, 4]
    rounds, whys = play(players, 3, seed=1)
    fourth = swiss.pair(players, rounds, total_rounds=4)
    assert all(why.rematch for why in fourth)
    assert sorted(p for why in fourth for p in (why.a, why.b)) == players


def test_a_forbidden_pairing_never_meets():
    players = list(range(1, 9))
    couple = (1, 2)
    for seed in range(5):
        rounds, _whys = play(players, 5, seed, forbidden=[couple])
        assert not any({a, b} == set(couple) for played in rounds for a, b, _w in played)


def test_no_pairing_at_all_is_said():
    with pytest.raises(swiss.NoPairing):
        swiss.pair([1, 2], [], total_rounds=1, forbidden=[(2, 1)])


def test_the_explanation_carries_the_scores_and_whom_each_has_met():
    players = [1, 2, 3, 4, 5]
    rounds = [[(1, 3, 1), (4, 2, 4), (5, None, 5)]]
    paired = swiss.pair(players, rounds, total_rounds=3)
    by_player = {why.a: why for why in paired} | {why.b: why for why in paired if why.b}
    one = by_player[1]
    assert {one.a, one.b} & {4, 5} and one.score_a == one.score_b == 1
    bye = next(why for why in paired if why.b is None)
    assert bye.a in {2, 3} and bye.byes_before == 0  # the lowest, who had none
    assert paired[-1] is bye


# --- Standings --------------------------------------------------------------------------------


def rr_results(players, seed):
    """A round robin played with random winners and games."""
    draw = random.Random(seed)
    results = []
    for pairs in round_robin.rounds(players):
        for a, b in pairs:
            if a is None or b is None:
                continue
            winner = draw.choice([a, b])
            loser = b if winner == a else a
            games = [(winner, draw.randint(1, 9)), (winner, draw.randint(1, 9))]
            if draw.random() < 0.5:
                games.insert(1, (loser, draw.randint(1, 9)))
            results.append(standings.Result(a, b, winner, tuple(games)))
    return results


@settings(max_examples=40, deadline=None)
@given(n=st.integers(2, 24), seed=st.integers(0, 999), swiss_order=st.booleans())
def test_each_row_stands_above_the_next_for_the_reason_it_gives(n, seed, swiss_order):
    players = list(range(1, n + 1))
    results = rr_results(players, seed)
    rows = standings.table(players, results, points_per_win=2, swiss=swiss_order)
    assert [row.rank for row in rows] == list(range(1, n + 1))
    assert sorted(row.player for row in rows) == players
    assert all(row.played == n - 1 and row.won + row.lost == n - 1 for row in rows)
    assert sum(row.won for row in rows) == len(results)
    assert all(row.points == 2 * row.won for row in rows)
    by_player = {row.player: row for row in rows}
    for row in rows[:-1]:
        below = by_player[row.above.other]
        assert below.rank == row.rank + 1
        values = {
            "points": lambda r: r.points,
            "games": lambda r: r.games_for - r.games_against,
            "games_for": lambda r: r.games_for,
            "cards": lambda r: r.cards,
            "buchholz": lambda r: r.buchholz,
            "median_buchholz": lambda r: r.median_buchholz,
            "head_to_head": lambda r: r.head_to_head,
        }
        if row.above.reason == "lot":
            assert row.lot < below.lot
        else:
            measure = values[row.above.reason]
            assert measure(row) > measure(below)
    assert rows[0].points == max(row.points for row in rows)


def test_standings_by_hand():
    # Anna beats Bruno 2-1 (Bruno left with 5 then 3 cards, Anna with 4), Bruno beats Carla
    # 2-0, Carla beats Anna 2-0: all on one win; games: Anna 2-3, Bruno 3-2, Carla 2-2.
    anna, bruno, carla = 1, 2, 3
    results = [
        standings.Result(anna, bruno, anna, ((anna, 5), (bruno, 4), (anna, 3))),
        standings.Result(bruno, carla, bruno, ((bruno, 6), (bruno, 2))),
        standings.Result(carla, anna, carla, ((carla, 1), (carla, 1))),
    ]
    rows = standings.table([anna, bruno, carla], results, points_per_win=3)
    assert [row.player for row in rows] == [bruno, carla, anna]
    assert [(r.points, r.games_for, r.games_against) for r in rows] == [
        (3, 3, 2),
        (3, 2, 2),
        (3, 2, 3),
    ]
    assert rows[0].above == standings.Above("games", carla)
    assert rows[0].cards == 4 + 6 + 2 - 5 - 3  # cards left to others, less his own
    assert rows[1].above == standings.Above("games", anna)
    assert rows[2].above is None


def test_level_players_are_split_by_their_match_then_by_the_lot():
    results = [
        standings.Result(1, 2, 2, ((2, 3),)),
        standings.Result(3, 4, 3, ((3, 3),)),
        standings.Result(1, 3, 1, ((1, 3),)),
        standings.Result(2, 4, 4, ((4, 3),)),
    ]
    rows = standings.table([1, 2, 3, 4], results, lots={1: 2, 2: 1, 3: 4, 4: 3})
    # Everyone 1-1 with games 1-1 and cards 0: among the four level, each has one win, so
    # head to head does not split them; the lot does.
    assert [row.player for row in rows] == [2, 1, 4, 3]
    assert {row.above.reason for row in rows[:-1]} == {"lot"}
    unplayed = standings.table([1, 2], [])  # no lot drawn yet: the seeds' order
    assert [row.player for row in unplayed] == [1, 2]
    assert unplayed[0].above == standings.Above("lot", 2)


def test_a_swiss_tie_goes_to_the_stronger_opponents():
    # 1 beat 2, 3 beat 4; then 1 lost to 3 and 2 beat 4: 3 on 2 wins, 1 and 2 on 1, 4 on 0.
    results = [
        standings.Result(1, 2, 1),
        standings.Result(3, 4, 3),
        standings.Result(1, 3, 3),
        standings.Result(2, 4, 2),
    ]
    rows = standings.table([1, 2, 3, 4], results, swiss=True)
    assert [row.player for row in rows] == [3, 1, 2, 4]
    one, two = rows[1], rows[2]
    assert (one.buchholz, two.buchholz) == (3, 1)  # 1 met 2 (1) and 3 (2); 2 met 1 and 4
    assert one.above == standings.Above("buchholz", 2)


def test_two_level_players_are_split_by_their_own_match():
    anna, bruno, carla, dario = 1, 2, 3, 4
    results = [
        standings.Result(anna, bruno, anna, ((anna, 3),)),
        standings.Result(carla, anna, carla, ((carla, 3),)),
        standings.Result(bruno, dario, bruno, ((bruno, 3),)),
        standings.Result(carla, dario, carla, ((carla, 3),)),
    ]
    rows = standings.table([bruno, anna, carla, dario], results)  # Bruno the higher seed
    assert [row.player for row in rows] == [carla, anna, bruno, dario]
    assert rows[1].above == standings.Above("head_to_head", bruno, won_their_match=True)


# --- Double elimination -----------------------------------------------------------------------


def play_de(n, seed, *, reset=True):
    """The plan played with random winners: each played match's (key, a, b, winner), and
    how many matches each player lost."""
    planned = de.plan(n, reset=reset)
    draw = random.Random(seed)
    decided: dict = {}  # key -> (winner, loser), None for an empty seat
    played, losses = [], Counter()

    def seat(source):
        if source.kind == "seed":
            return source.seed
        winner, loser = decided[source.key]
        return winner if source.kind == "winner" else loser

    pending = list(planned)
    while pending:
        ready = [m for m in pending if all(s.key in decided for s in (m.a, m.b) if s.key)]
        assert ready, "a match waits for one that never comes"
        for match in ready:
            pending.remove(match)
            a, b = seat(match.a), seat(match.b)
            if match.reset and losses[a] == 0:  # the winners' champion won the first
                decided[match.key] = (a, None)
                continue
            if a is None or b is None:
                decided[match.key] = (a if b is None else b, None)
                continue
            winner = draw.choice([a, b])
            loser = b if winner == a else a
            losses[loser] += 1
            decided[match.key] = (winner, loser)
            played.append((match.key, a, b, winner))
    final = de.GRAND_FINAL, 2 if reset and (de.GRAND_FINAL, 2, 0) in decided else 1, 0
    return played, losses, decided[final][0]


@settings(max_examples=60, deadline=None)
@given(n=sizes, seed=st.integers(0, 999))
def test_double_elimination_everyone_but_the_champion_loses_twice(n, seed):
    played, losses, champion = play_de(n, seed)
    assert losses[champion] <= 1
    assert all(losses[p] == 2 for p in range(1, n + 1) if p != champion)
    reset_played = any(key == (de.GRAND_FINAL, 2, 0) for key, *_rest in played)
    assert len(played) == 2 * n - 2 + reset_played  # the right number of matches


@settings(max_examples=30, deadline=None)
@given(n=sizes, seed=st.integers(0, 999))
def test_without_a_reset_the_grand_final_decides_once(n, seed):
    played, losses, champion = play_de(n, seed, reset=False)
    out_once = [p for p in range(1, n + 1) if p != champion and losses[p] == 1]
    assert len(out_once) <= 1  # the winners' champion, if they lost the grand final
    assert len(played) == 2 * n - 2


@settings(max_examples=30, deadline=None)
@given(n=st.integers(5, 64), seed=st.integers(0, 999))
def test_who_drops_in_does_not_meet_whom_they_just_beat(n, seed):
    played, _losses, _champion = play_de(n, seed)
    first_round = {frozenset((a, b)) for key, a, b, _w in played if key[:2] == (de.WINNERS, 1)}
    second_losers = [frozenset((a, b)) for key, a, b, _w in played if key[:2] == (de.LOSERS, 2)]
    assert not first_round & set(second_losers)


def test_loser_to_names_the_losers_match_of_each_winners_match():
    planned = de.plan(8)
    where = de.loser_to(planned)
    assert where[(de.WINNERS, 1, 0)] == (de.LOSERS, 1, 0)
    assert where[(de.WINNERS, 2, 0)] == (de.LOSERS, 2, 1)  # reversed: the other side
    assert where[(de.WINNERS, 3, 0)] == (de.LOSERS, 4, 0)
    assert (de.GRAND_FINAL, 1, 0) not in where  # the reset is not a drop
    parts = Counter(m.part for m in planned)
    assert parts == {de.WINNERS: 7, de.LOSERS: 6, de.GRAND_FINAL: 2}


@settings(deadline=None)  # timing is not what these check; CI shares two cores
@given(groups_count=st.integers(2, 16), advance=st.integers(1, 4), data=st.data())
def test_the_knockout_crosses_the_groups_and_keeps_each_group_apart(groups_count, advance, data):
    # Each place's players in some order (best first), one per group.
    tiers = [
        [(place * 100 + g, g) for g in data.draw(st.permutations(range(groups_count)))]
        for place in range(advance)
    ]
    seeds = groups.crossed(tiers)
    size = bracket.bracket_size(len(seeds))
    assert sorted(seeds) == sorted(p for tier in tiers for p, _g in tier)
    # Each place takes the seeds after the place before: the firsts are the top seeds.
    for place, tier in enumerate(tiers):
        start = place * groups_count
        assert {p for p, _g in tier} == set(seeds[start : start + groups_count])
    group_of = {p: g for tier in tiers for p, g in tier}
    seed_of = {p: n for n, p in enumerate(seeds, 1)}
    rounds = bracket.rounds_for(len(seeds))
    for a, b in combinations(seeds, 2):
        if group_of[a] == group_of[b]:
            met = groups.meeting_round(seed_of[a], seed_of[b], size)
            assert met > 1  # never at once
            if advance == 2:
                assert met == rounds  # a group's first and second only in the final


def test_the_first_of_a_meets_the_second_of_b():
    seeds = groups.crossed([[(1, "A"), (2, "B")], [(3, "A"), (4, "B")]])
    # Seed order 1 v 4, 2 v 3: A's first against B's second, B's first against A's second.
    assert seeds == [1, 2, 3, 4]


def settle_de(n: int, seed: int, reset: bool = True):
    """A double elimination of seeds 1..n played to the end through ``de.settle``: each
    ready match won at random, the walk's changes applied after each round of results."""
    from dataclasses import replace

    draw = random.Random(seed)
    planned = de.plan(n, reset=reset)
    slots = {}
    for k, m in enumerate(planned):
        first = m.part == de.WINNERS and m.round == 1
        a, b = (m.a.seed, m.b.seed) if first else (None, None)
        bye = first and b is None
        slots[m.key] = bracket.Slot(
            id=k,
            kind=m.part,
            round=m.round,
            position=m.position,
            a=a,
            b=b,
            winner=a if bye else None,
            result=bracket.BYE if bye else "",
        )
    while True:
        slots = de.settle(list(slots.values()), planned).slots
        ready = [s for s in slots.values() if not s.decided and s.a and s.b]
        if not ready:
            break
        for s in ready:
            slots[s.key] = replace(s, winner=draw.choice([s.a, s.b]), result=bracket.PLAYED)
    return slots


@settings(max_examples=40, deadline=None)
@given(n=sizes, seed=st.integers(0, 999), reset=st.booleans())
def test_the_double_elimination_settles_to_a_champion_and_two_losses_each(n, seed, reset):
    slots = settle_de(n, seed, reset)
    played = [s for s in slots.values() if s.result == bracket.PLAYED]
    losses = Counter(s.loser for s in played)
    table = de.standings(list(slots.values()))
    assert table, "the tournament ends"
    champion = table[0][1]
    assert table[0][0] == 1 and sorted(p for _pl, p, _r in table) == list(range(1, n + 1))
    assert losses[champion] <= 1
    if reset:
        assert all(losses[p] == 2 for p in range(1, n + 1) if p != champion)
    else:
        assert all(losses[p] in (1, 2) for p in range(1, n + 1) if p != champion)


def test_a_table_of_nobody_is_empty():
    assert standings.table([], []) == []
