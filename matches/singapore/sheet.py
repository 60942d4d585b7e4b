"""The session sheet: the paper sheet of "dare" and "avere" a table kept, hand by hand.

One row per result a hand ever had (a correction shows the old result struck through above
the new one; a voided hand stays, struck through): the closing, the points per quota and
each person's change. Only results in force count: each person's running balance (avere
when the table owes them, dare when they owe) and the totals add those up. Built in a
constant number of queries whatever the number of hands (one more when some hand was
allowed out of turn: who allowed it and why, from the hands' audit).
"""

from __future__ import annotations

import io
from collections import Counter
from dataclasses import dataclass, field
from decimal import Decimal

from django.contrib.contenttypes.models import ContentType
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

import plumbing.csv_export as csv_export
from clubs.models import Player
from matches.results.audit import names_of
from matches.results.models import AuditEntry, OutcomeStatus
from matches.singapore.models import Hand, TableSession
from matches.singapore.payload import HandView, view_of, with_history

CLOSINGS = {
    1: gettext_lazy("simple"),
    2: gettext_lazy("double"),
    5: gettext_lazy("quintuple"),
    4: gettext_lazy("×4 (one joker)"),
    3: gettext_lazy("×3 (two jokers)"),
}
CLOSING_ORDER = [1, 2, 5, 4, 3]


def closing_label(multiplier: int) -> str:
    return str(CLOSINGS.get(multiplier, f"×{multiplier}"))


@dataclass
class Cell:
    change: int  # points in this hand (0 when the person was not in it)
    running: int | None  # the running balance after it (None: the row does not count)
    amount: Decimal | None = None
    running_amount: Decimal | None = None
    played: bool = False


# The audit's steps that let a hand in out of turn (``services.record_hand``, the import).
OUT_OF_TURN_ACTIONS = ("out_of_turn", "import_out_of_turn")


@dataclass(frozen=True)
class OutOfTurn:
    """How a hand came to be recorded out of turn: who allowed it and why."""

    number: int  # the hand's
    who: str
    reason: str
    imported: bool

    @property
    def text(self) -> str:
        if self.imported:
            return _("imported out of turn, allowed by %(who)s") % {"who": self.who}
        if self.reason:
            return _("allowed out of turn by %(who)s: %(reason)s") % {
                "who": self.who,
                "reason": self.reason,
            }
        return _("allowed out of turn by %(who)s") % {"who": self.who}


@dataclass
class Row:
    hand: Hand
    view: HandView
    status: str
    counts: bool
    cells: list[Cell]
    out_of_turn: OutOfTurn | None = None

    @property
    def closing(self) -> str:
        return closing_label(self.view.multiplier)

    @property
    def struck(self) -> bool:
        return self.status in (
            OutcomeStatus.SUPERSEDED,
            OutcomeStatus.VOIDED,
            OutcomeStatus.WITHDRAWN,
            OutcomeStatus.REJECTED,
        )

    @property
    def waiting(self) -> bool:
        return self.status in (OutcomeStatus.REPORTED, OutcomeStatus.DISPUTED)


@dataclass
class Total:
    player: Player
    points: int
    amount: Decimal | None

    @property
    def avere(self) -> int:
        return max(self.points, 0)

    @property
    def dare(self) -> int:
        return max(-self.points, 0)


@dataclass
class Sheet:
    session: TableSession
    people: list[Player]
    rows: list[Row]
    totals: list[Total]
    closings: list[tuple[str, int]] = field(default_factory=list)
    hands_counted: int = 0
    money_hidden: bool = False  # the reader may not see the club's money: points only
    out_of_turn: list[OutOfTurn] = field(default_factory=list)  # one per hand, in order

    @property
    def money(self) -> bool:
        return self.session.point_value is not None and not self.money_hidden


def out_of_turn_notes(session: TableSession, hands: list[Hand]) -> dict[int, OutOfTurn]:
    """Each hand recorded out of turn (by its id): who let it in and why, from its audit
    (two queries, none when every hand was in turn)."""
    marked = {hand.pk: hand for hand in hands if hand.out_of_turn}
    if not marked:
        return {}
    entries = AuditEntry.objects.filter(
        content_type=ContentType.objects.get_for_model(Hand),
        object_id__in=list(marked),
        action__in=OUT_OF_TURN_ACTIONS,
    ).order_by("at", "pk")
    found = {entry.object_id: entry for entry in entries}
    names = names_of(session.club_id, {e.by_id for e in found.values() if e.by_id})
    someone = _("someone")
    notes = {}
    for pk, hand in marked.items():
        entry = found.get(pk)
        notes[pk] = OutOfTurn(
            number=hand.number,
            who=names.get(entry.by_id, someone) if entry and entry.by_id else someone,
            reason=entry.note if entry else "",
            imported=bool(entry) and entry.action == "import_out_of_turn",
        )
    return notes


