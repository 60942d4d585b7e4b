"""Writing to the ledger and reading it: the services the pages, the API and the upper floors
(``matches/``) call. Each write is a keyword-only function in one database transaction.

Posting (the Singapore feature posts each hand; the ledger knows no games)::

    post_transaction(club=club, unit="EUR", scope="session:12", source="hand:42", key="hand:42:v1",
                     entries={dealer: Decimal("-3.00"), opponent: Decimal("3.00")})

- ``key`` is the idempotency key: posting it again returns the transaction already posted and
  posts nothing, even at the same moment from two processes (a unique constraint decides);
  the same key with a different body (club, unit, scope, source or entries) is refused with
  :class:`KeyReused`. Caller keys are at most :data:`KEY_MAX_LENGTH` characters.
- ``entries`` maps each person (a ``clubs.Player`` of the club) to their amount: positive
  when they are owed (won), negative when they owe; they sum to zero. Points are ints, money
  ``Decimal`` with at most two places (``ledger.amounts``); at least two people.
- ``scope`` groups postings (the API's ``session=<id>`` is the scope ``"session:<id>"``);
  balances and settle-up plans are per scope or, without one, over the whole club.
- A correction is :func:`reverse_transaction` (every entry negated, a new transaction) plus a
  new posting: :func:`correct_transaction` does both at once. Only postings are reversed.

Payments: :func:`record_payment` (the payer themself, a scorer or an admin) creates a
pending payment with no effect on balances; :func:`confirm_payment` (the payee or an admin,
never the payer unless an admin) posts it: the payer's balance goes up by the amount, the
payee's down. :func:`cancel_payment` withdraws a pending one. Payments are club-wide (no
scope): a session's balances show what the session produced, the club's what is still owed.
A merged guest's pending payments are cancelled (``Payment.player_merge``).

Reading: :func:`balances`, :func:`net_debts` (who owes whom, pair by pair),
:func:`settle_up_plan` (the fewest payments that clear every balance, ``ledger.settle``),
:func:`statement` (every entry of a person with its running balance).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError
from django.db import transaction as db_transaction
from django.db.models import Sum
from django.utils import timezone
from django.utils.translation import gettext as _

import circolo.bulk as bulk
from circolo.errors import Conflict, not_found
from clubs.access import access_club
from clubs.models import Club, Player
from ledger import settle
from ledger.amounts import POINTS, Amount, from_minor, to_minor, validate_unit
from ledger.models import Entry, Erasure, Kind, Payment, PaymentStatus, Transaction
from ledger.sources import Source, describe

KEY_MAX_LENGTH = 150  # room for the derived keys ("reversal:<key>") within the column's 200
SCOPE_MAX_LENGTH = 100
SOURCE_MAX_LENGTH = 100
MEMO_MAX_LENGTH = 200


class KeyReused(ValidationError):
    """An idempotency key already posted with a different body."""


class AlreadyDecided(Conflict):
    """A payment already confirmed or cancelled (the API answers 409 with the message)."""


# --- Posting ---------------------------------------------------------------------------------


def _user_or_none(by):
    return by if by is not None and getattr(by, "is_authenticated", False) else None


def _label(value: object, name: str, limit: int) -> str:
    if not isinstance(value, str):
        raise ValidationError({name: _("This must be text.")})
    if len(value) > limit:
        raise ValidationError({name: _("At most %(limit)s characters.") % {"limit": limit}})
    return value


def _key(value: object, limit: int = KEY_MAX_LENGTH) -> str:
    key = _label(value, "key", limit)
    if not key or key != key.strip():
        raise ValidationError({"key": _("A posting needs a key without surrounding spaces.")})
    return key


def _minor_entries(club: Club, unit: str, entries: Mapping[Player, Amount]) -> dict[int, int]:
    if not isinstance(entries, Mapping) or len(entries) < 2:
        raise ValidationError({"entries": _("A posting needs at least two people.")})
    minor: dict[int, int] = {}
    for player, amount in entries.items():
        if not isinstance(player, Player) or player.pk is None or player.club_id != club.pk:
            raise ValidationError(
                {"entries": _("%(player)s is not a player of this club.") % {"player": player}}
            )
        if player.merged_into_id is not None:
            raise ValidationError(
                {
                    "entries": _("%(player)s was merged into another player.")
                    % {"player": player.display_name}
                }
            )
        minor[player.pk] = to_minor(amount, unit, field="entries")
    total = sum(minor.values())
    if total:
        raise ValidationError(
            {
                "entries": _("The amounts must sum to zero; they sum to %(total)s.")
                % {"total": from_minor(total, unit)}
            }
        )
    if not any(minor.values()):
        raise ValidationError({"entries": _("A posting needs an amount other than zero.")})
    return minor


@dataclass(frozen=True)
class _Body:
    """What makes two postings under one key the same posting (not the memo, time or poster)."""

    club_id: int
    unit: str
    scope: str
    source: str
    kind: str
    reverses_id: int | None
    entries: tuple[tuple[int, int], ...]

    @classmethod
    def of(cls, tx: Transaction) -> _Body:
        return cls(
            club_id=tx.club_id,
            unit=tx.unit,
            scope=tx.scope,
            source=tx.source,
            kind=tx.kind,
            reverses_id=tx.reverses_id,
            entries=tuple(sorted(tx.entries.values_list("player_id", "amount_minor"))),
        )


def _same_or_refuse(existing: Transaction, body: _Body) -> Transaction:
    if _Body.of(existing) != body:
        raise KeyReused(
            {
                "key": _("The key %(key)s was already used for a different posting.")
                % {"key": existing.key}
            }
        )
    return existing


@db_transaction.atomic
def _post(
    *,
    club: Club,
    unit: str,
    entries: dict[int, int],
    key: str,
    kind: str,
    memo: str = "",
    scope: str = "",
    source: str = "",
    reverses: Transaction | None = None,
    at: datetime | None = None,
    by=None,
) -> Transaction:
    body = _Body(
        club_id=club.pk,
        unit=unit,
        scope=scope,
        source=source,
        kind=kind,
        reverses_id=reverses.pk if reverses else None,
        entries=tuple(sorted(entries.items())),
    )
    existing = Transaction.objects.filter(key=key).first()
    if existing is not None:
        return _same_or_refuse(existing, body)
    try:
        with db_transaction.atomic():
            posted = Transaction.objects.create(
                club=club,
                unit=unit,
                scope=scope,
                source=source,
                key=key,
                kind=kind,
                memo=memo,
                reverses=reverses,
                n_entries=len(entries),
                at=at or timezone.now(),
                created_by=_user_or_none(by),
            )
            Entry.objects.bulk_create(
                Entry(transaction=posted, player_id=player_id, amount_minor=amount)
                for player_id, amount in sorted(entries.items())
            )
    except IntegrityError:
        # The same key posted at the same moment by another request: on PostgreSQL our
        # INSERT waited for theirs to commit, then hit the unique key. Theirs stands.
        existing = Transaction.objects.filter(key=key).first()
        if existing is None:
            raise
        return _same_or_refuse(existing, body)
    return posted


def post_transaction(
    *,
    club: Club,
    unit: str,
    entries: Mapping[Player, Amount],
    key: str,
    memo: str = "",
    scope: str = "",
    source: str = "",
    at: datetime | None = None,
    by=None,
) -> Transaction:
    """Post one transaction (idempotent on ``key``); see the module's docstring."""
    unit = validate_unit(unit)
    return _post(
        club=club,
        unit=unit,
        entries=_minor_entries(club, unit, entries),
        key=_key(key),
        kind=Kind.POSTING,
        memo=_label(memo, "memo", MEMO_MAX_LENGTH),
        scope=_label(scope, "scope", SCOPE_MAX_LENGTH),
        source=_label(source, "source", SOURCE_MAX_LENGTH),
        at=at,
        by=by,
    )


