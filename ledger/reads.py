"""Reading the ledger: balances, who owes whom (the legs netted pair by pair, less the payments,
with the postings behind each pair), the settle-up plan (the fewest payments that clear every
balance, ``ledger.settle``) and a person's statement (every entry with its running balance
and the people it was with). The writes are ``ledger.services``'."""

from __future__ import annotations

from collections import defaultdict, deque
from dataclasses import dataclass, field
from datetime import datetime

from django.db.models import Min, Q, Sum, Value
from django.db.models.functions import Coalesce, NullIf
from django.utils.translation import gettext as _

from clubs.models import Club, Player
from ledger import settle
from ledger.amounts import POINTS, Amount, from_minor
from ledger.models import WHOLE_CLUB, Entry, Kind, Leg, Payment, Transaction
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

    @property
    def paid(self) -> Amount:
        return from_minor(self.paid_minor, self.unit)


def _legs(club: Club, unit: str, scope: str | None):
    found = Leg.objects.filter(transaction__club=club, transaction__unit=unit)
    return found if scope is None else found.filter(transaction__scope=scope)


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


class _Pairs:
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

    def settle(self, payer: int, payee: int, minor: int) -> None:
        """A payment: first what the payer owes the payee; the rest clears chains of debts
        from the payer to the payee (as a settle-up plan's payments do: the payer pays the
        payee what the payer owes a third person who owes the payee); what is still left
        makes the payee owe the payer."""
        direct = max(0, min(minor, self.owes(payer, payee)))
        self.pay(payer, payee, direct)
        rest = minor - direct
        while rest:
            path = self._path(payer, payee)
            if not path:
                break
            flow = min([rest, *(self.owes(a, b) for a, b in path)])
            for a, b in path:
                self.pay(a, b, flow)
            rest -= flow
        if rest:
            self.pay(payer, payee, rest)


def _part_text(label: str, kind: str, sources: dict[str, Source], players: dict[int, Player]):
    if kind == Kind.CARRY:
        number = label.partition(":")[2]
        guest = players.get(int(number)) if number.isdigit() else None
        name = guest.display_name if guest else "?"
        return _("Balance carried over from %(name)s") % {"name": name}, None
    source = sources.get(label)
    return (source.text, source.url) if source else (label, None)


def net_debts(*, club: Club, unit: str, scope: str | None = None) -> list[Debt]:
    """Who owes whom: the legs of every posting (``scope``'s, or the whole club's), netted
    pair by pair, less the payments (club-wide, so only without a scope). A payment clears
    what the payer owes the payee first, then chains of debts from one to the other
    (:class:`_Pairs`). A merged guest's legs count as the member's. Each debt comes with the
    postings behind it, one part per source (a hand's versions and reversal together)."""
    merged = dict(
        Player.objects.filter(club=club, merged_into__isnull=False).values_list(
            "pk", "merged_into_id"
        )
    )
    pairs = _Pairs()
    parts: dict[tuple[int, int], dict[tuple[str, str], list]] = defaultdict(dict)
    label = Coalesce(
        NullIf("transaction__source", Value("")),
        "transaction__reverses__key",
        "transaction__key",
    )
    rows = (
        _legs(club, unit, scope)
        .exclude(transaction__kind=Kind.PAYMENT)
        .values("debtor", "creditor", "transaction__kind")
        .annotate(label=label, minor=Sum("amount_minor"), at=Min("transaction__at"))
        .order_by()
    )
    for row in rows:
        debtor, creditor = (
            merged.get(row["debtor"], row["debtor"]),
            merged.get(row["creditor"], row["creditor"]),
        )
        if debtor == creditor:
            continue  # a guest merged into the one they played with
        pairs.add(debtor, creditor, row["minor"])
        low, high = sorted((debtor, creditor))
        kind = Kind.CARRY if row["transaction__kind"] == Kind.CARRY else Kind.POSTING
        part = parts[(low, high)].setdefault((kind, row["label"]), [0, row["at"]])
        part[0] += row["minor"] if debtor == low else -row["minor"]  # low owes high
        part[1] = min(part[1], row["at"])
    if scope is None:
        payments = (
            _legs(club, unit, None)
            .filter(transaction__kind=Kind.PAYMENT)
            .values_list("creditor", "debtor", "amount_minor")  # the payer, the payee
            .order_by("transaction__at", "transaction_id")
        )
        for payer, payee, minor in payments:
            payer, payee = merged.get(payer, payer), merged.get(payee, payee)
            if payer != payee:
                pairs.settle(payer, payee, minor)
    open_pairs = {pair: minor for pair, minor in pairs.owed.items() if minor}
    labels = {label for pair in open_pairs for (_kind, label) in parts.get(pair, {})}
    sources = describe(club, labels)
    carried = [
        int(number)
        for pair in open_pairs
        for kind, label in parts.get(pair, {})
        if kind == Kind.CARRY and (number := label.partition(":")[2]).isdigit()
    ]
    players = _players(club, [pk for pair in open_pairs for pk in pair] + carried)
    debts = []
    for (low, high), minor in open_pairs.items():
        sign = 1 if minor > 0 else -1  # 1: low owes high
        debtor, creditor = (low, high) if sign > 0 else (high, low)
        found = []
        for (kind, label), (part_minor, at) in parts.get((low, high), {}).items():
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
                sign * pairs.paid.get((low, high), 0),
            )
        )
    return sorted(debts, key=lambda d: (-d.minor, d.debtor.display_name.lower(), d.debtor.pk))


def settle_up_plan(*, club: Club, unit: str, scope: str | None = None) -> list[Debt]:
    """The fewest payments that clear every balance (``ledger.settle``): each ``Debt`` is a
    payment from ``debtor`` to ``creditor``."""
    minors = balance_minors(club=club, unit=unit, scope=scope)
    transfers = settle.settle_up(dict(sorted(minors.items())))
    players = _players(club, minors)
    return [Debt(players[t.payer], players[t.payee], unit, t.amount) for t in transfers]


def units_of(club: Club) -> list[str]:
    """The units a club's ledger uses, the club's currency and points first."""
    used = set(Transaction.objects.filter(club=club).values_list("unit", flat=True).distinct())
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
