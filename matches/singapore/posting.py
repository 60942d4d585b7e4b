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
below); the ledger's entries, each person's net, follow.
A hand where nothing changes hands (no quota covered) posts nothing.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from django.contrib.contenttypes.models import ContentType
from django.urls import reverse
from django.utils import formats
from django.utils.translation import gettext as _

from clubs.models import Player
from ledger import services as ledger
from ledger.models import Transaction
from ledger.sources import Source
from matches.results.adapters import CheckedOutcome
from matches.results.models import GameRecord, Outcome, OutcomeStatus
from matches.singapore.models import Hand, TableSession
from matches.singapore.payload import CheckedHand, balances_of


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
    *, hand: Hand, outcome: Outcome, by, checked: CheckedOutcome | None = None, new: bool = False
) -> Transaction | None:
    """Post ``outcome`` (now in force) to the ledger, once for its key. ``new``: it is
    coming into force now, in the caller's transaction, and is the hand's first result in
    force, whose key (``v1``) no posting can have yet (``ledger.post_transaction``)."""
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
        new=new and outcome.supersedes_id is None,
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


# --- A hand's legs: the debts it is made of --------------------------------------------------
#
# A Singapore hand's legs for the ledger: the rules engine's ``transfers`` (one per cover,
# between the coverer and the dealer; one per side bet, between the two backers), each a debt
# of one person to another, in the table's unit.
#
# Also the ledger's provider of legs for the hands posted before it kept them
# (its ``Game.ledger_legs``, run by ``manage.py ledger_legs``): each
# posting ``hand:<id>:v<n>`` gets the transfers of the hand's n-th result in force, from the
# record stored for it.

KEY = re.compile(r"hand:([0-9]{1,18}):v([0-9]{1,9})")
# The results of a hand that came into force at some time, each posted once (v1, v2, ...).
APPLIED = [OutcomeStatus.CONFIRMED, OutcomeStatus.SUPERSEDED, OutcomeStatus.VOIDED]


def in_unit(session: TableSession, points: int) -> int | Decimal:
    """``points`` in the table's unit: points, or money at the point's value."""
    return points if session.point_value is None else session.amount(points)


def transfers_of(
    outcome: Outcome, checked: CheckedOutcome | None = None
) -> list[tuple[Player, Player, int]]:
    """``(debtor, creditor, points)`` of each transfer of ``outcome``'s hand: from the check
    the step just made of its payload (``checked``), or from its stored record and seats."""
    hand = checked.extra if checked is not None else None
    if isinstance(hand, CheckedHand) and hand.payload == outcome.payload:
        names, result = hand.names, hand.result
    else:
        record = outcome.game_records.get()
        names = {seat.name_in_record: seat.player for seat in record.seats.select_related("player")}
        result = record.result
    return [(names[t["from"]], names[t["to"]], t["points"]) for t in result.get("transfers", [])]


def legs_of(
    hand: Hand, outcome: Outcome, checked: CheckedOutcome | None = None
) -> list[tuple[Player, Player, int | Decimal]]:
    """The ledger legs of ``outcome``: each transfer in the table's unit."""
    transfers = transfers_of(outcome, checked)
    return [(d, c, in_unit(hand.session, points)) for d, c, points in transfers]


def legs_of_postings(transactions) -> dict[int, list[tuple[int, int, int | Decimal]]]:
    """The ledger's provider for ``hand:<id>`` postings (see the module): transaction id ->
    ``[(debtor id, creditor id, amount)]``, for the postings whose record is found."""
    wanted: dict[int, dict[int, int]] = defaultdict(dict)  # hand id -> version -> tx id
    for tx in transactions:
        match = KEY.fullmatch(tx.key)
        if match:
            wanted[int(match[1])][int(match[2])] = tx.pk
    if not wanted:
        return {}
    hand_type = ContentType.objects.get_for_model(Hand)
    versions: dict[int, int] = {}  # outcome id -> tx id
    counted: dict[int, int] = defaultdict(int)
    for outcome_id, hand_id in (
        Outcome.objects.filter(
            content_type=hand_type, object_id__in=list(wanted), status__in=APPLIED
        )
        .order_by("object_id", "pk")
        .values_list("pk", "object_id")
    ):
        counted[hand_id] += 1
        if counted[hand_id] in wanted[hand_id]:
            versions[outcome_id] = wanted[hand_id][counted[hand_id]]
    sessions = {
        h.pk: h.session for h in Hand.objects.filter(pk__in=list(wanted)).select_related("session")
    }
    found = {}
    records = (
        GameRecord.objects.filter(outcome_id__in=list(versions))
        .select_related("outcome")
        .prefetch_related("seats")
    )
    for record in records:
        names = {seat.name_in_record: seat.player_id for seat in record.seats.all()}
        session = sessions.get(record.outcome.object_id) if record.outcome_id else None
        transfers = record.result.get("transfers")
        if (
            session is None
            or not transfers
            or any(t["from"] not in names or t["to"] not in names for t in transfers)
        ):
            continue
        found[versions[record.outcome_id]] = [
            (names[t["from"]], names[t["to"]], in_unit(session, t["points"])) for t in transfers
        ]
    return found


# --- What the ledger's statements say of a hand and a table ----------------------------------
#
# What a Singapore posting came from, for the ledger's statements (``ledger.sources``).


def describe_hands(club, ids: list[str]) -> dict[str, Source]:
    """``"hand:<id>"`` labels: the table, the hand's number and a link to it."""
    wanted = [int(i) for i in ids if i.isdigit() and len(i) <= 18]
    found = {}
    for hand in Hand.objects.filter(club=club, pk__in=wanted).select_related("session"):
        found[str(hand.pk)] = Source(
            _("%(table)s, hand %(n)s") % {"table": hand.session.name, "n": hand.number},
            reverse("singapore:hand", args=[club.slug, hand.session_id, hand.pk]),
        )
    return found


def describe_sessions(club, ids: list[str]) -> dict[str, Source]:
    """``"session:<id>"`` scopes (a table's postings): the table's name and day, and a link
    to the table. Two tables may share a name; their days tell them apart."""
    wanted = [int(i) for i in ids if i.isdigit() and len(i) <= 18]
    return {
        str(session.pk): Source(
            _("%(table)s, %(date)s")
            % {"table": session.name, "date": formats.date_format(session.date, "DATE_FORMAT")},
            reverse("singapore:table", args=[club.slug, session.pk]),
        )
        for session in TableSession.objects.filter(club=club, pk__in=wanted)
    }