@dataclass(frozen=True)
class Posting:
    """One transaction for :func:`post_many`: what :func:`post_transaction` takes, with the
    entries keyed by player or by player id."""

    club: Club
    unit: str
    entries: Mapping[Player | int, Amount]
    key: str
    memo: str = ""
    scope: str = ""
    source: str = ""
    at: datetime | None = None


@db_transaction.atomic
def post_many(postings: Sequence[Posting], *, by=None) -> int:
    """Post many transactions at once (a bulk import), in one database transaction: each
    is checked as :func:`post_transaction` checks it and idempotent on its key (a key
    already posted with the same body is skipped, with another body refused), but they are
    written in a few statements (``COPY`` on PostgreSQL) and the database's triggers check
    them all at once. Returns how many were posted (the others had been before)."""
    if not postings:
        return 0
    keys = [_key(p.key) for p in postings]
    if len(set(keys)) != len(keys):
        raise ValidationError({"key": _("A batch of postings names a key twice.")})
    units = {p.unit: validate_unit(p.unit) for p in postings}
    wanted = {getattr(who, "pk", who) for p in postings for who in p.entries}
    clubs_of = {p.club.pk for p in postings}
    active = set(
        Player.objects.filter(
            pk__in=wanted, club__in=clubs_of, merged_into__isnull=True
        ).values_list("pk", "club_id")
    )
    bodies = []
    for posting in postings:
        unit = units[posting.unit]
        if len(posting.entries) < 2:
            raise ValidationError({"entries": _("A posting needs at least two people.")})
        minor: dict[int, int] = {}
        for who, amount in posting.entries.items():
            pid = getattr(who, "pk", who)
            if (pid, posting.club.pk) not in active:
                raise ValidationError(
                    {"entries": _("%(player)s is not a player of this club.") % {"player": who}}
                )
            minor[pid] = to_minor(amount, unit, field="entries")
        if sum(minor.values()) or not any(minor.values()):
            raise ValidationError({"entries": _("The amounts must sum to zero.")})
        bodies.append(
            _Body(
                club_id=posting.club.pk,
                unit=unit,
                scope=_label(posting.scope, "scope", SCOPE_MAX_LENGTH),
                source=_label(posting.source, "source", SOURCE_MAX_LENGTH),
                kind=Kind.POSTING,
                reverses_id=None,
                entries=tuple(sorted(minor.items())),
            )
        )
    seen = {t.key: t for t in Transaction.objects.filter(key__in=keys)}
    fresh = []
    for posting, key, body in zip(postings, keys, bodies, strict=True):
        if key in seen:
            _same_or_refuse(seen[key], body)
        else:
            fresh.append((posting, key, body))
    if not fresh:
        return 0
    now = timezone.now()
    user = _user_or_none(by)
    ids = bulk.insert(
        Transaction,
        TRANSACTION_FIELDS,
        [
            (
                body.club_id,
                body.unit,
                body.scope,
                key,
                Kind.POSTING,
                body.source,
                _label(posting.memo, "memo", MEMO_MAX_LENGTH),
                len(body.entries),
                posting.at or now,
                user.pk if user else None,
                now,
            )
            for posting, key, body in fresh
        ],
        returning=True,
    )
    bulk.insert(
        Entry,
        ("transaction", "player", "amount_minor"),
        [
            (tx_id, player_id, amount)
            for tx_id, (_posting, _key, body) in zip(ids, fresh, strict=True)
            for player_id, amount in body.entries
        ],
    )
    return len(fresh)


