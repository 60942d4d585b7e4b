"""Writing to the ledger and reading it: the services the pages, the API and the upper floors
(``matches/``) call. Each write is a keyword-only function in one database transaction.

Posting (the Singapore feature posts each hand; the ledger knows no games)::

    post_transaction(club=club, unit="EUR", scope="session:12", source="hand:42", key="hand:42:v1",
                     legs=[(opponent, dealer, Decimal("3.00")), (bystander, dealer, 2)])

- ``key`` is the idempotency key: posting it again returns the transaction already posted and
  posts nothing, even at the same moment from two processes (a unique constraint decides);
  the same key with a different body (club, unit, scope, source, legs) is refused with
  :class:`KeyReused`. Caller keys are at most :data:`KEY_MAX_LENGTH` characters.
- ``legs`` are the debts the posting makes, each ``(debtor, creditor, amount)``: the debtor
  owes the creditor the amount (a ``clubs.Player`` of the club, or their id in
  :func:`post_many`; an amount of zero or more). Legs between the same two people are
  netted into one; the entries (each person's net: positive when owed, negative when they
  owe) follow from them. Points are ints, money ``Decimal`` with at most two places
  (``ledger.amounts``); something must change hands.
- ``entries`` instead of ``legs``: each person's net, summing to zero, for a caller who
  knows no counterparties. Between two people that is the one debt; among more, each
  loser owes each winner in proportion to the winnings (``settle.allocate``).
- ``scope`` groups postings (the API's ``session=<id>`` is the scope ``"session:<id>"``);
  balances and settle-up plans are per scope or, without one, over the whole club.
- A correction is :func:`reverse_transaction` (every leg turned round, so every entry
  negated: a new transaction) plus a new posting: :func:`correct_transaction` does both at
  once. Only postings are reversed.

Payments: :func:`record_payment` (the payer themself, a scorer or an admin) creates a
pending payment with no effect on balances; :func:`confirm_payment` (the payee or an admin,
never the payer unless an admin) posts it: the payer's balance goes up by the amount, the
payee's down (its leg: the payee owes the payer what was paid). :func:`cancel_payment`
withdraws a pending one. Payments are club-wide (no scope): a session's balances show what
the session produced, the club's what is still owed. A merged guest's pending payments are
cancelled (``Payment.player_merge``).

Reading: :func:`balances`, :func:`net_debts` (who owes whom: the legs netted pair by pair,
less the payments, with the postings behind each pair), :func:`settle_up_plan` (the fewest
payments that clear every balance, ``ledger.settle``), :func:`statement` (every entry of a
person with its running balance and the people it was with).
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError
from django.db import transaction as db_transaction
from django.db.models import Min, Q, Sum, Value
from django.db.models.functions import Coalesce, NullIf
from django.utils import timezone
from django.utils.translation import gettext as _

import circolo.bulk as bulk
from circolo.errors import Conflict, not_found
from clubs.access import access_club
from clubs.models import Club, Player
from ledger import settle
from ledger.amounts import MAX_MINOR, POINTS, Amount, from_minor, to_minor, validate_unit
from ledger.legs import Legs, give_legs, legs_of_nets, net_legs, nets_of
from ledger.models import Entry, Erasure, Kind, Leg, Payment, PaymentStatus, Transaction
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


# A leg as the services take it: (debtor, creditor, amount), a person a Player or their id.
LegIn = tuple[Player | int, Player | int, Amount]


def _check_person(club: Club, player: object, field: str) -> int:
    if not isinstance(player, Player) or player.pk is None or player.club_id != club.pk:
        raise ValidationError(
            {field: _("%(player)s is not a player of this club.") % {"player": player}}
        )
    if player.merged_into_id is not None:
        raise ValidationError(
            {
                field: _("%(player)s was merged into another player.")
                % {"player": player.display_name}
            }
        )
    return player.pk


def _bounded(legs: Legs, unit: str, field: str) -> Legs:
    """Refuse a netted leg or an entry beyond the ledger's bound (many legs of one pair)."""
    if any(abs(m) > MAX_MINOR for m in [*legs.values(), *nets_of(legs).values()]):
        raise ValidationError({field: _("This amount is too large.")})
    if not nets_of(legs):
        raise ValidationError({field: _("A posting needs an amount other than zero.")})
    return legs


def _minor_legs(
    unit: str, legs: Iterable[LegIn], person: Callable[[object], int], field: str = "legs"
) -> Legs:
    found = []
    for leg in legs:
        if not isinstance(leg, tuple | list) or len(leg) != 3:
            raise ValidationError({field: _("A leg is a debtor, a creditor and an amount.")})
        debtor, creditor, amount = person(leg[0]), person(leg[1]), leg[2]
        if debtor == creditor:
            raise ValidationError({field: _("A leg is between two different people.")})
        minor = to_minor(amount, unit, field=field)
        if minor < 0:
            raise ValidationError({field: _("A leg's amount is not below zero.")})
        found.append((debtor, creditor, minor))
    return _bounded(net_legs(found), unit, field)


