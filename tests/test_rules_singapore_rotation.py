"""Singapore's winner-stays rotation (RULES.md, "Winner-stays rotation")."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.singapore import RotationError, is_in_turn, next_challenger, next_pair

SEATS = ["A", "B", "C", "D"]


def test_the_worked_example_a_b_c_d() -> None:
    # A deals against B; A wins -> A v C; C wins -> C v B; B wins -> B v D; B wins -> B v A.
    pair = ("A", "B")
    seen = []
    for winner in ["A", "C", "B", "B"]:
        loser = pair[1] if pair[0] == winner else pair[0]
        pair = next_pair(SEATS, winner, loser)
        seen.append(pair)
    assert seen == [("A", "C"), ("C", "B"), ("B", "D"), ("B", "A")]


@pytest.mark.parametrize(
    ("seats", "winner", "loser", "sitting_out", "challenger"),
    [
        (["A", "B"], "A", "B", (), "B"),  # two players simply play on
        (["A", "B"], "B", "A", (), "A"),
        (["A", "B", "C"], "A", "B", {"C"}, "B"),  # nobody else: the loser plays on
        (SEATS, "A", "B", {"C"}, "D"),  # sitting out is skipped
        (SEATS, "A", "B", {"C", "D"}, "B"),
        (SEATS, "D", "C", (), "A"),  # wrapping round
        (SEATS, "A", "D", (), "B"),
        (SEATS, "C", "B", (), "D"),  # the winner is skipped
        (SEATS, "D", "B", {"C"}, "A"),
    ],
)
def test_the_loser_gives_way_to_the_first_free_seat_on_his_right(
    seats: list[str], winner: str, loser: str, sitting_out: set[str], challenger: str
) -> None:
    assert next_challenger(seats, winner, loser, sitting_out) == challenger


@pytest.mark.parametrize(
    ("seats", "winner", "loser", "sitting_out", "message"),
    [
        (SEATS, "E", "B", (), "winner 'E' is not seated"),
        (SEATS, "A", "E", (), "loser 'E' is not seated"),
        (SEATS, "A", "A", (), "two people"),
        (["A", "B", "A"], "A", "B", (), "twice"),
        (SEATS, "A", "B", {"A"}, "cannot sit out"),
        (["A", "B"], "A", "B", {"B"}, "nobody is left"),
    ],
)
def test_a_rotation_that_cannot_be_is_a_clear_error(
    seats: list[str], winner: str, loser: str, sitting_out: set[str], message: str
) -> None:
    with pytest.raises(RotationError, match=message):
        next_challenger(seats, winner, loser, sitting_out)


def test_a_hand_between_another_pair_is_out_of_turn() -> None:
    assert is_in_turn(SEATS, "A", "B", ["A", "C"])
    assert is_in_turn(SEATS, "A", "B", ["C", "A"])
    assert not is_in_turn(SEATS, "A", "B", ["A", "B"])
    assert not is_in_turn(SEATS, "A", "B", ["A", "D"])
    assert is_in_turn(SEATS, "A", "B", ["A", "D"], sitting_out={"C"})


@given(
    size=st.integers(2, 8),
    data=st.data(),
)
def test_the_winner_always_stays_and_meets_someone_else_seated(
    size: int, data: st.DataObject
) -> None:
    seats = [f"P{i}" for i in range(size)]
    winner, loser = data.draw(st.lists(st.sampled_from(seats), min_size=2, max_size=2, unique=True))
    others = [s for s in seats if s not in (winner, loser)]
    out = data.draw(st.sets(st.sampled_from(others))) if others else set()
    dealer, opponent = next_pair(seats, winner, loser, out)
    assert dealer == winner
    assert opponent in seats and opponent != winner and opponent not in out
    if size - len(out) > 2:
        assert opponent != loser