TRANSACTION_FIELDS = (
    "club",
    "unit",
    "scope",
    "key",
    "kind",
    "source",
    "memo",
    "n_entries",
    "at",
    "created_by",
    "created_at",
)


def _reversal_key(original: Transaction) -> str:
    return f"reversal:{original.key}"


@db_transaction.atomic
def reverse_transaction(
    *,
    transaction: Transaction,
    key: str | None = None,
    memo: str = "",
    at: datetime | None = None,
    by=None,
) -> Transaction:
    """A new transaction with every entry of ``transaction`` negated (key by default
    ``"reversal:<its key>"``). Reversing again under the same key returns that reversal; a
    transaction already reversed under another key is refused, and so is reversing anything
    but a posting (a payment is undone by a payment the other way)."""
    key = _key(key if key is not None else _reversal_key(transaction), limit=200)
    # One reversal at a time per transaction: the second waits here, then finds the first.
    original = Transaction.objects.select_for_update().get(pk=transaction.pk)
    existing = Transaction.objects.filter(key=key).first()
    entries = {
        p: -amount for p, amount in original.entries.values_list("player_id", "amount_minor")
    }
    if existing is None:
        if original.kind != Kind.POSTING:
            raise ValidationError(
                {
                    "transaction": _(
                        "Only a posting can be reversed (a payment is undone by a payment "
                        "the other way)."
                    )
                }
            )
        already = Transaction.objects.filter(reverses=original).first()
        if already is not None:
            raise ValidationError(
                {
                    "transaction": _("%(key)s was already reversed (by %(by)s).")
                    % {"key": original.key, "by": already.key}
                }
            )
    return _post(
        club=original.club,
        unit=original.unit,
        entries=entries,
        key=key,
        kind=Kind.REVERSAL,
        memo=_label(memo, "memo", MEMO_MAX_LENGTH),
        scope=original.scope,
        source=original.source,
        reverses=original,
        at=at,
        by=by,
    )


