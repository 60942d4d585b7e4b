"""The ledger of debts between people: double entry, append-only, in points or money.

- A :class:`Transaction` is one posting (a hand, a payment, a reversal, a carried balance).
  Its :class:`Leg` rows are the debts it makes, each between two people: ``debtor`` owes
  ``creditor`` ``amount`` (a hand's covers and side bets, a payment, a carried balance);
  its :class:`Entry` rows, one per person whose balance it changes, are what the legs net
  to for each person, and sum to zero. Entries make balances and statements one indexed
  aggregate; legs say who owes whom. It has a unique idempotency ``key``;
  posting the same key again posts nothing. ``unit`` is ``"points"`` or an ISO 4217 code,
  and balances in different units never mix. ``scope`` is an opaque grouping label chosen by
  the caller (``"session:12"``), ``source`` an opaque label of what the posting came from
  (``"hand:42"``), resolved for statements by the describers of ``ledger.sources``.
- Amounts are whole numbers of minor units (cents, points) in ``amount_minor``: exact sums
  on every database (``ledger.amounts``).
- Rows are never updated or deleted: a correction is a reversal plus a new posting. The
  database refuses it too (``ledger.triggers``): on PostgreSQL triggers installed by
  django-pgtrigger's migrations, on SQLite triggers installed by a migration of their own.
  The one way past them is :func:`ledger.services.erase_club_ledger`, which records an
  :class:`Erasure`. Erasures and :class:`CheckRun` rows are kept the same way.
- Transactions posted before legs existed have ``n_legs`` NULL until ``manage.py
  ledger_legs`` gives them their legs (once: ``ledger.legs``); every later one announces
  its legs.
- Deleting: a club with a ledger cannot be deleted (``PROTECT``) until its ledger is erased
  on purpose; a player with entries cannot be deleted alone (``RESTRICT``: merge them).
- A :class:`Payment` is recorded by the payer (pending, no effect on the ledger) and posts
  its transaction when the payee or an admin confirms it.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.db.models.functions import Greatest, Least
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from clubs.merge_policy import Carry, Revoke
from clubs.models import Club, ClubOwnedQuerySet, Player, Role, club_ids_showing_money
from ledger import triggers
from ledger.amounts import MAX_MINOR, POINTS, Amount, from_minor

UNIT_IS_VALID = Q(unit=POINTS) | Q(unit__regex=r"^[A-Z]{3}$")


class Kind(models.TextChoices):
    POSTING = "posting", _("Posting")
    REVERSAL = "reversal", _("Reversal")
    PAYMENT = "payment", _("Payment")
    CARRY = "carry", _("Balance carried over")


class TransactionQuerySet(ClubOwnedQuerySet):
    seen_from = Role.MEMBER  # a club's ledger is for its members

    def of(self, *, club: Club, unit: str, scope: str | None = None):
        found = self.filter(club=club, unit=unit)
        return found if scope is None else found.filter(scope=scope)


class Transaction(models.Model):
    club = models.ForeignKey(
        Club,
        on_delete=models.PROTECT,  # a club's ledger goes only through erase_club_ledger
        related_name="ledger_transactions",
        verbose_name=_("club"),
    )
    unit = models.CharField(_("unit"), max_length=6)
    scope = models.CharField(_("scope"), max_length=100, blank=True, default="")
    key = models.CharField(_("idempotency key"), max_length=200, unique=True)
    kind = models.CharField(_("kind"), max_length=10, choices=Kind.choices, default=Kind.POSTING)
    source = models.CharField(_("source"), max_length=100, blank=True, default="")
    memo = models.CharField(_("memo"), max_length=200, blank=True, default="")
    reverses = models.OneToOneField(
        "self",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="reversed_by",
        verbose_name=_("reverses"),
    )
    n_entries = models.PositiveIntegerField(_("number of entries"))
    # NULL only for a transaction posted before legs existed (``ledger.legs`` fills them in).
    n_legs = models.PositiveIntegerField(_("number of legs"), null=True, blank=True)
    at = models.DateTimeField(_("date"), default=timezone.now)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        # The one change the triggers allow: a deleted user's postings stay, anonymous.
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("posted by"),
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    objects = TransactionQuerySet.as_manager()

    class Meta:
        ordering = ["at", "id"]
        verbose_name = _("ledger transaction")
        verbose_name_plural = _("ledger transactions")
        indexes = [models.Index(fields=["club", "unit", "scope"], name="ledger_tx_club_unit_scope")]
        constraints = [
            models.CheckConstraint(condition=UNIT_IS_VALID, name="ledger_tx_unit_valid"),
            models.CheckConstraint(condition=Q(n_entries__gte=2), name="ledger_tx_two_entries"),
            models.CheckConstraint(
                condition=Q(n_legs__isnull=True) | Q(n_legs__gte=1), name="ledger_tx_one_leg"
            ),
            models.CheckConstraint(
                condition=Q(kind=Kind.REVERSAL, reverses__isnull=False)
                | (~Q(kind=Kind.REVERSAL) & Q(reverses__isnull=True)),
                name="ledger_tx_reversal_reverses",
            ),
        ]
        triggers = triggers.postgres_transaction_triggers()

    def __str__(self) -> str:
        return self.key


class Entry(models.Model):
    transaction = models.ForeignKey(
        Transaction,
        on_delete=models.CASCADE,
        related_name="entries",
        verbose_name=_("transaction"),
    )
    player = models.ForeignKey(
        Player,
        on_delete=models.RESTRICT,  # a player with entries stays (merge them instead)
        related_name="ledger_entries",
        verbose_name=_("player"),
    )
    amount_minor = models.BigIntegerField(_("amount (cents or points)"))

    # Entries are never rewritten: a merge posts a transfer of the guest's balances.
    player_merge = {"player": Carry(carry_over="ledger.services.carry_balances")}

    class Meta:
        ordering = ["transaction", "id"]
        verbose_name = _("ledger entry")
        verbose_name_plural = _("ledger entries")
        constraints = [
            models.UniqueConstraint(
                fields=["transaction", "player"], name="ledger_entry_once_per_person"
            ),
            models.CheckConstraint(
                condition=Q(amount_minor__gte=-MAX_MINOR, amount_minor__lte=MAX_MINOR),
                name="ledger_entry_amount_bounded",
            ),
        ]
        triggers = triggers.postgres_entry_triggers()

    def __str__(self) -> str:
        return f"{self.player_id}: {self.amount_minor}"

    @property
    def amount(self) -> Amount:
        return from_minor(self.amount_minor, self.transaction.unit)


class Leg(models.Model):
    """One debt a transaction makes between two people: ``debtor`` owes ``creditor``
    ``amount`` (a payment's leg makes the payee owe the payer what was paid, which clears
    the payer's debt). At most one leg per pair of people in a transaction, in one
    direction; the legs of a transaction net, person by person, to its entries."""

    transaction = models.ForeignKey(
        Transaction, on_delete=models.CASCADE, related_name="legs", verbose_name=_("transaction")
    )
    debtor = models.ForeignKey(
        Player,
        on_delete=models.RESTRICT,  # as entries: a player with legs stays (merge them instead)
        related_name="ledger_debts",
        verbose_name=_("debtor"),
    )
    creditor = models.ForeignKey(
        Player,
        on_delete=models.RESTRICT,
        related_name="ledger_credits",
        verbose_name=_("creditor"),
    )
    amount_minor = models.BigIntegerField(_("amount (cents or points)"))

    # Legs are never rewritten: who owes whom reads a merged guest as the member they were
    # merged into (``services.net_debts``); the balances are carried with the entries.
    player_merge = {
        "debtor": Carry(carry_over="ledger.services.carry_balances"),
        "creditor": Carry(carry_over="ledger.services.carry_balances"),
    }

    class Meta:
        ordering = ["transaction", "id"]
        verbose_name = _("ledger leg")
        verbose_name_plural = _("ledger legs")
        constraints = [
            models.CheckConstraint(
                condition=Q(amount_minor__gt=0, amount_minor__lte=MAX_MINOR),
                name="ledger_leg_amount_positive_bounded",
            ),
            models.CheckConstraint(
                condition=~Q(debtor=models.F("creditor")), name="ledger_leg_two_people"
            ),
            models.UniqueConstraint(
                models.F("transaction"),
                Least("debtor", "creditor"),
                Greatest("debtor", "creditor"),
                name="ledger_leg_once_per_pair",
            ),
        ]
        triggers = triggers.postgres_leg_triggers()

    def __str__(self) -> str:
        return f"{self.debtor_id} → {self.creditor_id}: {self.amount_minor}"

    @property
    def amount(self) -> Amount:
        return from_minor(self.amount_minor, self.transaction.unit)


# The scope of a balance row that holds the whole club's balance (every scope together).
WHOLE_CLUB = ""


class Balance(models.Model):
    """A person's balance in one unit, derived from the entries: one row for the whole club
    (``scope`` ``WHOLE_CLUB``) and one per scope the person has entries in (a Singapore
    table's ``session:<id>``). Written by the database itself, in each posting's own
    transaction (``ledger.triggers``: an entry inserted adds its amount to its two rows, on
    PostgreSQL once per statement, on SQLite once per entry), so that no writer can leave
    it behind; reading a balance reads one row, not the entries' history. Entries are
    append-only, so the rows only ever add; ``ledger_check`` compares them with the
    entries, and an erasure takes them with the club's ledger."""

    club = models.ForeignKey(
        Club, on_delete=models.CASCADE, related_name="ledger_balances", verbose_name=_("club")
    )
    unit = models.CharField(_("unit"), max_length=6)
    scope = models.CharField(_("scope"), max_length=100, blank=True, default=WHOLE_CLUB)
    player = models.ForeignKey(
        Player, on_delete=models.CASCADE, related_name="ledger_balances", verbose_name=_("player")
    )
    minor = models.BigIntegerField(_("balance (cents or points)"), default=0)

    # A merge carries the guest's balances over by postings (their rows then read zero and
    # stay, as their entries do); the trigger moves the member's.
    player_merge = {"player": Carry(carry_over="ledger.services.carry_balances")}

    class Meta:
        verbose_name = _("ledger balance")
        verbose_name_plural = _("ledger balances")
        constraints = [
            models.UniqueConstraint(
                fields=["club", "unit", "scope", "player"], name="ledger_balance_once"
            )
        ]

    def __str__(self) -> str:
        return f"{self.player_id} {self.unit} {self.scope or '*'}: {self.minor}"


class PairDebt(models.Model):
    """What two people owe each other in one unit, derived from the legs: one row for the
    whole club (``scope`` ``WHOLE_CLUB``) and one per scope they have legs in. ``low`` is
    the lower player id: ``posted_minor`` is what the postings' legs (a hand's covers and
    side bets, a carried balance, a reversal) make ``low`` owe ``high``, netted (negative:
    ``high`` owes ``low``), and ``paid_minor`` what payments' legs cleared of it, the same
    way; ``low`` owes ``high`` the difference. Written by the database in each posting's
    own transaction, as the balances are (``ledger.triggers``): who owes whom reads a row a
    pair, not every leg of the club's history. ``ledger_check`` compares them with the legs."""

    club = models.ForeignKey(
        Club, on_delete=models.CASCADE, related_name="ledger_pairs", verbose_name=_("club")
    )
    unit = models.CharField(_("unit"), max_length=6)
    scope = models.CharField(_("scope"), max_length=100, blank=True, default=WHOLE_CLUB)
    low = models.ForeignKey(
        Player, on_delete=models.CASCADE, related_name="+", verbose_name=_("player")
    )
    high = models.ForeignKey(
        Player, on_delete=models.CASCADE, related_name="+", verbose_name=_("other player")
    )
    posted_minor = models.BigIntegerField(_("posted (cents or points)"), default=0)
    paid_minor = models.BigIntegerField(_("paid (cents or points)"), default=0)

    # As the legs: the rows stay, and who owes whom reads a merged guest as the member.
    player_merge = {
        "low": Carry(carry_over="ledger.services.carry_balances"),
        "high": Carry(carry_over="ledger.services.carry_balances"),
    }

    class Meta:
        verbose_name = _("ledger pair")
        verbose_name_plural = _("ledger pairs")
        constraints = [
            models.UniqueConstraint(
                fields=["club", "unit", "scope", "low", "high"], name="ledger_pair_once"
            )
        ]

    def __str__(self) -> str:
        return f"{self.low_id}-{self.high_id} {self.unit} {self.scope or '*'}"


class PairPart(models.Model):
    """What one source of postings (a hand with its corrections and reversal, a carried
    balance, a posting without a source by its key: ``label``) adds to what ``low`` owes
    ``high`` (:class:`PairDebt`), and when it first did (``at``): the lines behind a debt,
    derived from the legs by the same trigger."""

    club = models.ForeignKey(
        Club, on_delete=models.CASCADE, related_name="ledger_pair_parts", verbose_name=_("club")
    )
    unit = models.CharField(_("unit"), max_length=6)
    scope = models.CharField(_("scope"), max_length=100, blank=True, default=WHOLE_CLUB)
    low = models.ForeignKey(
        Player, on_delete=models.CASCADE, related_name="+", verbose_name=_("player")
    )
    high = models.ForeignKey(
        Player, on_delete=models.CASCADE, related_name="+", verbose_name=_("other player")
    )
    kind = models.CharField(_("kind"), max_length=10)  # Kind.POSTING or Kind.CARRY
    label = models.CharField(_("source"), max_length=200)
    minor = models.BigIntegerField(_("amount (cents or points)"), default=0)
    at = models.DateTimeField(_("date"))

    player_merge = {
        "low": Carry(carry_over="ledger.services.carry_balances"),
        "high": Carry(carry_over="ledger.services.carry_balances"),
    }

    class Meta:
        verbose_name = _("ledger pair's part")
        verbose_name_plural = _("ledger pairs' parts")
        constraints = [
            models.UniqueConstraint(
                fields=["club", "unit", "scope", "low", "high", "kind", "label"],
                name="ledger_pair_part_once",
            )
        ]
        indexes = [
            models.Index(
                fields=["club", "unit", "scope", "low", "high", "at"],
                name="ledger_pair_part_latest",
            )
        ]

    def __str__(self) -> str:
        return f"{self.low_id}-{self.high_id} {self.label}: {self.minor}"


class PaymentStatus(models.TextChoices):
    PENDING = "pending", _("Pending")
    CONFIRMED = "confirmed", _("Confirmed")
    CANCELLED = "cancelled", _("Cancelled")


class PaymentQuerySet(ClubOwnedQuerySet):
    def visible_to(self, user):
        """A club's payments are its members' (``ClubAccess.sees_money``): all of them where
        the user sees the club's money, else those they paid, received or recorded."""
        if not user.is_authenticated:
            return self.none()
        own = Q(payer__user=user) | Q(payee__user=user) | Q(recorded_by=user)
        return self.where_role(user, Role.MEMBER).filter(
            Q(club__in=club_ids_showing_money(user)) | own
        )

    def pending(self):
        return self.filter(status=PaymentStatus.PENDING)


def _cancel_pending(payments) -> None:
    """A merged guest's pending payments are cancelled (their confirmed ones stay on record,
    their effect carried with the balance); the payer records them again for the member."""
    payments.filter(status=PaymentStatus.PENDING).update(
        status=PaymentStatus.CANCELLED, decided_at=timezone.now()
    )


class Payment(models.Model):
    """Money or points handed over between two people of a club, as the payer tells it."""

    club = models.ForeignKey(
        Club, on_delete=models.CASCADE, related_name="ledger_payments", verbose_name=_("club")
    )
    payer = models.ForeignKey(
        Player, on_delete=models.RESTRICT, related_name="payments_made", verbose_name=_("payer")
    )
    payee = models.ForeignKey(
        Player,
        on_delete=models.RESTRICT,
        related_name="payments_received",
        verbose_name=_("payee"),
    )
    unit = models.CharField(_("unit"), max_length=6)
    amount_minor = models.BigIntegerField(_("amount (cents or points)"))
    status = models.CharField(
        _("status"), max_length=10, choices=PaymentStatus.choices, default=PaymentStatus.PENDING
    )
    recorded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=pgettext_lazy("a payment", "recorded by"),
    )
    recorded_at = models.DateTimeField(_("recorded"), auto_now_add=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("confirmed or cancelled by"),
    )
    decided_at = models.DateTimeField(_("confirmed or cancelled"), null=True, blank=True)
    transaction = models.OneToOneField(
        Transaction,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="payment",
        verbose_name=_("transaction"),
    )

    objects = PaymentQuerySet.as_manager()

    player_merge = {
        "payer": Revoke(revoke=_cancel_pending),
        "payee": Revoke(revoke=_cancel_pending),
    }

    class Meta:
        ordering = ["-recorded_at", "-id"]
        verbose_name = _("payment")
        verbose_name_plural = _("payments")
        constraints = [
            models.CheckConstraint(condition=UNIT_IS_VALID, name="ledger_payment_unit_valid"),
            models.CheckConstraint(
                condition=Q(amount_minor__gt=0), name="ledger_payment_amount_positive"
            ),
            models.CheckConstraint(
                condition=Q(amount_minor__lte=MAX_MINOR), name="ledger_payment_amount_bounded"
            ),
            models.CheckConstraint(
                condition=~Q(payer=models.F("payee")), name="ledger_payment_two_people"
            ),
            models.CheckConstraint(
                condition=Q(status=PaymentStatus.CONFIRMED, transaction__isnull=False)
                | (~Q(status=PaymentStatus.CONFIRMED) & Q(transaction__isnull=True)),
                name="ledger_payment_confirmed_posted",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.payer} → {self.payee}: {self.amount} {self.unit}"

    @property
    def amount(self) -> Amount:
        return from_minor(self.amount_minor, self.unit)

    @property
    def key(self) -> str:
        return f"payment:{self.pk}"


class Erasure(models.Model):
    """A club's whole ledger erased on purpose (``erase_club_ledger``): the one way past the
    append-only triggers, which let a club's rows go only while its erasure is open."""

    club_id = models.BigIntegerField(_("club id"))  # no foreign key: the club may go next
    club_name = models.CharField(_("club"), max_length=120)
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("erased by"),
    )
    started_at = models.DateTimeField(_("started"), default=timezone.now)
    finished_at = models.DateTimeField(_("finished"), null=True, blank=True)
    transactions = models.PositiveIntegerField(_("transactions"), default=0)
    payments = models.PositiveIntegerField(_("payments"), default=0)

    class Meta:
        ordering = ["-started_at"]
        verbose_name = _("ledger erasure")
        verbose_name_plural = _("ledger erasures")
        triggers = triggers.postgres_erasure_triggers()

    def __str__(self) -> str:
        return f"{self.club_name} ({self.started_at:%Y-%m-%d})"


class CheckRun(models.Model):
    """The result of one ``ledger_check`` (the command or the periodic task); ``/health/``
    reads the latest. Kept as written, like the ledger (a row an hour is little)."""

    at = models.DateTimeField(_("checked"), default=timezone.now, db_index=True)
    ok = models.BooleanField(_("ok"))
    problems = models.JSONField(_("problems"), default=list)
    counts = models.JSONField(_("counts"), default=dict)

    class Meta:
        ordering = ["-at", "-id"]
        verbose_name = _("ledger check")
        verbose_name_plural = _("ledger checks")
        triggers = triggers.postgres_check_run_triggers()

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M} {'ok' if self.ok else 'MISMATCH'}"