def _minor_nets(
    unit: str, entries: Mapping, person: Callable[[object], int], field: str = "entries"
) -> Legs:
    if not isinstance(entries, Mapping) or len(entries) < 2:
        raise ValidationError({field: _("A posting needs at least two people.")})
    minor: dict[int, int] = {}
    for player, amount in entries.items():
        minor[person(player)] = to_minor(amount, unit, field=field)
    total = sum(minor.values())
    if total:
        raise ValidationError(
            {
                field: _("The amounts must sum to zero; they sum to %(total)s.")
                % {"total": from_minor(total, unit)}
            }
        )
    if not any(minor.values()):
        raise ValidationError({field: _("A posting needs an amount other than zero.")})
    return _bounded(legs_of_nets(minor), unit, field)


def _prepare(
    club: Club,
    unit: str,
    *,
    entries: Mapping | None,
    legs: Iterable[LegIn] | None,
    person: Callable[[object], int] | None = None,
) -> Legs:
    """The legs of a posting given as ``legs`` or as ``entries`` (exactly one of them)."""
    if (entries is None) == (legs is None):
        raise ValidationError({"legs": _("A posting gives either its legs or its entries.")})
    if person is None:

        def person(player, field="legs" if legs is not None else "entries"):
            return _check_person(club, player, field)

    if legs is not None:
        return _minor_legs(unit, legs, person)
    return _minor_nets(unit, entries, person)


@dataclass(frozen=True)
class _Body:
    """What makes two postings under one key the same posting (not the memo, time or poster).
    ``legs`` is None for a transaction posted before legs (compared by its entries alone)."""

    club_id: int
    unit: str
    scope: str
    source: str
    kind: str
    reverses_id: int | None
    entries: tuple[tuple[int, int], ...]
    legs: tuple[tuple[int, int, int], ...] | None

    @classmethod
    def of(cls, tx: Transaction) -> _Body:
        return cls(
            club_id=tx.club_id,
            unit=tx.unit,
            scope=tx.scope,
            source=tx.source,
            kind=tx.kind,
            reverses_id=tx.reverses_id,
            entries=tuple(
                sorted(tx.entries.exclude(amount_minor=0).values_list("player_id", "amount_minor"))
            ),
            legs=None
            if tx.n_legs is None
            else tuple(sorted(tx.legs.values_list("debtor_id", "creditor_id", "amount_minor"))),
        )


def _same_or_refuse(existing: Transaction, body: _Body) -> Transaction:
    found = _Body.of(existing)
    if found.legs is None:
        body = replace(body, legs=None)
    if found != body:
        raise KeyReused(
            {
                "key": _("The key %(key)s was already used for a different posting.")
                % {"key": existing.key}
            }
        )
    return existing


def _body(club_id, unit, scope, source, kind, reverses_id, legs: Legs) -> _Body:
    return _Body(
        club_id=club_id,
        unit=unit,
        scope=scope,
        source=source,
        kind=kind,
        reverses_id=reverses_id,
        entries=tuple(nets_of(legs).items()),
        legs=tuple((d, c, m) for (d, c), m in sorted(legs.items())),
    )


@db_transaction.atomic
def _post(
    *,
    club: Club,
    unit: str,
    legs: Legs,
    key: str,
    kind: str,
    memo: str = "",
    scope: str = "",
    source: str = "",
    reverses: Transaction | None = None,
    at: datetime | None = None,
    by=None,
) -> Transaction:
    body = _body(club.pk, unit, scope, source, kind, reverses.pk if reverses else None, legs)
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
                n_entries=len(body.entries),
                n_legs=len(body.legs),
                at=at or timezone.now(),
                created_by=_user_or_none(by),
            )
            # Entries first: on SQLite the legs are checked against them as the last comes.
            Entry.objects.bulk_create(
                Entry(transaction=posted, player_id=player_id, amount_minor=amount)
                for player_id, amount in body.entries
            )
            Leg.objects.bulk_create(
                Leg(transaction=posted, debtor_id=debtor, creditor_id=creditor, amount_minor=m)
                for debtor, creditor, m in body.legs
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
    key: str,
    legs: Iterable[LegIn] | None = None,
    entries: Mapping[Player, Amount] | None = None,
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
        legs=_prepare(club, unit, entries=entries, legs=legs),
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
    """One transaction for :func:`post_many`: what :func:`post_transaction` takes (its
    ``legs`` or its ``entries``), people given as players or by id."""

    club: Club
    unit: str
    key: str
    legs: Sequence[LegIn] | None = None
    entries: Mapping[Player | int, Amount] | None = None
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

    def people_of(posting: Posting):
        if posting.legs is not None:
            return [who for leg in posting.legs for who in leg[:2]]
        return list(posting.entries or {})

    wanted = {getattr(who, "pk", who) for p in postings for who in people_of(p)}
    active = set(
        Player.objects.filter(
            pk__in=[w for w in wanted if isinstance(w, int)],
            club__in={p.club.pk for p in postings},
            merged_into__isnull=True,
        ).values_list("pk", "club_id")
    )
    bodies = []
    for posting in postings:

        def person(who, club_id=posting.club.pk):
            pid = getattr(who, "pk", who)
            if (pid, club_id) not in active:
                raise ValidationError(
                    {"legs": _("%(player)s is not a player of this club.") % {"player": who}}
                )
            return pid

        legs = _prepare(
            posting.club,
            units[posting.unit],
            entries=posting.entries,
            legs=posting.legs,
            person=person,
        )
        bodies.append(
            _body(
                posting.club.pk,
                units[posting.unit],
                _label(posting.scope, "scope", SCOPE_MAX_LENGTH),
                _label(posting.source, "source", SOURCE_MAX_LENGTH),
                Kind.POSTING,
                None,
                legs,
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
                len(body.legs),
                posting.at or now,
                user.pk if user else None,
                now,
            )
            for posting, key, body in fresh
        ],
        returning=True,
    )
    written = list(zip(ids, fresh, strict=True))
    bulk.insert(
        Entry,
        ("transaction", "player", "amount_minor"),
        [(tx_id, pid, minor) for tx_id, (_p, _k, body) in written for pid, minor in body.entries],
    )
    bulk.insert(
        Leg,
        ("transaction", "debtor", "creditor", "amount_minor"),
        [(tx_id, *leg) for tx_id, (_p, _k, body) in written for leg in body.legs],
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
    "n_legs",
    "at",
    "created_by",
    "created_at",
)


