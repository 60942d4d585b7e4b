"""Who owes whom, pair by pair, as the derived rows keep it (``ledger.models.PairDebt``), and
the legs a payment posts.

A payment clears what the payer owes the payee first; the rest clears chains of debts from
the payer to the payee (as a settle-up plan's payments do: the payer pays the payee what the
payer owes a third person who owes the payee); what is still left makes the payee owe the
payer. The chains are found once, when the payment is confirmed, against the debts as they
stand then, and the payment's legs record them (:func:`payment_legs`): the payee owes the
payer what was paid directly, and each debt of a chain is cleared by a leg the other way.
Its entries are the same as a single leg's (the payer up, the payee down, everyone on a
chain even), so balances never depend on it, and who owes whom stays a plain sum of legs
that the database keeps by trigger, whatever the club's history.

(A payment confirmed before migration ``ledger.0006`` has the one leg between its two
people: who owes whom used to find its chains again at every read, by replaying every
payment against the totals. Its legs cannot be rewritten, so from 0006 on it clears only the
debt between the two; balances and the settle-up plan never depended on it.)
"""

from __future__ import annotations

from collections import defaultdict, deque

from clubs.models import Club, Player
from ledger.amounts import Legs
from ledger.models import WHOLE_CLUB, PairDebt


class Pairs:
    """Debts between pairs of people, each pair netted: ``owes(a, b)`` is what ``a`` owes
    ``b`` (negative when ``b`` owes ``a``); ``paid`` what payments cleared, the same way."""

    def __init__(self) -> None:
        self.owed: dict[tuple[int, int], int] = defaultdict(int)  # (low, high): low owes high
        self.paid: dict[tuple[int, int], int] = defaultdict(int)

    @staticmethod
    def _signed(a: int, b: int) -> tuple[tuple[int, int], int]:
        return ((a, b), 1) if a < b else ((b, a), -1)

    def owes(self, a: int, b: int) -> int:
        pair, sign = self._signed(a, b)
        return sign * self.owed.get(pair, 0)

    def add(self, a: int, b: int, minor: int) -> None:
        """``a`` owes ``b`` ``minor`` more."""
        pair, sign = self._signed(a, b)
        self.owed[pair] += sign * minor

    def pay(self, a: int, b: int, minor: int) -> None:
        """``minor`` of what ``a`` owes ``b`` is paid."""
        pair, sign = self._signed(a, b)
        self.owed[pair] -= sign * minor
        self.paid[pair] += sign * minor

    def _path(self, start: int, goal: int) -> list[tuple[int, int]]:
        """A shortest chain of debts ``start`` owes ... owes ``goal`` (by ids, so always the
        same), or none."""
        follows: dict[int, list[int]] = defaultdict(list)
        for (low, high), minor in sorted(self.owed.items()):
            if minor > 0:
                follows[low].append(high)
            elif minor < 0:
                follows[high].append(low)
        came_from = {start: start}
        queue = deque([start])
        while queue:
            here = queue.popleft()
            if here == goal:
                path = []
                while here != start:
                    path.append((came_from[here], here))
                    here = came_from[here]
                return path[::-1]
            for there in follows[here]:
                if there not in came_from:
                    came_from[there] = here
                    queue.append(there)
        return []

    def settle(self, payer: int, payee: int, minor: int) -> list[tuple[int, int, int]]:
        """A payment (see the module's docstring), applied; returns what it cleared, as
        ``(a, b, minor)``: ``minor`` of what ``a`` owed ``b``."""
        cleared = []
        direct = max(0, min(minor, self.owes(payer, payee)))
        if direct:
            self.pay(payer, payee, direct)
            cleared.append((payer, payee, direct))
        rest = minor - direct
        while rest:
            path = self._path(payer, payee)
            if not path:
                break
            flow = min([rest, *(self.owes(a, b) for a, b in path)])
            for a, b in path:
                self.pay(a, b, flow)
                cleared.append((a, b, flow))
            rest -= flow
        if rest:
            self.pay(payer, payee, rest)
            cleared.append((payer, payee, rest))
        return cleared


def merged_of(club: Club) -> dict[int, int]:
    """A merged guest's id -> the member's: their legs count as the member's."""
    return dict(
        Player.objects.filter(club=club, merged_into__isnull=False).values_list(
            "pk", "merged_into_id"
        )
    )


def read(
    club: Club, unit: str, scope: str | None, merged: dict[int, int]
) -> tuple[Pairs, dict[tuple[int, int], list[tuple[int, int]]]]:
    """The pairs of ``unit`` (``scope``'s, the whole club's without one) from their derived
    rows, one query whatever the history, merged guests read as their members; and, for
    each pair, the rows behind it (more than one when a guest was merged)."""
    pairs = Pairs()
    behind: dict[tuple[int, int], list[tuple[int, int]]] = defaultdict(list)
    rows = PairDebt.objects.filter(
        club=club, unit=unit, scope=WHOLE_CLUB if scope is None else scope
    ).values_list("low_id", "high_id", "posted_minor", "paid_minor")
    for low, high, posted, paid in rows.order_by("low_id", "high_id"):
        a, b = merged.get(low, low), merged.get(high, high)
        if a == b:
            continue  # a guest merged into the one they played with
        pairs.add(a, b, posted)
        pairs.pay(a, b, paid)
        behind[(min(a, b), max(a, b))].append((low, high))
    return pairs, behind


def payment_legs(*, club: Club, unit: str, payer: int, payee: int, minor: int) -> Legs:
    """The legs of a payment of ``minor`` from ``payer`` to ``payee``, confirmed now: what it
    clears (the module's docstring), each debt cleared by a leg the other way, netted pair by
    pair. They net to the payer up ``minor`` and the payee down as much."""
    pairs, _behind = read(club, unit, None, merged_of(club))
    signed: dict[tuple[int, int], int] = defaultdict(int)  # (low, high): low owes high
    for a, b, flow in pairs.settle(payer, payee, minor):
        # What a owed b is cleared: b now owes a as much.
        if b < a:
            signed[(b, a)] += flow
        else:
            signed[(a, b)] -= flow
    legs: Legs = {}
    for (low, high), net in signed.items():
        if net > 0:
            legs[(low, high)] = net
        elif net < 0:
            legs[(high, low)] = -net
    return legs
