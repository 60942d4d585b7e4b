"""Settling up, and who owes whom: pure Python on whole numbers (cents or points), no Django.

**The fewest payments** (:func:`settle_up`). People whose balances sum to zero can always be
cleared with at most ``n - 1`` payments (one per person but the last). A group of people
whose balances already sum to zero can be settled on its own, so the minimum number of
payments is ``n - k``, where ``k`` is the largest number of disjoint zero-sum groups the
people can be split into. Finding ``k`` is NP-hard in general (it contains subset-sum), so:

1. People with a zero balance are left out, and every *exact pair* (one owes exactly what
   another is owed) pays directly: some optimal split always has such a pair as a group of
   its own (if ``x`` and ``-x`` sit in different groups, swapping them into a pair and
   merging what is left of the two groups keeps the count).
2. **Exact**, for up to :data:`EXACT_LIMIT` people left: ``k`` is the length of the longest
   chain ``S1 ⊊ S2 ⊊ … ⊊ everyone`` of zero-sum sets (the differences between neighbours
   are the groups). The zero-sum sets are found by meet-in-the-middle (the subset sums of
   each half, joined on opposite values: ``2 · 2^(n/2)`` sums instead of ``2^n``); each
   layer of the chain, "the zero-sum sets with a chain of length ``j`` below them", is a
   bitset of ``2^n`` bits held in one Python integer, and "some member of the layer is a
   proper subset of me" is ``2n`` shifts and masks over the whole bitset at once (the
   superset closure, one dimension per shift). Twenty people take milliseconds
   (``benchmarks/settle_up_bench.py``).
3. **Heuristic**, beyond: the largest debtor pays the largest creditor as much as they can,
   repeatedly. Each payment clears at least one person and the last clears two, so it
   never needs more than ``n - 1`` payments, whatever the balances.

Inside each zero-sum group the same greedy settles ``g`` people with ``g - 1`` payments. The
plan always clears every balance exactly: :func:`settle_up` checks it before returning.

**Who owes whom** (:func:`allocate`): inside one transaction, each loser owes each winner in
proportion to what the winner won (the winners are served one after another, each taking
from the losers in proportion to what they still owe, largest remainders rounded up), so
the shares are whole numbers that add up exactly, by row and by column.
"""

from __future__ import annotations

import heapq
from collections import defaultdict
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

# Exact minimum for up to this many people (after exact pairs are paid): 2^n bits per
# bitset, 2^22 bits = 512 KiB: well under a second at worst (benchmarks/settle_up_bench.py).
EXACT_LIMIT = 22


@dataclass(frozen=True)
class Transfer:
    """``payer`` pays ``payee`` ``amount`` (a positive whole number of cents or points)."""

    payer: Any
    payee: Any
    amount: int


def settle_up(
    balances: Mapping[Hashable, int], *, exact_limit: int = EXACT_LIMIT
) -> list[Transfer]:
    """The fewest payments that clear ``balances`` (exact up to ``exact_limit`` people left
    after exact pairs, a greedy plan of at most ``n - 1`` payments beyond).

    A positive balance is owed to its holder (a creditor), a negative one is owed by them.
    The balances must sum to zero. Ties are broken by the order of ``balances``' keys, so the
    same balances always give the same plan.

    >>> settle_up({"anna": 5, "bea": -3, "carlo": -2})
    [Transfer(payer='bea', payee='anna', amount=3), Transfer(payer='carlo', payee='anna', amount=2)]
    """
    for key, value in balances.items():
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"balance of {key!r} is not a whole number: {value!r}")
    if sum(balances.values()) != 0:
        raise ValueError(f"balances do not sum to zero: {sum(balances.values())}")
    people = [(key, value) for key, value in balances.items() if value != 0]
    transfers, rest = _pay_exact_pairs(people)
    if len(rest) <= exact_limit:
        for group in zero_sum_groups([value for _, value in rest]):
            transfers.extend(_greedy([rest[i] for i in group]))
    else:
        transfers.extend(_greedy(rest))
    _check_clears(balances, transfers)
    return transfers


