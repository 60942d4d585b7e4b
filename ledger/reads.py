"""Reading the ledger: balances, who owes whom (the legs netted pair by pair, less the payments,
with the postings behind each pair), the settle-up plan (the fewest payments that clear every
balance, ``ledger.settle``) and a person's statement (every entry with its running balance
and the people it was with). The writes are ``ledger.services``'."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime

from django.db import connection
from django.db.models import F, Q, Window
from django.db.models.functions import RowNumber
from django.utils.translation import gettext as _

from clubs.models import Club, Player
from ledger import pairs as pairs_module
from ledger import settle
from ledger.amounts import POINTS, Amount, from_minor
from ledger.models import WHOLE_CLUB, Entry, Kind, Leg, PairPart, Payment, Transaction
from ledger.models import Balance as BalanceRow
from ledger.sources import Source, describe


class _InMinor:
    """A figure kept as ``minor`` units of ``unit``; ``amount`` is the figure itself."""

    minor: int
    unit: str

    @property
    def amount(self) -> Amount:
        return from_minor(self.minor, self.unit)


@dataclass(frozen=True)
class Balance(_InMinor):
    player: Player
    unit: str
    minor: int


@dataclass(frozen=True)
class DebtPart(_InMinor):
    """What one source of postings (a hand, with its corrections and reversal; a carried
    balance; a posting without a source, by its key) adds to a pair's debt."""

    label: str  # the transactions' ``source`` (their key when they have none)
    kind: str  # ``Kind.POSTING`` or ``Kind.CARRY``
    minor: int  # in the debt's direction: positive adds to what the debtor owes
    unit: str
    text: str
    url: str | None
    at: datetime


@dataclass(frozen=True)
class Debt(_InMinor):
    """``debtor`` owes ``creditor`` ``amount`` (or, in a plan, pays it). For who owes whom,
    ``parts`` are the postings behind the debt, oldest first, and ``paid_minor`` what
    payments cleared of it: ``minor`` is the parts' sum less ``paid_minor``."""

    debtor: Player
    creditor: Player
    unit: str
    minor: int
    parts: tuple[DebtPart, ...] = ()
    paid_minor: int = 0
    earlier: bool = False  # more parts behind it than the latest ``parts`` holds

    @property
    def paid(self) -> Amount:
        return from_minor(self.paid_minor, self.unit)


def _players(club: Club, ids) -> dict[int, Player]:
    return {p.pk: p for p in Player.objects.filter(club=club, pk__in=set(ids))}


def balance_minors(*, club: Club, unit: str, scope: str | None = None) -> dict[int, int]:
    """Player id -> balance in minor units (everyone with an entry in ``unit`` and ``scope``,
    the whole club without one): the derived rows (``ledger.models.Balance``), one query
    whatever the ledger's history."""
    rows = BalanceRow.objects.filter(
        club=club, unit=unit, scope=WHOLE_CLUB if scope is None else scope
    ).values_list("player_id", "minor")
    return dict(rows.order_by("player_id"))


def balance_minors_by_scope(*, club: Club, scopes: list[str]) -> dict[str, dict[int, int]]:
    """Scope -> player id -> balance in minor units, every unit together (each scope is one
    unit's, as a Singapore table is): one query of the derived rows whatever the number of
    scopes."""
    found: dict[str, dict[int, int]] = {scope: {} for scope in scopes}
    named = [scope for scope in scopes if scope != WHOLE_CLUB]
    rows = (
        BalanceRow.objects.filter(club=club, scope__in=named)
        .values_list("scope", "player_id", "minor")
        .order_by("scope", "player_id")
    )
    for scope, player, minor in rows:
        found[scope][player] = found[scope].get(player, 0) + minor
    return found


def balances(*, club: Club, unit: str, scope: str | None = None) -> list[Balance]:
    """Everyone with an entry in ``unit`` (and ``scope``; the whole club without one), the
    largest credit first; merged guests only while they have a balance (never, after a merge
    carried it over)."""
    minors = balance_minors(club=club, unit=unit, scope=scope)
    players = _players(club, minors)
    found = [
        Balance(players[pk], unit, minor)
        for pk, minor in minors.items()
        if minor or players[pk].merged_into_id is None  # a merged guest, carried over: gone
    ]
    return sorted(found, key=lambda b: (-b.minor, b.player.display_name.lower(), b.player.pk))