def _reversal_key(original: Transaction) -> str:
    return f"reversal:{original.key}"


def _legs_of(transaction: Transaction) -> Legs:
    """A transaction's legs (given first, if it was posted before legs: ``ledger.legs``)."""
    if transaction.n_legs is None and not transaction.legs.exists():
        give_legs([transaction])
    return {
        (debtor, creditor): minor
        for debtor, creditor, minor in transaction.legs.values_list(
            "debtor_id", "creditor_id", "amount_minor"
        )
    }


@db_transaction.atomic
def reverse_transaction(
    *,
    transaction: Transaction,
    key: str | None = None,
    memo: str = "",
    at: datetime | None = None,
    by=None,
) -> Transaction:
    """A new transaction with every leg of ``transaction`` turned round, so every entry
    negated (key by default ``"reversal:<its key>"``). Reversing again under the same key
    returns that reversal; a transaction already reversed under another key is refused, and
    so is reversing anything but a posting (a payment is undone by a payment the other
    way)."""
    key = _key(key if key is not None else _reversal_key(transaction), limit=200)
    # One reversal at a time per transaction: the second waits here, then finds the first.
    original = Transaction.objects.select_for_update().get(pk=transaction.pk)
    existing = Transaction.objects.filter(key=key).first()
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
    legs = {(creditor, debtor): minor for (debtor, creditor), minor in _legs_of(original).items()}
    return _post(
        club=original.club,
        unit=original.unit,
        legs=dict(sorted(legs.items())),
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
    key: str,
    legs: Iterable[LegIn] | None = None,
    entries: Mapping[Player, Amount] | None = None,
    memo: str = "",
    at: datetime | None = None,
    by=None,
) -> Transaction:
    """Replace a posting: reverse it and post ``legs`` (or ``entries``) under ``key`` (same
    club, unit, scope and source). Safe to repeat: once ``key`` is posted, it is returned."""
    key = _key(key)
    existing = Transaction.objects.filter(key=key).first()
    original = Transaction.objects.select_for_update().get(pk=transaction.pk)
    prepared = _prepare(original.club, original.unit, entries=entries, legs=legs)
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
        legs=prepared,
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
    ``merge:<source>:<target>:<unit>:<scope>``; its leg: the member takes over what the
    guest owed or was owed). The guest's entries and legs stay as they are; their statement
    ends at zero, the member's shows the balance carried over, and who owes whom reads the
    guest's legs as the member's (:func:`net_debts`). Safe to call again: nothing is left."""
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
                legs=legs_of_nets({source.pk: -row["minor"], target.pk: row["minor"]}),
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
        # The payee now owes the payer what was paid: it clears the payer's debt.
        legs={(locked.payee_id, locked.payer_id): locked.amount_minor},
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
    Leg.objects.filter(transaction__club=club).delete()
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
class DebtPart:
    """What one source of postings (a hand, with its corrections and reversal; a carried
    balance; a posting without a source, by its key) adds to a pair's debt."""

    label: str  # the transactions' ``source`` (their key when they have none)
    kind: str  # ``Kind.POSTING`` or ``Kind.CARRY``
    minor: int  # in the debt's direction: positive adds to what the debtor owes
    unit: str
    text: str
    url: str | None
    at: datetime

    @property
    def amount(self) -> Amount:
        return from_minor(self.minor, self.unit)


@dataclass(frozen=True)
class Debt:
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
    def amount(self) -> Amount:
        return from_minor(self.minor, self.unit)

    @property
    def paid(self) -> Amount:
        return from_minor(self.paid_minor, self.unit)


def _entries(club: Club, unit: str, scope: str | None):
    found = Entry.objects.filter(transaction__club=club, transaction__unit=unit)
    return found if scope is None else found.filter(transaction__scope=scope)


def _legs(club: Club, unit: str, scope: str | None):
    found = Leg.objects.filter(transaction__club=club, transaction__unit=unit)
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
class Line:
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
