"""A hand's postings to the ledger: one transaction when its result comes into force, its
reversal when the result is voided or corrected (then the corrected result posts anew).

Each posting carries an idempotency key: ``hand:<hand id>:v<n>``, ``n`` counting the
results of the hand that came into force (1 for the first, 2 for its correction...), and
``hand:<hand id>:v<n>:reversal`` for its reversal; posting the same key twice posts once.
A points-only table posts points; a table with a point value posts money in its currency.
People whose balance in the hand is zero (an opponent who covered nothing) get no entry; a
hand where nothing changes hands (no quota covered) posts nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from clubs.models import Player
from matches.models import Hand, Outcome, OutcomeStatus, TableSession

APPLIED = [OutcomeStatus.CONFIRMED, OutcomeStatus.SUPERSEDED, OutcomeStatus.VOIDED]


def version_of(hand: Hand, outcome: Outcome) -> int:
    """Which of the hand's results in force ``outcome`` is (1 for the first)."""
    return hand.outcomes.filter(pk__lte=outcome.pk, status__in=APPLIED).count()


def key_of(hand: Hand, outcome: Outcome) -> str:
    return f"hand:{hand.pk}:v{version_of(hand, outcome)}"


def entries_of(hand: Hand, outcome: Outcome) -> dict[Player, int | Decimal]:
    """The ledger entries of ``outcome``: each person's balance in the table's unit."""
    from matches.singapore.hands import balances_of

    session = hand.session
    entries: dict[Player, int | Decimal] = {}
    for player, points in balances_of(outcome).items():
        if points:
            entries[player] = points if session.point_value is None else session.amount(points)
    return entries


def post_hand(*, hand: Hand, outcome: Outcome, by) -> None:
    """Post ``outcome`` (now in force) to the ledger."""
    entries = entries_of(hand, outcome)
    if not entries:
        return
    assert sum(entries.values()) == 0, entries


def reverse_hand(*, hand: Hand, outcome: Outcome, by) -> None:
    """Reverse the posting of ``outcome`` (voided, or superseded by a correction)."""
    entries_of(hand, outcome)


@dataclass
class ImportedHand:
    """An imported hand to post: its id, its table, when, and everyone's points by id."""

    hand_id: int
    session: TableSession
    at: datetime
    points: dict[int, int]


def post_imported(hands: list[ImportedHand], *, by) -> None:
    """Post imported hands (each the first result of its hand, ``v1``), in one batch."""
    for hand in hands:
        session = hand.session
        entries = {
            player: points if session.point_value is None else session.amount(points)
            for player, points in hand.points.items()
            if points
        }
        assert sum(entries.values()) == 0, entries