def _part_text(label: str, kind: str, sources: dict[str, Source], players: dict[int, Player]):
    if kind == Kind.CARRY:
        number = label.partition(":")[2]
        guest = players.get(int(number)) if number.isdigit() else None
        name = guest.display_name if guest else "?"
        return _("Balance carried over from %(name)s") % {"name": name}, None
    source = sources.get(label)
    return (source.text, source.url) if source else (label, None)


def net_debts(
    *, club: Club, unit: str, scope: str | None = None, parts: int | None = None
) -> list[Debt]:
    """Who owes whom: the legs of every posting (``scope``'s, or the whole club's), netted
    pair by pair, less what payments cleared (club-wide, so only without a scope;
    ``ledger.pairs`` says how a payment clears chains of debts). A merged guest's legs
    count as the member's. Each debt comes with the postings behind it, one part per source
    (a hand's versions and reversal together), oldest first: the latest ``parts`` of them
    (every one without a limit; ``earlier`` says there are more). Read from the derived
    rows (``PairDebt``, ``PairPart``): two queries and the names; with a limit, in a time
    that does not grow with the history."""
    merged = pairs_module.merged_of(club)
    owed, behind = pairs_module.read(club, unit, scope, merged)
    open_pairs = {pair: minor for pair, minor in owed.owed.items() if minor}
    found_parts, more = _parts_of(club, unit, scope, open_pairs, behind, merged, parts)
    labels = {label for pair in open_pairs for (_kind, label) in found_parts.get(pair, {})}
    sources = describe(club, labels)
    carried = [
        int(number)
        for pair in open_pairs
        for kind, label in found_parts.get(pair, {})
        if kind == Kind.CARRY and (number := label.partition(":")[2]).isdigit()
    ]
    players = _players(club, [pk for pair in open_pairs for pk in pair] + carried)
    debts = []
    for (low, high), minor in open_pairs.items():
        sign = 1 if minor > 0 else -1  # 1: low owes high
        debtor, creditor = (low, high) if sign > 0 else (high, low)
        found = []
        for (kind, label), (part_minor, at) in found_parts.get((low, high), {}).items():
            if part_minor:
                text, url = _part_text(label, kind, sources, players)
                found.append(DebtPart(label, kind, sign * part_minor, unit, text, url, at))
        found.sort(key=lambda p: (p.at, p.label))
        debts.append(
            Debt(
                players[debtor],
                players[creditor],
                unit,
                sign * minor,
                tuple(found),
                sign * owed.paid.get((low, high), 0),
                (low, high) in more,
            )
        )
    return sorted(debts, key=lambda d: (-d.minor, d.debtor.display_name.lower(), d.debtor.pk))


