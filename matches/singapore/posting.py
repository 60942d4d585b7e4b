"""A hand's postings to the ledger: one transaction when its result comes into force, its
reversal when the result is voided or corrected (then the corrected result posts anew).

Each posting carries an idempotency key: ``hand:<hand id>:v<n>``, ``n`` counting the
results of the hand that came into force (1 for the first, 2 for its correction...), and
``hand:<hand id>:v<n>:reversal`` for its reversal; the ledger posts a key once, however
often and however concurrently it is asked. Postings are scoped to their table
(``session:<id>``, the ledger API's ``session=<id>``) and name their hand as the source
(``hand:<id>``). A points-only table posts points; a table with a point value posts money
in its currency. Its legs are the hand's transfers, each a debt between two people (a
cover between the coverer and the dealer, a side bet between the two backers:
``matches/singapore/ledger_legs.py``); the ledger's entries, each person's net, follow.
A hand where nothing changes hands (no quota covered) posts nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from django.utils.translation import gettext as _

from clubs.models import Player
from ledger import services as ledger
from ledger.models import Transaction
from matches.results.adapters import CheckedOutcome
from matches.results.models import Outcome
from matches.singapore.ledger_legs import APPLIED, in_unit, legs_of
from matches.singapore.models import Hand, TableSession
from matches.singapore.payload import balances_of


def version_of(hand: Hand, outcome: Outcome) -> int:
    """Which of the hand's results in force ``outcome`` is (1 for the first). A result that
    replaces none is the first, asked nothing: a hand's later results in force come only
    by corrections (``matches.results.steps.correct_outcome``), each pointing at the one
    it replaced (a hand has no report after its first, nor awards)."""
    if outcome.supersedes_id is None:
        return 1
    return hand.outcomes.filter(pk__lte=outcome.pk, status__in=APPLIED).count()


def key_of(hand: Hand, outcome: Outcome) -> str:
    return f"hand:{hand.pk}:v{version_of(hand, outcome)}"


def source_of(hand_id: int) -> str:
    return f"hand:{hand_id}"


def _amounts(session: TableSession, points: dict) -> dict:
    return {
        who: value if session.point_value is None else session.amount(value)
        for who, value in points.items()
        if value
    }


def entries_of(
    hand: Hand, outcome: Outcome, checked: CheckedOutcome | None = None
) -> dict[Player, int | Decimal]:
    """The ledger entries of ``outcome``: each person's balance in the table's unit
    (``checked``: the check just made of its payload, if any)."""
    return _amounts(hand.session, balances_of(outcome, checked))


def post_hand(
    *, hand: Hand, outcome: Outcome, by, checked: CheckedOutcome | None = None
) -> Transaction | None:
    """Post ``outcome`` (now in force) to the ledger, once for its key."""
    session = hand.session
    entries = entries_of(hand, outcome, checked)
    if not entries:
        return None
    return ledger.post_transaction(
        club=session.club,
        unit=session.unit,
        legs=legs_of(hand, outcome, checked),
        key=key_of(hand, outcome),
        memo=_("%(table)s, hand %(n)s") % {"table": session.name, "n": hand.number},
        scope=ledger.scope_of_session(session.pk),
        source=source_of(hand.pk),
        at=hand.played_at,
        by=by,
    )


def reverse_hand(*, hand: Hand, outcome: Outcome, by) -> Transaction | None:
    """Reverse the posting of ``outcome`` (voided, or superseded by a correction)."""
    key = key_of(hand, outcome)
    posted = Transaction.objects.filter(key=key).first()
    if posted is None:
        return None  # nothing changed hands: nothing was posted
    return ledger.reverse_transaction(
        transaction=posted,
        key=f"{key}:reversal",
        memo=_("%(table)s, hand %(n)s: %(what)s")
        % {
            "table": hand.session.name,
            "n": hand.number,
            "what": outcome.get_status_display().lower(),
        },
        by=by,
    )


@dataclass
class ImportedHand:
    """An imported hand to post: its id, its table, when, everyone's points by id and the
    transfers by id (debtor, creditor, points)."""

    hand_id: int
    session: TableSession
    at: datetime
    points: dict[int, int]
    transfers: list[tuple[int, int, int]]


def post_imported(hands: list[ImportedHand], *, by) -> int:
    """Post imported hands (each the first result of its hand, ``v1``) in one batch;
    returns how many transactions were posted."""
    return ledger.post_many(
        [
            ledger.Posting(
                club=hand.session.club,
                unit=hand.session.unit,
                legs=[(d, c, in_unit(hand.session, p)) for d, c, p in hand.transfers],
                key=f"hand:{hand.hand_id}:v1",
                memo=_("%(table)s, imported") % {"table": hand.session.name},
                scope=ledger.scope_of_session(hand.session.pk),
                source=source_of(hand.hand_id),
                at=hand.at,
            )
            for hand in hands
            if any(hand.points.values())
        ],
        by=by,
    )
