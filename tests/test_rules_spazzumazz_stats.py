"""Spazz'u'mazz statistics: games, times idiot, idiot rate, average place, and the player a
club's game is renamed after (RULES.md "Statistics", house rule ``idiot_min_games``)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.house_rules import SpazzumazzRules
from rules.spazzumazz import PlayerStats, idiot_statistics, renamed_after


def games(*orders: str) -> list[list[str]]:
    """Finish orders written ``"Anna Bruno Carla"`` (the idiot last)."""
    return [order.split() for order in orders]


def test_each_player_counts_games_times_idiot_and_places():
    stats = idiot_statistics(games("Anna Bruno Carla", "Carla Anna Bruno", "Bruno Anna"))
    assert stats == {
        "Anna": PlayerStats(games=3, times_idiot=1, total_place=5),
        "Bruno": PlayerStats(games=3, times_idiot=1, total_place=6),
        "Carla": PlayerStats(games=2, times_idiot=1, total_place=4),
    }


@pytest.mark.parametrize(
    ("orders", "player", "rate", "place"),
    [
        (["Anna Bruno"], "Bruno", 1.0, 2.0),
        (["Anna Bruno", "Bruno Anna"], "Anna", 0.5, 1.5),
        (["Anna Bruno Carla Dario", "Dario Carla Bruno Anna"], "Anna", 0.5, 2.5),
        (["Anna Bruno Carla", "Anna Carla Bruno", "Anna Bruno Carla"], "Anna", 0.0, 1.0),
        (["Anna Bruno Carla", "Anna Carla Bruno", "Anna Bruno Carla"], "Carla", 2 / 3, 8 / 3),
    ],
)
def test_the_idiot_rate_and_the_average_place(orders, player, rate, place):
    stats = idiot_statistics(games(*orders))[player]
    assert stats.idiot_rate == pytest.approx(rate)
    assert stats.average_place == pytest.approx(place)


def test_no_games_means_no_statistics():
    assert idiot_statistics([]) == {}
    assert (PlayerStats().idiot_rate, PlayerStats().average_place) == (0.0, 0.0)


@pytest.mark.parametrize("order", [["Anna"], [], ["Anna", "Anna"], ["Anna", "Bruno", "Anna"]])
def test_a_finish_order_must_name_two_or_more_distinct_players(order):
    with pytest.raises(ValueError):
        idiot_statistics([order])


# -- renamed after ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("orders", "min_games", "renamed"),
    [
        (["Anna Bruno"] * 3, 3, "Bruno"),
        (["Anna Bruno"] * 3, 4, None),
        # Carla is always the idiot but has too few games to count.
        (["Anna Bruno"] * 2 + ["Bruno Anna"] + ["Anna Carla"] * 2, 3, "Bruno"),
        (["Anna Bruno"] * 2 + ["Bruno Anna"] + ["Anna Carla"] * 2, 2, "Carla"),
        # Equal rates (1/2 each): the one idiot more often is worse.
        (["Anna Bruno", "Bruno Anna", "Carla Dario"] + ["Dario Carla"] * 1, 2, "Anna"),
        (["Bruno Anna"] * 2 + ["Anna Bruno"] * 2 + ["Dario Carla"] + ["Carla Dario"], 2, "Anna"),
        # Equal rate and count: the worse average place.
        (["Anna Carla Bruno", "Bruno Anna Carla", "Dario Carla"], 2, "Carla"),
        # Equal in everything: the name that sorts first.
        (["Anna Bruno", "Bruno Anna"], 2, "Anna"),
        # Nobody who qualifies was ever the idiot.
        (["Anna Bruno Carla", "Bruno Anna Dario", "Anna Bruno Elena"], 3, None),
    ],
)
def test_the_game_is_renamed_after_the_highest_idiot_rate_among_regulars(
    orders, min_games, renamed
):
    assert renamed_after(idiot_statistics(games(*orders)), min_games) == renamed


def test_the_minimum_of_games_defaults_to_the_house_rule():
    stats = idiot_statistics(games(*["Anna Bruno"] * 9, "Bruno Carla"))
    assert SpazzumazzRules().idiot_min_games == 10
    assert renamed_after(stats) == "Bruno"
    assert renamed_after(idiot_statistics(games(*["Anna Bruno"] * 9))) is None


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.permutations(["Anna", "Bruno", "Carla", "Dario"]).flatmap(
            lambda order: st.integers(2, 4).map(lambda n: order[:n])
        ),
        max_size=40,
    ),
    st.integers(1, 12),
)
def test_the_renamed_player_has_the_top_rate_among_those_with_enough_games(orders, min_games):
    stats = idiot_statistics(orders)
    assert sum(s.times_idiot for s in stats.values()) == len(orders)
    assert sum(s.games for s in stats.values()) == sum(len(o) for o in orders)
    name = renamed_after(stats, min_games)
    regulars = {n: s for n, s in stats.items() if s.games >= min_games}
    if name is None:
        assert all(s.times_idiot == 0 for s in regulars.values())
    else:
        top = max(s.times_idiot / s.games for s in regulars.values())
        assert regulars[name].idiot_rate == pytest.approx(top) and top > 0