def build_sheet(session: TableSession, *, money: bool = True) -> Sheet:
    """The sheet of ``session``: six queries, whatever the number of hands. ``money``:
    whether the reader sees the club's money (``ClubAccess.sees_money``); without it the
    sheet has points only, as a session without a point value."""
    amount = session.amount if money else (lambda points: None)
    seats = list(session.seats.select_related("player").order_by("position"))
    people = [seat.player for seat in seats]
    hands = list(with_history(Hand.objects.filter(session=session)).order_by("number"))
    views: list[tuple[Hand, HandView]] = []
    for hand in hands:
        hand.session = session
        for outcome in hand.outcomes.all():
            views.append((hand, view_of(hand, outcome, outcome.game_records.all()[0])))
    known = {p.pk for p in people}
    missing = {pid for _h, v in views for pid in v.balances if pid not in known}
    if missing:  # a person merged into someone who never sat here
        people += list(Player.objects.filter(pk__in=missing).order_by("display_name"))
    notes = out_of_turn_notes(session, hands)
    index = {p.pk: n for n, p in enumerate(people)}
    running = [0] * len(people)
    closings: Counter[int] = Counter()
    rows: list[Row] = []
    for hand, view in views:
        status = view.outcome.status
        counts = status == OutcomeStatus.CONFIRMED
        cells = [Cell(change=0, running=None) for _ in people]
        for pid, points in view.balances.items():
            cell = cells[index[pid]]
            cell.change, cell.played = points, True
            cell.amount = amount(points)
        if counts:
            closings[view.multiplier] += 1
            for n, cell in enumerate(cells):
                running[n] += cell.change
                cell.running = running[n]
                cell.running_amount = amount(running[n])
        rows.append(
            Row(
                hand=hand,
                view=view,
                status=status,
                counts=counts,
                cells=cells,
                out_of_turn=notes.get(hand.pk),
            )
        )
    totals = [Total(p, running[n], amount(running[n])) for n, p in enumerate(people)]
    return Sheet(
        session=session,
        people=people,
        rows=rows,
        totals=totals,
        closings=[(closing_label(m), closings[m]) for m in CLOSING_ORDER if closings[m]]
        + [(closing_label(m), n) for m, n in closings.items() if m not in CLOSING_ORDER],
        hands_counted=sum(closings.values()),
        money_hidden=not money,
        out_of_turn=sorted(notes.values(), key=lambda note: note.number),
    )


def sheet_csv(sheet: Sheet) -> str:
    """The sheet as CSV: one line per result, each person's change and running balance;
    a hand recorded out of turn says so, who allowed it and why, in its own column."""
    out = io.StringIO()
    writer = csv_export.writer(out)  # a guest's name is never run as a formula
    head = [
        _("hand"),
        _("status"),
        _("dealer"),
        _("opponent"),
        _("winner"),
        _("closing"),
        _("points"),
        _("out of turn"),
    ]
    for person in sheet.people:
        head += [person.display_name, _("%(name)s balance") % {"name": person.display_name}]
    writer.writerow(head)
    names = {p.pk: p.display_name for p in sheet.people}
    for row in sheet.rows:
        line = [
            row.hand.number,
            row.status,
            names.get(row.hand.dealer_id, row.hand.dealer_id),
            names.get(row.hand.opponent_id, row.hand.opponent_id),
            names.get(row.view.winner_player, row.view.winner_player),
            row.closing,
            row.view.points,
            row.out_of_turn.text if row.out_of_turn else "",
        ]
        for cell in row.cells:
            change = cell.amount if sheet.money and cell.played else cell.change
            balance = cell.running_amount if sheet.money else cell.running
            line += [change if cell.played else "", "" if cell.running is None else balance]
        writer.writerow(line)
    total = [_("total"), "", "", "", "", "", "", ""]
    for t in sheet.totals:
        total += ["", t.amount if sheet.money else t.points]
    writer.writerow(total)
    return out.getvalue()