def _parts_of(club, unit, scope, open_pairs, behind, merged, limit):
    """The parts behind the open pairs, by pair, then by (kind, label): ``[minor, at]`` in
    the pair's direction (low owes high); and the pairs with more parts than ``limit`` (the
    latest ``limit`` are kept). One query of the derived parts: on PostgreSQL the latest of
    each row behind a pair through its index (a lateral join), elsewhere a window."""
    rows_behind = {row: pair for pair in open_pairs for row in behind[pair]}
    found: dict[tuple[int, int], dict[tuple[str, str], list]] = defaultdict(dict)
    more: set[tuple[int, int]] = set()
    if not rows_behind:
        return found, more
    where = {"club": club, "unit": unit, "scope": WHOLE_CLUB if scope is None else scope}
    fields = ("low_id", "high_id", "kind", "label", "minor", "at")
    if limit is None:
        rows = PairPart.objects.filter(
            **where, low__in={low for low, _high in rows_behind}
        ).exclude(minor=0)
        read = rows.values_list(*fields).order_by("at", "pk")
    elif connection.vendor == "postgresql":
        read = _latest_parts_lateral(where, list(rows_behind), limit + 1)
    else:
        partition = [F("low"), F("high")]
        latest = Window(
            RowNumber(), partition_by=partition, order_by=[F("at").desc(), F("pk").desc()]
        )
        rows = (
            PairPart.objects.filter(**where, low__in={low for low, _high in rows_behind})
            .exclude(minor=0)
            .annotate(latest=latest)
            .filter(latest__lte=limit + 1)
        )
        read = rows.values_list(*fields).order_by("low_id", "high_id", "-at", "-pk")
    taken: dict[tuple[int, int], int] = defaultdict(int)
    for low, high, kind, label, minor, at in read:
        pair = rows_behind.get((low, high))
        if pair is None:
            continue  # a pair squared, or not behind one
        taken[(low, high)] += 1
        if limit is not None and taken[(low, high)] > limit:
            more.add(pair)  # the one beyond the latest: there are earlier parts
            continue
        toward = 1 if merged.get(low, low) == pair[0] else -1  # the row's low is the pair's?
        part = found[pair].setdefault((kind, label), [0, at])
        part[0] += toward * minor
        part[1] = min(part[1], at)
    return found, more


def _latest_parts_lateral(where, rows: list[tuple[int, int]], limit: int):
    """The latest ``limit`` nonzero parts of each (low, high) row, newest first, through
    the parts' index: the cost of what is shown, whatever each pair's history."""
    sql = """
        SELECT p.low_id, p.high_id, p.kind, p.label, p.minor, p.at
        FROM unnest(%s::bigint[], %s::bigint[]) AS pr(low, high)
        CROSS JOIN LATERAL (
            SELECT low_id, high_id, kind, label, minor, at, id FROM ledger_pairpart
            WHERE club_id = %s AND unit = %s AND scope = %s
              AND low_id = pr.low AND high_id = pr.high AND minor <> 0
            ORDER BY at DESC, id DESC LIMIT %s
        ) p
        ORDER BY p.low_id, p.high_id, p.at DESC, p.id DESC"""
    params = [
        [low for low, _high in rows],
        [high for _low, high in rows],
        where["club"].pk,
        where["unit"],
        where["scope"],
        limit,
    ]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def settle_up_plan(*, club: Club, unit: str, scope: str | None = None) -> list[Debt]:
    """The fewest payments that clear every balance (``ledger.settle``): each ``Debt`` is a
    payment from ``debtor`` to ``creditor``."""
    minors = balance_minors(club=club, unit=unit, scope=scope)
    transfers = settle.settle_up(dict(sorted(minors.items())))
    players = _players(club, minors)
    return [Debt(players[t.payer], players[t.payee], unit, t.amount) for t in transfers]


def units_of(club: Club) -> list[str]:
    """The units a club's ledger uses, the club's currency and points first: those of its
    derived balances (a row per person and unit, whatever the history) and its payments."""
    balances = BalanceRow.objects.filter(club=club, scope=WHOLE_CLUB)
    used = set(balances.values_list("unit", flat=True).distinct())
    used |= set(Payment.objects.filter(club=club).values_list("unit", flat=True).distinct())
    first = [club.currency, POINTS]
    return first + sorted(used - set(first))


def default_unit(club: Club) -> str:
    """The club's currency if its ledger uses it, else points if used, else the currency."""
    used = set(Transaction.objects.filter(club=club).values_list("unit", flat=True).distinct())
    for unit in (club.currency, POINTS):
        if unit in used:
            return unit
    return sorted(used)[0] if used else club.currency


@dataclass(frozen=True)
class Line(_InMinor):
    transaction: Transaction
    minor: int
    balance_minor: int
    description: str
    url: str | None
    unit: str
    # For a posting or a reversal: the people it was with and what each came to, from the
    # statement's person's side (positive: they owe this person).
    parts: tuple[tuple[Player, int], ...] = ()

    @property
    def balance(self) -> Amount:
        return from_minor(self.balance_minor, self.unit)


