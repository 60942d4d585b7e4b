"""The settle-up plan (``ledger.settle``): the fewest payments, checked against a brute force
on random groups of up to 8 people; never more than people minus one payments; every
balance cleared exactly. And who owes whom inside one transaction. No database."""

from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ledger.settle import EXACT_LIMIT, allocate, settle_up, zero_sum_groups


def balanced(values: list[int]) -> dict[int, int]:
    """The people 0..n with ``values``, and one more who makes the balances sum to zero."""
    return dict(enumerate([*values, -sum(values)]))


def brute_force_minimum(balances: dict[int, int]) -> int:
    """The fewest payments, by trying every split into zero-sum groups (n - most groups)."""
    values = [v for v in balances.values() if v]
    n = len(values)

    @cache
    def most_groups(mask: int) -> int:
        if not mask:
            return 0
        low = mask & -mask
        best = -1
        sub = mask
        while sub:
            if sub & low and sum(values[i] for i in range(n) if sub >> i & 1) == 0:
                rest = most_groups(mask ^ sub)
                if rest >= 0:
                    best = max(best, rest + 1)
            sub = (sub - 1) & mask
        return best

    return n - most_groups((1 << n) - 1) if n else 0


def cleared(balances: dict, plan) -> dict:
    left = dict(balances)
    for payment in plan:
        assert payment.amount > 0 and payment.payer != payment.payee
        left[payment.payer] += payment.amount
        left[payment.payee] -= payment.amount
    return left


# Small amounts make zero-sum groups (and exact pairs) common, where a greedy plan goes wrong.
small_groups = st.lists(st.integers(min_value=-12, max_value=12), min_size=1, max_size=7)
any_groups = st.lists(st.integers(min_value=-(10**9), max_value=10**9), min_size=1, max_size=7)


@settings(max_examples=400, deadline=None)
@given(st.one_of(small_groups, any_groups))
def test_the_plan_is_the_brute_force_minimum_for_up_to_8_people(values):
    balances = balanced(values)
    plan = settle_up(balances)
    assert len(plan) == brute_force_minimum(balances)
    assert set(cleared(balances, plan).values()) <= {0}


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(min_value=-50, max_value=50), min_size=1, max_size=40))
def test_the_heuristic_never_needs_more_than_people_minus_one_and_clears_everything(values):
    balances = balanced(values)
    people = sum(1 for v in balances.values() if v)
    for plan in (settle_up(balances), settle_up(balances, exact_limit=0)):
        assert len(plan) <= max(people - 1, 0)
        assert set(cleared(balances, plan).values()) <= {0}


def test_exact_pairs_pay_each_other_directly():
    plan = settle_up({"a": 5, "b": -5, "c": 7, "d": -3, "e": -4})
    assert [(t.payer, t.payee, t.amount) for t in plan][0] == ("b", "a", 5)
    assert len(plan) == 3


def test_the_exact_plan_finds_groups_a_greedy_plan_misses():
    # {a, d, f} and {b, c, e} each sum to zero: 4 payments; the greedy plan needs 5.
    balances = {"a": 8, "b": -9, "c": 6, "d": -7, "e": 3, "f": -1}
    assert len(settle_up(balances, exact_limit=0)) == 5
    plan = settle_up(balances)
    assert len(plan) == brute_force_minimum(balances) == 4
    assert set(cleared(balances, plan).values()) == {0}


def test_twenty_one_people_in_seven_hidden_groups_get_the_exact_minimum():
    # Seven groups of two creditors and a debtor (no exact pairs): 21 - 7 payments.
    values = []
    for n in range(1, 8):
        values += [n, n + 100, -(2 * n + 100)]
    balances = dict(enumerate(values[:21]))
    assert len(balances) == 21 and sum(balances.values()) == 0
    plan = settle_up(balances)
    assert len(plan) == 21 - 7
    assert set(cleared(balances, plan).values()) == {0}
    assert EXACT_LIMIT >= 20


def test_an_empty_or_settled_group_needs_no_payment():
    assert settle_up({}) == []
    assert settle_up({"a": 0, "b": 0}) == []


@pytest.mark.parametrize(
    "balances, error",
    [
        ({"a": 1, "b": -2}, ValueError),
        ({"a": 1.5, "b": -1.5}, TypeError),
        ({"a": True, "b": -1}, TypeError),
    ],
)
def test_balances_must_be_whole_numbers_summing_to_zero(balances, error):
    with pytest.raises(error):
        settle_up(balances)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(min_value=-9, max_value=9).filter(bool), min_size=1, max_size=10))
def test_zero_sum_groups_split_everyone_into_groups_summing_to_zero(values):
    values = [*values, -sum(values)] if sum(values) else values
    values = [v for v in values if v]
    groups = zero_sum_groups(values)
    assert sorted(i for group in groups for i in group) == list(range(len(values)))
    assert all(sum(values[i] for i in group) == 0 for group in groups)
    assert len(values) - len(groups) == brute_force_minimum(dict(enumerate(values)))


# --- Who owes whom inside one transaction --------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(min_value=-(10**6), max_value=10**6), min_size=1, max_size=8))
def test_each_loser_owes_each_winner_in_whole_units_that_add_up_exactly(values):
    amounts = balanced(values)
    transfers = allocate(amounts)
    paid = dict.fromkeys(amounts, 0)
    for t in transfers:
        assert t.amount > 0 and amounts[t.payer] < 0 < amounts[t.payee]
        paid[t.payer] -= t.amount
        paid[t.payee] += t.amount
    assert paid == amounts


def test_losers_share_a_win_in_proportion_to_their_loss():
    shares = {(t.payer, t.payee): t.amount for t in allocate({"w": 100, "a": -75, "b": -25})}
    assert shares == {("a", "w"): 75, ("b", "w"): 25}
    shares = {(t.payer, t.payee): t.amount for t in allocate({"w": 10, "v": 20, "a": -30})}
    assert shares == {("a", "w"): 10, ("a", "v"): 20}
