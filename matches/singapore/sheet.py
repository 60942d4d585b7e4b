"""The session sheet: the paper sheet of "dare" and "avere" a table kept, hand by hand.

One row per result a hand ever had (a correction shows the old result struck through above
the new one; a voided hand stays, struck through): the closing, the points per quota and
each person's change. Only results in force count: each person's running balance (avere
when the table owes them, dare when they owe) and the totals add those up. Built in a
constant number of queries whatever the number of hands.
"""

from __future__ import annotations

import io
from collections import Counter
from dataclasses import dataclass, field
from decimal import Decimal

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

import circolo.csv_export as csv_export
from clubs.models import Player
from matches.results.models import OutcomeStatus
from matches.singapore.hands import HandView, view_of, with_history
from matches.singapore.models import Hand, TableSession

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


@dataclass
class Row:
    hand: Hand
    view: HandView
    status: str
    counts: bool
    cells: list[Cell]

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

    @property
    def money(self) -> bool:
        return self.session.point_value is not None and not self.money_hidden


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
        rows.append(Row(hand=hand, view=view, status=status, counts=counts, cells=cells))
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
    )


def sheet_csv(sheet: Sheet) -> str:
    """The sheet as CSV: one line per result, each person's change and running balance."""
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
        ]
        for cell in row.cells:
            change = cell.amount if sheet.money and cell.played else cell.change
            balance = cell.running_amount if sheet.money else cell.running
            line += [change if cell.played else "", "" if cell.running is None else balance]
        writer.writerow(line)
    total = [_("total"), "", "", "", "", "", ""]
    for t in sheet.totals:
        total += ["", t.amount if sheet.money else t.points]
    writer.writerow(total)
    return out.getvalue()