@dataclass(frozen=True)
class Statement:
    player: Player
    unit: str
    scope: str | None
    lines: list[Line] = field(default_factory=list)

    @property
    def balance_minor(self) -> int:
        return self.lines[-1].balance_minor if self.lines else 0

    @property
    def balance(self) -> Amount:
        return from_minor(self.balance_minor, self.unit)


def statement(*, player: Player, unit: str, scope: str | None = None) -> Statement:
    """Every entry of ``player`` in ``unit`` (and ``scope``), oldest first, with what it came
    from and the running balance."""
    entries = list(
        Entry.objects.filter(player=player, transaction__unit=unit)
        .filter(**({} if scope is None else {"transaction__scope": scope}))
        .select_related("transaction")
        .order_by("transaction__at", "transaction_id")
    )
    txs = [e.transaction for e in entries]
    others = _counterparts(player, txs)
    reversed_ = {
        t.pk: t
        for t in Transaction.objects.filter(pk__in=[t.reverses_id for t in txs if t.reverses_id])
    }
    sources = describe(
        player.club, [t.source for t in txs] + [t.source for t in reversed_.values()]
    )
    with_whom = _with_whom(player, unit, scope)
    lines, running = [], 0
    for entry in entries:
        tx = entry.transaction
        running += entry.amount_minor
        text, url = _describe(tx, player, others.get(tx.pk), sources, reversed_, entry.amount_minor)
        parts = () if tx.kind in (Kind.PAYMENT, Kind.CARRY) else tuple(with_whom.get(tx.pk, ()))
        lines.append(Line(tx, entry.amount_minor, running, text, url, unit, parts))
    return Statement(player=player, unit=unit, scope=scope, lines=lines)


def _with_whom(player: Player, unit: str, scope: str | None) -> dict[int, list]:
    """Transaction id -> [(the other person, what the leg comes to for ``player``)]."""
    legs = Leg.objects.filter(Q(debtor=player) | Q(creditor=player), transaction__unit=unit)
    if scope is not None:
        legs = legs.filter(transaction__scope=scope)
    found: dict[int, list] = defaultdict(list)
    for leg in legs.select_related("debtor", "creditor").order_by("transaction_id", "id"):
        if leg.creditor_id == player.pk:
            found[leg.transaction_id].append((leg.debtor, leg.amount_minor))
        else:
            found[leg.transaction_id].append((leg.creditor, -leg.amount_minor))
    return found


def _counterparts(player: Player, txs: list[Transaction]) -> dict[int, Player]:
    """For payments and carried balances, the other person of each transaction."""
    two_people = [t.pk for t in txs if t.kind in (Kind.PAYMENT, Kind.CARRY)]
    found = {}
    for entry in (
        Entry.objects.filter(transaction_id__in=two_people)
        .exclude(player=player)
        .select_related("player")
    ):
        found[entry.transaction_id] = entry.player
    return found


def _describe(
    tx: Transaction,
    player: Player,
    other: Player | None,
    sources: dict[str, Source],
    reversed_: dict[int, Transaction],
    minor: int,
) -> tuple[str, str | None]:
    name = other.display_name if other else "?"
    if tx.kind == Kind.PAYMENT:
        text = (_("Payment to %(name)s") if minor > 0 else _("Payment from %(name)s")) % {
            "name": name
        }
        return text, None
    if tx.kind == Kind.CARRY:
        text = (
            _("Balance carried over to %(name)s")
            if tx.source == f"player:{player.pk}"
            else _("Balance carried over from %(name)s")
        ) % {"name": name}
        return text, None
    source = sources.get(tx.source) if tx.source else None
    # A described source speaks the reader's language; the memo, the poster's at the time.
    described = source.text if source and source.text != tx.source else ""
    text = described or tx.memo or tx.key
    if tx.kind == Kind.REVERSAL:
        original = reversed_.get(tx.reverses_id)
        what = (
            described
            or (original.memo if original else "")
            or (original.key if original else tx.key)
        )
        text = _("Reversal of %(what)s") % {"what": what}
    return text, source.url if source else None