@db_transaction.atomic
def correct_transaction(
    *,
    transaction: Transaction,
    entries: Mapping[Player, Amount],
    key: str,
    memo: str = "",
    at: datetime | None = None,
    by=None,
) -> Transaction:
    """Replace a posting: reverse it and post ``entries`` under ``key`` (same club, unit,
    scope and source). Safe to repeat: once ``key`` is posted, it is returned."""
    key = _key(key)
    existing = Transaction.objects.filter(key=key).first()
    original = Transaction.objects.select_for_update().get(pk=transaction.pk)
    minor = _minor_entries(original.club, original.unit, entries)
    if existing is None:
        if Transaction.objects.filter(reverses=original).exists():
            raise ValidationError(
                {
                    "transaction": _("%(key)s was already corrected: correct its latest version.")
                    % {"key": original.key}
                }
            )
        reverse_transaction(transaction=original, at=at, by=by)
    return _post(
        club=original.club,
        unit=original.unit,
        entries=minor,
        key=key,
        kind=Kind.POSTING,
        memo=_label(memo, "memo", MEMO_MAX_LENGTH),
        scope=original.scope,
        source=original.source,
        at=at,
        by=by,
    )


def carry_balances(*, source: Player, target: Player) -> list[Transaction]:
    """A guest merge (``clubs.merge``'s ``Carry`` policy): for each unit and scope where
    ``source`` has a balance, one transaction moves it to ``target`` (key
    ``merge:<source>:<target>:<unit>:<scope>``). The guest's entries stay as they are; their
    statement ends at zero, the member's shows the balance carried over."""
    rows = (
        Entry.objects.filter(player=source)
        .values("transaction__unit", "transaction__scope")
        .annotate(minor=Sum("amount_minor"))
        .order_by("transaction__unit", "transaction__scope")
    )
    carried = []
    for row in rows:
        if not row["minor"]:
            continue
        unit, scope = row["transaction__unit"], row["transaction__scope"]
        carried.append(
            _post(
                club=source.club,
                unit=unit,
                entries={source.pk: -row["minor"], target.pk: row["minor"]},
                key=f"merge:{source.pk}:{target.pk}:{unit}:{scope}",
                kind=Kind.CARRY,
                scope=scope,
                source=f"player:{source.pk}",  # whose balance moved
            )
        )
    return carried


# --- Payments ----------------------------------------------------------------------------------


def may_record_payment(access, payer: Player, user) -> bool:
    """The payer themself, a scorer or an admin."""
    return access.is_scorer or (access.is_member and payer.user_id == user.pk)


def may_confirm_payment(access, payment: Payment, user) -> bool:
    """The payee or an admin (the payer only as an admin)."""
    return access.is_admin or (access.is_member and payment.payee.user_id == user.pk)


def may_cancel_payment(access, payment: Payment, user) -> bool:
    """Either of the two people, whoever recorded it, or an admin."""
    return access.is_admin or (
        access.is_member
        and user.pk in {payment.payer.user_id, payment.payee.user_id, payment.recorded_by_id}
    )


