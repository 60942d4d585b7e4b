"""A Singapore hand's legs for the ledger: the rules engine's ``transfers`` (one per cover,
between the coverer and the dealer; one per side bet, between the two backers), each a debt
of one person to another, in the table's unit.

Also the ledger's provider of legs for the hands posted before it kept them
(its ``Game.ledger_legs``, run by ``manage.py ledger_legs``): each
posting ``hand:<id>:v<n>`` gets the transfers of the hand's n-th result in force, from the
record stored for it.
"""

from __future__ import annotations

import re
from collections import defaultdict
from decimal import Decimal

from django.contrib.contenttypes.models import ContentType

from clubs.models import Player
from matches.results.adapters import CheckedOutcome
from matches.results.models import GameRecord, Outcome, OutcomeStatus
from matches.singapore.models import Hand, TableSession
from matches.singapore.payload import CheckedHand

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
