"""Writing to the ledger: the services the pages, the API and the upper floors (``matches/``)
call. Each write is a keyword-only function in one database transaction. Reading it is
``ledger.reads``; a posting is checked and prepared first (below, "Preparing a posting").

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

"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, connection
from django.db import transaction as db_transaction
from django.db.models import Sum
from django.utils import timezone
from django.utils.translation import gettext as _

import plumbing.bulk as bulk
from clubs.access import access_club
from clubs.models import Club, Player
from ledger import pairs, triggers
from ledger.amounts import (
    MAX_MINOR,
    Amount,
    Legs,
    from_minor,
    net_legs,
    nets_of,
    to_minor,
    validate_unit,
)
from ledger.legs import give_legs, legs_of_nets
from ledger.models import (
    Balance,
    Entry,
    Erasure,
    Kind,
    Leg,
    PairDebt,
    PairPart,
    Payment,
    PaymentStatus,
    Transaction,
)
from ledger.tasks import payment_inbox
from ledger.webhooks import announce_payment
from plumbing import public_pages
from plumbing.errors import Conflict, not_found

AREA = "ledger"  # the area of the club's pages its postings and payments change

KEY_MAX_LENGTH = 150  # room for the derived keys ("reversal:<key>") within the column's 200
SCOPE_MAX_LENGTH = 100
SOURCE_MAX_LENGTH = 100
MEMO_MAX_LENGTH = 200


class KeyReused(ValidationError):
    """An idempotency key already posted with a different body."""


def user_or_none(by):
    return by if by is not None and getattr(by, "is_authenticated", False) else None


def checked_label(value: object, name: str, limit: int) -> str:
    if not isinstance(value, str):
        raise ValidationError({name: _("This must be text.")})
    if len(value) > limit:
        raise ValidationError({name: _("At most %(limit)s characters.") % {"limit": limit}})
    return value


def checked_key(value: object, limit: int = KEY_MAX_LENGTH) -> str:
    key = checked_label(value, "key", limit)
    if not key or key != key.strip():
        raise ValidationError({"key": _("A posting needs a key without surrounding spaces.")})
    return key


# A leg as the services take it: (debtor, creditor, amount), a person a Player or their id.
LegIn = tuple[Player | int, Player | int, Amount]


def check_person(club: Club, player: object, field: str) -> int:
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


def bounded(legs: Legs, unit: str, field: str) -> Legs:
    """Refuse a netted leg or an entry beyond the ledger's bound (many legs of one pair)."""
    if any(abs(m) > MAX_MINOR for m in [*legs.values(), *nets_of(legs).values()]):
        raise ValidationError({field: _("This amount is too large.")})
    if not nets_of(legs):
        raise ValidationError({field: _("A posting needs an amount other than zero.")})
    return legs