def _player_of(club: Club, player: Player, name: str) -> Player:
    """``player``, one of the club's: another club's or a merged one reads as missing (the
    API answers 404, as for any object named in a body that is not there)."""
    if not isinstance(player, Player) or player.club_id != club.pk:
        raise not_found(name, _("No such player in this club."))
    if player.merged_into_id is not None:
        raise not_found(name, _("%(player)s was merged into another player.") % {"player": player})
    return player


@db_transaction.atomic
def record_payment(
    *, club: Club, payer: Player, payee: Player, amount: Amount, unit: str, by
) -> Payment:
    """``payer`` says they paid ``payee``: a pending payment, no effect until confirmed.

    ``by`` must be the payer themself, a scorer or an admin of the club (``PermissionDenied``
    otherwise; ``Http404`` if they may not even see the club)."""
    access = access_club(by, club)
    payer = _player_of(club, payer, "payer")
    payee = _player_of(club, payee, "payee")
    if payer.pk == payee.pk:
        raise ValidationError({"payee": _("A payment needs two different people.")})
    unit = validate_unit(unit)
    minor = to_minor(amount, unit)
    if minor <= 0:
        raise ValidationError({"amount": _("A payment is more than zero.")})
    if not may_record_payment(access, payer, by):
        raise PermissionDenied(_("You can record only the payments you made yourself."))
    return Payment.objects.create(
        club=club, payer=payer, payee=payee, unit=unit, amount_minor=minor, recorded_by=by
    )


def _lock_pending(payment: Payment) -> Payment:
    locked = (
        Payment.objects.select_for_update()
        .select_related("club", "payer", "payee")
        .get(pk=payment.pk)
    )
    if locked.status == PaymentStatus.CONFIRMED:
        raise AlreadyDecided(_("This payment was already confirmed."))
    if locked.status == PaymentStatus.CANCELLED:
        raise AlreadyDecided(_("This payment was cancelled."))
    return locked


@db_transaction.atomic
def confirm_payment(*, payment: Payment, by) -> Payment:
    """The payee (or an admin) confirms a pending payment: it posts to the ledger (key
    ``payment:<id>``). Confirming twice is refused with :class:`AlreadyDecided`."""
    access = access_club(by, payment.club)
    locked = _lock_pending(payment)  # two confirmations at once: the second waits, then fails
    if not may_confirm_payment(access, locked, by):
        raise PermissionDenied(_("Only the payee or an admin can confirm this payment."))
    now = timezone.now()
    locked.transaction = _post(
        club=locked.club,
        unit=locked.unit,
        entries={locked.payer_id: locked.amount_minor, locked.payee_id: -locked.amount_minor},
        key=locked.key,
        kind=Kind.PAYMENT,
        source=locked.key,
        at=now,
        by=by,
    )
    locked.status = PaymentStatus.CONFIRMED
    locked.decided_by, locked.decided_at = _user_or_none(by), now
    locked.save(update_fields=["transaction", "status", "decided_by", "decided_at"])
    return locked


@db_transaction.atomic
def cancel_payment(*, payment: Payment, by) -> Payment:
    """Withdraw a pending payment (either person, whoever recorded it, or an admin)."""
    access = access_club(by, payment.club)
    locked = _lock_pending(payment)
    if not may_cancel_payment(access, locked, by):
        raise PermissionDenied(_("Only the two people or an admin can cancel this payment."))
    locked.status = PaymentStatus.CANCELLED
    locked.decided_by, locked.decided_at = _user_or_none(by), timezone.now()
    locked.save(update_fields=["status", "decided_by", "decided_at"])
    return locked


# --- Erasing a club's ledger (the deliberate path) --------------------------------------------


@db_transaction.atomic
def erase_club_ledger(*, club: Club, by=None) -> Erasure:
    """Delete a club's whole ledger (transactions, entries, payments), on purpose: the one
    way past the append-only triggers, recorded as an :class:`Erasure`. The club itself can
    then be deleted (it cannot while it has a ledger)."""
    Club.objects.select_for_update().get(pk=club.pk)
    erasure = Erasure.objects.create(club_id=club.pk, club_name=club.name, by=_user_or_none(by))
    payments, _ = Payment.objects.filter(club=club).delete()
    Entry.objects.filter(transaction__club=club).delete()
    reversals, _ = Transaction.objects.filter(club=club, reverses__isnull=False).delete()
    others, _ = Transaction.objects.filter(club=club).delete()
    erasure.transactions, erasure.payments = reversals + others, payments
    erasure.finished_at = timezone.now()
    erasure.save(update_fields=["transactions", "payments", "finished_at"])
    return erasure


