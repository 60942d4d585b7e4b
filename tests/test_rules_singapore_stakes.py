"""Singapore quotas: covers, side bets, transfers and balances (RULES.md, "Quotas")."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.check import check_record
from rules.errors import RuleViolation
from rules.singapore import SideBet, Stake, settle_stake

# The worked example's hands: the closer wins 70 points a quota, x1.
WINNER = "4H 5H 6H 7H 7S 7D 8C 9C 10C JC".split()
LOSER = "AH AD KH KD QH 3C 4C 5C 4D 2D".split()
COVERS = {"Bruno": 2, "Carla": 1, "Dario": 2}


def check_stake(stake: dict[str, object]) -> tuple[int, dict[str, object]]:
    record = {"game": "singapore", "winner": WINNER, "loser": LOSER, "stake": stake}
    return check_record(json.loads(json.dumps(record)))


def test_the_texts_example_the_dealer_wins_350_from_three_coverers() -> None:
    code, result = check_stake(
        {
            "dealer": "Anna",
            "opponent": "Bruno",
            "dealer_quotas": 5,
            "covers": COVERS,
            "winner": "Anna",
        }
    )
    assert code == 0
    assert result["points"] == 70
    assert result["balances"] == {"Anna": 350, "Bruno": -140, "Carla": -70, "Dario": -140}
    assert result["transfers"] == [
        {"from": "Bruno", "to": "Anna", "points": 140},
        {"from": "Carla", "to": "Anna", "points": 70},
        {"from": "Dario", "to": "Anna", "points": 140},
    ]


def test_when_the_opponent_wins_the_dealer_pays_every_coverer() -> None:
    settlement = settle_stake(Stake("Anna", "Bruno", 5, "Bruno", COVERS), 70)
    assert dict(settlement.balances) == {"Anna": -350, "Bruno": 140, "Carla": 70, "Dario": 140}
    assert [(t.payer, t.payee, t.points) for t in settlement.transfers] == [
        ("Anna", "Bruno", 140),
        ("Anna", "Carla", 70),
        ("Anna", "Dario", 140),
    ]


def test_side_bets_come_after_the_covers_and_the_losers_backer_pays() -> None:
    bets = (SideBet("Elena", "Franco", 3), SideBet("Gina", "Elena", 1))
    settlement = settle_stake(Stake("Anna", "Bruno", 5, "Anna", {"Bruno": 2}, bets), 60)
    assert [t.as_dict() for t in settlement.transfers] == [
        {"from": "Bruno", "to": "Anna", "points": 120},
        {"from": "Franco", "to": "Elena", "points": 180},
        {"from": "Elena", "to": "Gina", "points": 60},
    ]
    assert dict(settlement.balances) == {
        "Anna": 120,
        "Bruno": -120,
        "Elena": 120,
        "Franco": -180,
        "Gina": 60,
    }


def test_the_balances_name_the_opponent_even_without_a_cover_and_uncovered_quotas_are_void() -> (
    None
):
    settlement = settle_stake(Stake("Anna", "Bruno", 5, "Anna", {"Carla": 1}), 40)
    assert dict(settlement.balances) == {"Anna": 40, "Bruno": 0, "Carla": -40}


@pytest.mark.parametrize(
    ("stake", "at"),
    [
        (
            {"dealer": "Anna", "opponent": "Anna", "dealer_quotas": 5, "winner": "Anna"},
            "stake.opponent",
        ),
        (
            {"dealer": "Anna", "opponent": "Bruno", "dealer_quotas": 5, "winner": "Carla"},
            "stake.winner",
        ),
        (
            {"dealer": "Anna", "opponent": "Bruno", "dealer_quotas": 0, "winner": "Anna"},
            "stake.dealer_quotas",
        ),
        (
            {
                "dealer": "Anna",
                "opponent": "Bruno",
                "dealer_quotas": 5,
                "winner": "Anna",
                "covers": {"Bruno": 0},
            },
            "stake.covers.Bruno",
        ),
        (
            {
                "dealer": "Anna",
                "opponent": "Bruno",
                "dealer_quotas": 5,
                "winner": "Anna",
                "covers": {"Carla": -2},
            },
            "stake.covers.Carla",
        ),
        (
            {
                "dealer": "Anna",
                "opponent": "Bruno",
                "dealer_quotas": 5,
                "winner": "Anna",
                "covers": {"Anna": 1, "Bruno": 2},
            },
            "stake.covers.Anna",
        ),
        (
            {
                "dealer": "Anna",
                "opponent": "Bruno",
                "dealer_quotas": 5,
                "winner": "Anna",
                "covers": {"Bruno": 3, "Carla": 3},
            },
            "stake.covers",
        ),
        (
            {
                "dealer": "Anna",
                "opponent": "Bruno",
                "dealer_quotas": 5,
                "winner": "Anna",
                "side_bets": [
                    {"backer_of_winner": "Elena", "backer_of_loser": "Elena", "quotas": 1}
                ],
            },
            "stake.side_bets[0]",
        ),
        (
            {
                "dealer": "Anna",
                "opponent": "Bruno",
                "dealer_quotas": 5,
                "winner": "Anna",
                "side_bets": [
                    {"backer_of_winner": "Anna", "backer_of_loser": "Elena", "quotas": 1}
                ],
            },
            "stake.side_bets[0]",
        ),
        (
            {
                "dealer": "Anna",
                "opponent": "Bruno",
                "dealer_quotas": 5,
                "winner": "Anna",
                "side_bets": [
                    {"backer_of_winner": "Elena", "backer_of_loser": "Bruno", "quotas": 1}
                ],
            },
            "stake.side_bets[0]",
        ),
        (
            {
                "dealer": "Anna",
                "opponent": "Bruno",
                "dealer_quotas": 5,
                "winner": "Anna",
                "side_bets": [
                    {"backer_of_winner": "Elena", "backer_of_loser": "Franco", "quotas": 0}
                ],
            },
            "stake.side_bets[0]",
        ),
    ],
)
def test_each_unsound_stake_is_a_bad_stake_naming_where(stake: dict[str, object], at: str) -> None:
    code, result = check_stake(stake)
    assert code == 1
    assert [(e["code"], e["at"]) for e in result["errors"]] == [("bad_stake", at)]  # type: ignore[index, union-attr]


def test_every_bad_stake_of_one_record_is_reported() -> None:
    stake = {
        "dealer": "Anna",
        "opponent": "Anna",
        "dealer_quotas": 2,
        "winner": "Zoe",
        "covers": {"Anna": 1, "Carla": 5},
    }
    code, result = check_stake(stake)
    assert code == 1
    assert len(result["errors"]) == 4  # type: ignore[arg-type]
    assert {e["code"] for e in result["errors"]} == {"bad_stake"}  # type: ignore[union-attr]


def test_the_typed_api_raises_bad_stake_too() -> None:
    with pytest.raises(RuleViolation) as raised:
        settle_stake(Stake("Anna", "Bruno", 2, "Anna", {"Anna": 1}), 10)
    assert raised.value.code == "bad_stake"


NAMES = st.sampled_from(["Anna", "Bruno", "Carla", "Dario", "Elena", "Franco", "Gina"])


@st.composite
def sound_stakes(draw: st.DrawFn) -> Stake:
    dealer, opponent = draw(st.lists(NAMES, min_size=2, max_size=2, unique=True))
    quotas = draw(st.integers(1, 20))
    others = draw(st.lists(NAMES.filter(lambda n: n != dealer), max_size=4, unique=True))
    covers: dict[str, int] = {}
    room = quotas
    for name in others:
        if room:
            covers[name] = draw(st.integers(1, room))
            room -= covers[name]
    bystanders = [
        n for n in ["Carla", "Dario", "Elena", "Franco", "Gina"] if n not in (dealer, opponent)
    ]
    bets = draw(
        st.lists(
            st.tuples(st.sampled_from(bystanders), st.sampled_from(bystanders), st.integers(1, 9))
            .filter(lambda b: b[0] != b[1])
            .map(lambda b: SideBet(*b)),
            max_size=3,
        )
    )
    winner = draw(st.sampled_from([dealer, opponent]))
    return Stake(dealer, opponent, quotas, winner, covers, tuple(bets))


@settings(max_examples=300, deadline=None)
@given(stake=sound_stakes(), points=st.integers(0, 550))
def test_transfers_always_sum_to_zero(stake: Stake, points: int) -> None:
    settlement = settle_stake(stake, points)
    assert sum(settlement.balances.values()) == 0
    assert len(settlement.transfers) == len(stake.covers) + len(stake.side_bets)
    everyone = {stake.dealer, stake.opponent, *stake.covers}
    everyone |= {n for b in stake.side_bets for n in (b.backer_of_winner, b.backer_of_loser)}
    assert set(settlement.balances) == everyone
    dealer_gain = sum(q * points for q in stake.covers.values())
    expected = dealer_gain if stake.winner == stake.dealer else -dealer_gain
    assert settlement.balances[stake.dealer] == expected