def minor_legs(
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
    return bounded(net_legs(found), unit, field)


def minor_nets(
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
    return bounded(legs_of_nets(minor), unit, field)


def prepare(
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
            return check_person(club, player, field)

    if legs is not None:
        return minor_legs(unit, legs, person)
    return minor_nets(unit, entries, person)


@dataclass(frozen=True)
class Body:
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
    def of(cls, tx: Transaction) -> Body:
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


def same_or_refuse(existing: Transaction, body: Body) -> Transaction:
    found = Body.of(existing)
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


def body_of(club_id, unit, scope, source, kind, reverses_id, legs: Legs) -> Body:
    return Body(
        club_id=club_id,
        unit=unit,
        scope=scope,
        source=source,
        kind=kind,
        reverses_id=reverses_id,
        entries=tuple(nets_of(legs).items()),
        legs=tuple((d, c, m) for (d, c), m in sorted(legs.items())),
    )


class AlreadyDecided(Conflict):
    """A payment already confirmed or cancelled (the API answers 409 with the message)."""


# --- Posting ---------------------------------------------------------------------------------


# Not atomic as a whole: its one write is the atomic block inside (a transaction of its own,
# or a savepoint in the caller's, which the unique key needs); one more around it cost two
# queries a posting and changed nothing.
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
    new: bool = False,
) -> Transaction:
    body = body_of(club.pk, unit, scope, source, kind, reverses.pk if reverses else None, legs)
    row = Transaction(
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
        created_by=user_or_none(by),
    )
    if new:
        # The caller made what the key names in this transaction: nothing to look for, and
        # nobody else can post it first. A clash (a caller's mistake) ends the transaction.
        return _write(row, body)
    existing = Transaction.objects.filter(key=key).first()
    if existing is not None:
        return same_or_refuse(existing, body)
    try:
        with db_transaction.atomic():
            return _write(row, body)
    except IntegrityError:
        # The same key posted at the same moment by another request: on PostgreSQL our
        # INSERT waited for theirs to commit, then hit the unique key. Theirs stands.
        existing = Transaction.objects.filter(key=key).first()
        if existing is None:
            raise
        return same_or_refuse(existing, body)


def _write(row: Transaction, body) -> Transaction:
    """A posting's three writes: its row, then its entries, then its legs."""
    row.save(force_insert=True)
    public_pages.changed(row.club_id, AREA)
    # Entries first: on SQLite the legs are checked against them as the last comes.
    Entry.objects.bulk_create(
        Entry(transaction=row, player_id=player_id, amount_minor=amount)
        for player_id, amount in body.entries
    )
    Leg.objects.bulk_create(
        Leg(transaction=row, debtor_id=debtor, creditor_id=creditor, amount_minor=m)
        for debtor, creditor, m in body.legs
    )
    return row


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
    new: bool = False,
) -> Transaction:
    """Post one transaction (idempotent on ``key``); see the module's docstring. ``new``:
    the caller knows no posting can have ``key`` yet (it names what the caller has just
    made, in its own transaction, under its lock): it is not looked for and no savepoint
    is taken (three queries a posting); the unique key still refuses a second posting,
    by ending the caller's transaction."""
    unit = validate_unit(unit)
    return _post(
        club=club,
        unit=unit,
        legs=prepare(club, unit, entries=entries, legs=legs),
        key=checked_key(key),
        kind=Kind.POSTING,
        memo=checked_label(memo, "memo", MEMO_MAX_LENGTH),
        scope=checked_label(scope, "scope", SCOPE_MAX_LENGTH),
        source=checked_label(source, "source", SOURCE_MAX_LENGTH),
        at=at,
        by=by,
        new=new,
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
    keys = [checked_key(p.key) for p in postings]
    if len(set(keys)) != len(keys):
        raise ValidationError({"key": _("A batch of postings names a key twice.")})
    bodies = _bodies_of(postings)
    seen = {t.key: t for t in Transaction.objects.filter(key__in=keys)}
    fresh = []
    for posting, key, body in zip(postings, keys, bodies, strict=True):
        if key in seen:
            same_or_refuse(seen[key], body)
        else:
            fresh.append((posting, key, body))
    if fresh:
        _insert_many(fresh, by)
    return len(fresh)


def _bodies_of(postings: Sequence[Posting]) -> list[Body]:
    """Each posting checked and prepared, its people looked up in one query."""
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

        legs = prepare(
            posting.club,
            units[posting.unit],
            entries=posting.entries,
            legs=posting.legs,
            person=person,
        )
        bodies.append(
            body_of(
                posting.club.pk,
                units[posting.unit],
                checked_label(posting.scope, "scope", SCOPE_MAX_LENGTH),
                checked_label(posting.source, "source", SOURCE_MAX_LENGTH),
                Kind.POSTING,
                None,
                legs,
            )
        )
    return bodies


def _insert_many(fresh: list[tuple[Posting, str, Body]], by) -> None:
    """The new transactions, their entries and their legs, in three bulk statements."""
    now = timezone.now()
    user = user_or_none(by)
    for club_id in {body.club_id for _posting, _key, body in fresh}:
        public_pages.changed(club_id, AREA)
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
                checked_label(posting.memo, "memo", MEMO_MAX_LENGTH),
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
    key = checked_key(key if key is not None else _reversal_key(transaction), limit=200)
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
    return _post_as(
        original,
        legs=dict(sorted(legs.items())),
        key=key,
        kind=Kind.REVERSAL,
        memo=memo,
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
    key = checked_key(key)
    existing = Transaction.objects.filter(key=key).first()
    original = Transaction.objects.select_for_update().get(pk=transaction.pk)
    prepared = prepare(original.club, original.unit, entries=entries, legs=legs)
    if existing is None:
        if Transaction.objects.filter(reverses=original).exists():
            raise ValidationError(
                {
                    "transaction": _("%(key)s was already corrected: correct its latest version.")
                    % {"key": original.key}
                }
            )
        reverse_transaction(transaction=original, at=at, by=by)
    return _post_as(original, legs=prepared, key=key, kind=Kind.POSTING, memo=memo, at=at, by=by)


def _post_as(original: Transaction, *, memo: str, **posting) -> Transaction:
    """A posting in ``original``'s club, unit, scope and source (its reversal, its
    correction)."""
    return _post(
        club=original.club,
        unit=original.unit,
        scope=original.scope,
        source=original.source,
        memo=checked_label(memo, "memo", MEMO_MAX_LENGTH),
        **posting,
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
    payment = Payment.objects.create(
        club=club, payer=payer, payee=payee, unit=unit, amount_minor=minor, recorded_by=by
    )
    payment_inbox.delay_on_commit(payment_id=payment.pk)
    public_pages.changed(club.pk, AREA)
    return payment


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
        # The payee now owes the payer what was paid, or a chain of debts from one to the
        # other is cleared (``ledger.pairs``): it clears the payer's debt either way.
        legs=pairs.payment_legs(
            club=locked.club,
            unit=locked.unit,
            payer=locked.payer_id,
            payee=locked.payee_id,
            minor=locked.amount_minor,
        ),
        key=locked.key,
        kind=Kind.PAYMENT,
        source=locked.key,
        at=now,
        by=by,
    )
    locked.status = PaymentStatus.CONFIRMED
    locked.decided_by, locked.decided_at = user_or_none(by), now
    locked.save(update_fields=["transaction", "status", "decided_by", "decided_at"])
    payment_inbox.delay_on_commit(payment_id=locked.pk)
    announce_payment(locked)
    return locked


@db_transaction.atomic
def cancel_payment(*, payment: Payment, by) -> Payment:
    """Withdraw a pending payment (either person, whoever recorded it, or an admin)."""
    access = access_club(by, payment.club)
    locked = _lock_pending(payment)
    if not may_cancel_payment(access, locked, by):
        raise PermissionDenied(_("Only the two people or an admin can cancel this payment."))
    locked.status = PaymentStatus.CANCELLED
    locked.decided_by, locked.decided_at = user_or_none(by), timezone.now()
    locked.save(update_fields=["status", "decided_by", "decided_at"])
    payment_inbox.delay_on_commit(payment_id=locked.pk)
    public_pages.changed(locked.club_id, AREA)
    return locked


# --- Scopes ----------------------------------------------------------------------------------


def scope_of_session(session_id: int) -> str:
    """The scope the Singapore feature gives its postings of a session."""
    return f"session:{session_id}"


# --- Erasing a club's ledger -----------------------------------------------------------------
#
# Erasing a club's ledger: the deliberate path, and the one way past the append-only
# triggers (``ledger.triggers``), recorded as an :class:`~ledger.models.Erasure`.


@db_transaction.atomic
def rebuild_balances(*, club: Club) -> int:
    """The club's derived balances (``Balance``) and who owes whom (``PairDebt``,
    ``PairPart``) made again from its entries and legs, from scratch: what
    ``recompute_stats`` runs to prove the triggers' running sums, and the repair when
    ``ledger_check`` finds them apart. Returns the rows written."""
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # A posting meanwhile waits for this to commit, then adds itself to the new rows.
            cursor.execute(
                "LOCK TABLE ledger_balance, ledger_pairdebt, ledger_pairpart IN EXCLUSIVE MODE"
            )
        Balance.objects.filter(club=club).delete()
        PairDebt.objects.filter(club=club).delete()
        PairPart.objects.filter(club=club).delete()
        cursor.execute(triggers.balances_of_club_sql(), [club.pk, club.pk])
        for statement in triggers.pairs_of_club_sql(connection.vendor):
            cursor.execute(statement, [club.pk, club.pk])
    public_pages.changed(club.pk, AREA)
    return sum(model.objects.filter(club=club).count() for model in (Balance, PairDebt, PairPart))


@db_transaction.atomic
def erase_club_ledger(*, club: Club, by=None) -> Erasure:
    """Delete a club's whole ledger (transactions, entries, payments), on purpose: the one
    way past the append-only triggers, recorded as an :class:`Erasure`. The club itself can
    then be deleted (it cannot while it has a ledger)."""
    Club.objects.select_for_update().get(pk=club.pk)
    erasure = Erasure.objects.create(club_id=club.pk, club_name=club.name, by=user_or_none(by))
    public_pages.changed(club.pk, AREA)
    payments, _ = Payment.objects.filter(club=club).delete()
    Leg.objects.filter(transaction__club=club).delete()
    Entry.objects.filter(transaction__club=club).delete()
    for derived in (Balance, PairDebt, PairPart):  # derived from the entries and legs
        derived.objects.filter(club=club).delete()
    reversals, _ = Transaction.objects.filter(club=club, reverses__isnull=False).delete()
    others, _ = Transaction.objects.filter(club=club).delete()
    erasure.transactions, erasure.payments = reversals + others, payments
    erasure.finished_at = timezone.now()
    erasure.save(update_fields=["transactions", "payments", "finished_at"])
    return erasure