def _pay_exact_pairs(people: list[tuple[Any, int]]) -> tuple[list[Transfer], list[tuple[Any, int]]]:
    """Pay every debtor who owes exactly what a creditor is owed; the others are left."""
    creditors: dict[int, list[int]] = defaultdict(list)
    for index, (_, value) in enumerate(people):
        if value > 0:
            creditors[value].append(index)
    paired: set[int] = set()
    transfers = []
    for index, (key, value) in enumerate(people):
        if value < 0 and creditors.get(-value):
            creditor = creditors[-value].pop(0)
            paired.update((index, creditor))
            transfers.append(Transfer(payer=key, payee=people[creditor][0], amount=-value))
    return transfers, [p for index, p in enumerate(people) if index not in paired]


def _greedy(people: Iterable[tuple[Any, int]]) -> list[Transfer]:
    """The largest debtor pays the largest creditor as much as possible, until all are clear.

    Each payment clears at least one of the two, and the last one both: at most ``n - 1``.
    """
    debtors: list[tuple[int, int, Any]] = []  # (amount owed as a negative, order, key)
    creditors: list[tuple[int, int, Any]] = []
    for order, (key, value) in enumerate(people):
        if value < 0:
            debtors.append((value, order, key))
        elif value > 0:
            creditors.append((-value, order, key))
    heapq.heapify(debtors)
    heapq.heapify(creditors)
    transfers = []
    while debtors and creditors:
        owes, d_order, debtor = heapq.heappop(debtors)
        owed, c_order, creditor = heapq.heappop(creditors)
        amount = min(-owes, -owed)
        transfers.append(Transfer(payer=debtor, payee=creditor, amount=amount))
        if -owes > amount:
            heapq.heappush(debtors, (owes + amount, d_order, debtor))
        if -owed > amount:
            heapq.heappush(creditors, (owed + amount, c_order, creditor))
    if debtors or creditors:
        raise ValueError("balances do not sum to zero")
    return transfers


def _check_clears(balances: Mapping[Hashable, int], transfers: list[Transfer]) -> None:
    left = dict(balances)
    for transfer in transfers:
        if transfer.amount <= 0 or transfer.payer == transfer.payee:
            raise AssertionError(f"not a payment: {transfer}")
        left[transfer.payer] += transfer.amount
        left[transfer.payee] -= transfer.amount
    if any(left.values()):  # a bug, never an input error: refuse to hand out a wrong plan
        raise AssertionError(f"the plan leaves balances uncleared: {left}")


# --- The exact minimum: the most disjoint zero-sum groups ------------------------------------


def zero_sum_groups(values: list[int]) -> list[list[int]]:
    """Split the indices of ``values`` (non-zero, summing to zero) into as many zero-sum
    groups as possible. Exponential in ``len(values)``: callers keep it small.

    >>> zero_sum_groups([3, -1, -2, 4, -4])
    [[3, 4], [0, 1, 2]]
    """
    n = len(values)
    if n == 0:
        return []
    if sum(values) != 0:
        raise ValueError("values do not sum to zero")
    full = (1 << n) - 1
    zero = _zero_sum_sets(values)  # bit m set: the people of mask m sum to zero
    no_bit = _no_bit_masks(n)
    layers = [zero]  # layers[j]: zero-sum sets with a chain of j + 1 zero-sum sets up to them
    while True:
        above = zero & _strictly_above(layers[-1], n, no_bit)
        if not above:
            break
        layers.append(above)
    # The top layer holds ``full`` alone; walk down, one proper zero-sum subset per layer.
    chain = [full]
    for layer in reversed(layers[:-1]):
        below = layer & _submasks(chain[-1], n, no_bit) & ~(1 << chain[-1])
        chain.append((below & -below).bit_length() - 1)
    chain.append(0)
    groups = []
    for upper, lower in zip(chain, chain[1:], strict=False):
        difference = upper & ~lower
        groups.append([i for i in range(n) if difference >> i & 1])
    return groups