# --- Reading -----------------------------------------------------------------------------------


def scope_of_session(session_id: int) -> str:
    """The scope the Singapore feature gives its postings of a session."""
    return f"session:{session_id}"


@dataclass(frozen=True)
class Balance:
    player: Player
    unit: str
    minor: int

    @property
    def amount(self) -> Amount:
        return from_minor(self.minor, self.unit)


@dataclass(frozen=True)
class Debt:
    """``debtor`` owes ``creditor`` ``amount`` (or, in a plan, pays it)."""

    debtor: Player
    creditor: Player
    unit: str
    minor: int

    @property
    def amount(self) -> Amount:
        return from_minor(self.minor, self.unit)


def _entries(club: Club, unit: str, scope: str | None):
    found = Entry.objects.filter(transaction__club=club, transaction__unit=unit)
    return found if scope is None else found.filter(transaction__scope=scope)


def _players(club: Club, ids) -> dict[int, Player]:
    return {p.pk: p for p in Player.objects.filter(club=club, pk__in=set(ids))}


def balance_minors(*, club: Club, unit: str, scope: str | None = None) -> dict[int, int]:
    """Player id -> balance in minor units: one aggregate query."""
    rows = _entries(club, unit, scope).values("player").annotate(minor=Sum("amount_minor"))
    return {row["player"]: row["minor"] for row in rows.order_by("player")}


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


def net_debts(*, club: Club, unit: str, scope: str | None = None) -> list[Debt]:
    """Who owes whom, pair by pair: inside each transaction every loser owes every winner
    in proportion to the winnings (``settle.allocate``); the pairs are then netted."""
    by_transaction: dict[int, dict[int, int]] = defaultdict(dict)
    rows = _entries(club, unit, scope).values_list("transaction_id", "player_id", "amount_minor")
    for tx_id, player_id, minor in rows.order_by("transaction_id", "player_id"):
        by_transaction[tx_id][player_id] = minor
    owed: dict[tuple[int, int], int] = defaultdict(int)  # (low id, high id): high owes low
    for amounts in by_transaction.values():
        for transfer in settle.allocate(amounts):
            low, high = sorted((transfer.payer, transfer.payee))
            owed[(low, high)] += transfer.amount if transfer.payer == high else -transfer.amount
    players = _players(club, [pk for pair in owed for pk in pair])
    debts = []
    for (low, high), minor in owed.items():
        if minor > 0:
            debts.append(Debt(players[high], players[low], unit, minor))
        elif minor < 0:
            debts.append(Debt(players[low], players[high], unit, -minor))
    return sorted(debts, key=lambda d: (-d.minor, d.debtor.display_name.lower()))


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
class Line:
    transaction: Transaction
    minor: int
    balance_minor: int
    description: str
    url: str | None
    unit: str

    @property
    def amount(self) -> Amount:
        return from_minor(self.minor, self.unit)

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
    lines, running = [], 0
    for entry in entries:
        tx = entry.transaction
        running += entry.amount_minor
        text, url = _describe(tx, player, others.get(tx.pk), sources, reversed_, entry.amount_minor)
        lines.append(Line(tx, entry.amount_minor, running, text, url, unit))
    return Statement(player=player, unit=unit, scope=scope, lines=lines)


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
    text = tx.memo or (source.text if source else "") or tx.key
    if tx.memo and source:
        text = f"{source.text}: {tx.memo}"
    if tx.kind == Kind.REVERSAL:
        original = reversed_.get(tx.reverses_id)
        what = (
            (original.memo if original else "")
            or (source.text if source else "")
            or (original.key if original else tx.key)
        )
        text = _("Reversal of %(what)s") % {"what": what}
    return text, source.url if source else None
