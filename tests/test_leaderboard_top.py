"""The leaderboards page asks each game's provider for the rows it shows, sorted and cut by
the database (``matches.boards.top``): the same rows, in the same order of the sorted
column, as every row sorted in Python (what the API serves), and how many there are."""

import random
from datetime import UTC, datetime

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clubs.models import Player
from matches.boards import Shown
from matches.boards.models import PlayerRating
from matches.spazzumazz import boards as spazzumazz
from matches.spazzumazz.boards import COLUMNS
from matches.spazzumazz.models import SpazzumazzStats

pytestmark = pytest.mark.django_db

PLAYERS = 60


@pytest.fixture
def board_club(people):
    club = people["club"]
    draw = random.Random(7)
    for n in range(PLAYERS):
        player = Player.objects.create(club=club, display_name=f"Giocatore {n:02}")
        games = draw.randint(1, 40)
        idiot = draw.randint(0, games)
        SpazzumazzStats.objects.create(
            club=club,
            season=None,
            player=player,
            games=games,
            idiot=idiot,
            idiot_rate=idiot / games,
            place_sum=games * 2,
            relative_place_sum=games / 2,
            average_place=draw.random(),
            current_streak=0,
            longest_streak=draw.randint(0, 5),
            last_played_at=datetime(2025, 3, 7, tzinfo=UTC),
        )
        if n % 3:  # a third of them unrated: their rating is empty, and comes last
            PlayerRating.objects.create(
                club=club,
                player=player,
                game="spazzumazz",
                mu=25.0,
                sigma=8.0,
                display=draw.uniform(-5, 30),
                games=games,
                provisional=games < 10,
            )
    return club


# The fixture's rows are only read: every example can share them.
@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    column=st.sampled_from([c.key for c in COLUMNS]),
    descending=st.booleans(),
    limit=st.sampled_from([1, 10, 50, None]),
    min_games=st.integers(0, 45),
)
def test_the_database_picks_the_rows_python_would(board_club, column, descending, limit, min_games):
    everything = spazzumazz.leaderboard(board_club, min_games=min_games)
    page = spazzumazz.leaderboard(
        board_club, min_games=min_games, shown=Shown(column, descending, limit)
    )
    if everything is None:
        assert page is None
        return
    expected = everything.sorted_rows(column, descending=descending)[:limit]
    assert page.total == len(everything.rows)
    assert [row[column] for row in page.rows] == [row[column] for row in expected]
    by_player = {row["player"]: row for row in everything.rows}
    assert all(by_player[row["player"]] == row for row in page.rows)


def test_an_unknown_column_is_the_boards_own_order(board_club):
    page = spazzumazz.leaderboard(board_club, min_games=0, shown=Shown("nonsense", None, 5))
    rates = [row["idiot_rate"] for row in page.rows]
    assert rates == sorted(rates, reverse=True)
    assert (len(page.rows), page.total) == (5, PLAYERS)