def _zero_sum_sets(values: list[int]) -> int:
    """The bitset (bit ``m`` for mask ``m``) of the non-empty zero-sum subsets, by
    meet-in-the-middle: subset sums of each half, joined on opposite values."""
    n = len(values)
    half = n // 2
    left = _subset_sums(values[:half])
    right = _subset_sums(values[half:])
    by_sum: dict[int, list[int]] = defaultdict(list)
    for mask, total in enumerate(left):
        by_sum[total].append(mask)
    bits = bytearray(max(1, (1 << n) // 8))
    for right_mask, total in enumerate(right):
        for left_mask in by_sum.get(-total, ()):
            mask = left_mask | (right_mask << half)
            bits[mask >> 3] |= 1 << (mask & 7)
    bits[0] &= 0xFE  # the empty set is no group
    return int.from_bytes(bits, "little")


def _subset_sums(values: list[int]) -> list[int]:
    sums = [0] * (1 << len(values))
    for mask in range(1, len(sums)):
        low = mask & -mask
        sums[mask] = sums[mask ^ low] + values[low.bit_length() - 1]
    return sums


def _no_bit_masks(n: int) -> list[int]:
    """For each person ``i``, the bitset of the masks without ``i``."""
    size = 1 << n
    masks = []
    for i in range(n):
        block = 1 << i
        if block >= 8:
            pattern = (b"\xff" * (block // 8) + b"\x00" * (block // 8)) * (size // (2 * block))
            masks.append(int.from_bytes(pattern, "little"))
        else:  # a period shorter than a byte: build it bit by bit (small n, or repeat a byte)
            byte = sum(1 << m for m in range(8) if not m & block)
            if size >= 8:
                masks.append(int.from_bytes(bytes([byte]) * (size // 8), "little"))
            else:
                masks.append(sum(1 << m for m in range(size) if not m & block))
    return masks


def _strictly_above(sets: int, n: int, no_bit: list[int]) -> int:
    """The masks with a proper subset in ``sets``: close ``sets`` upwards, then add one more
    person to each (a mask without person ``i``, shifted by ``2^i``, is the mask with them)."""
    closed = sets
    for i in range(n):
        closed |= (closed & no_bit[i]) << (1 << i)
    above = 0
    for i in range(n):
        above |= (closed & no_bit[i]) << (1 << i)
    return above


def _submasks(mask: int, n: int, no_bit: list[int]) -> int:
    """The bitset of every subset of ``mask``: close the single set ``{mask}`` downwards."""
    closed = 1 << mask
    full = (1 << (1 << n)) - 1
    for i in range(n):
        if mask >> i & 1:
            closed |= (closed & (full ^ no_bit[i])) >> (1 << i)
    return closed


# --- Who owes whom inside one transaction -----------------------------------------------------


def allocate(amounts: Mapping[Hashable, int]) -> list[Transfer]:
    """Who owes whom inside one transaction whose ``amounts`` sum to zero: each loser owes
    each winner in proportion to the winnings, in whole units that add up exactly.

    >>> for t in allocate({"anna": 10, "bea": 5, "carlo": -9, "dario": -6}):
    ...     print(t.payer, "->", t.payee, t.amount)
    carlo -> anna 6
    dario -> anna 4
    carlo -> bea 3
    dario -> bea 2
    """
    if sum(amounts.values()) != 0:
        raise ValueError("amounts do not sum to zero")
    owing = {key: -value for key, value in amounts.items() if value < 0}
    winners = [(key, value) for key, value in amounts.items() if value > 0]
    transfers = []
    for winner, won in winners:
        remaining = sum(owing.values())
        exact = {key: won * owes for key, owes in owing.items()}  # shares times ``remaining``
        shares = {key: value // remaining for key, value in exact.items()}
        short = won - sum(shares.values())
        # Largest remainders first (ties: the order given); a share never exceeds what is
        # still owed, since ``won <= remaining``.
        for key in sorted(exact, key=lambda k: -(exact[k] % remaining))[:short]:
            shares[key] += 1
        for key, share in shares.items():
            if share:
                transfers.append(Transfer(payer=key, payee=winner, amount=share))
                owing[key] -= share
    return transfers
