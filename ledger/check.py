"""``ledger_check``: recompute the ledger from its entries and report any mismatch.

Run by ``manage.py ledger_check`` (exit 1 on a mismatch) and by the periodic Celery task
``ledger.check`` (beat, hourly); each run is stored as a :class:`~ledger.models.CheckRun`,
and ``/health/`` shows the latest (it never recomputes anything itself). What it checks:

- every transaction has its ``n_entries`` entries, they sum to zero and are not all zero;
- every transaction has its legs (one posted before legs has none until ``manage.py
  ledger_legs`` gives them), ``n_legs`` of them, and they net, person by person, to its
  entries;
- every entry's and every leg's people belong to the transaction's club;
- every reversal turns round exactly the legs of the transaction it reverses;
- every confirmed payment posted exactly its amount, from the payee to the payer (its legs,
  which may clear a chain of debts between the two, net to that: ``ledger.pairs``);
- each club's balances in each unit, its entries added up here one by one, sum to zero;
- the derived balances the pages and the API show (``ledger.models.Balance``, kept by the
  entries' trigger): each person's row of the whole club and of each scope equals the sum
  of their entries added up here, and no row is left without entries behind it;
- who owes whom as the pages and the API show it (``ledger.models.PairDebt`` and
  ``PairPart``, kept by the legs' trigger): each pair's rows and each of its parts equal
  its legs added up here;
- the append-only triggers are installed, and no erasure was left open.

On PostgreSQL the database refuses most of this itself (``ledger.triggers``); on SQLite a
transaction left short of its entries or legs, and the legs given to an older transaction,
are found here only.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from django.db import connection
from django.db.models import Count, Exists, F, OuterRef, Q, Sum

from ledger import triggers
from ledger.amounts import nets_of
from ledger.models import (
    WHOLE_CLUB,
    Balance,
    CheckRun,
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

MAX_PROBLEMS = 100  # reported one by one; beyond, counted


@dataclass
class Result:
    problems: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.problems

    def add(self, problem: str) -> None:
        self.problems.append(problem)


def run() -> Result:
    """Check the whole ledger (read only)."""
    result = Result()
    _transactions_balance(result)
    _legs_match(result)
    _entries_belong_to_the_club(result)
    _reversals_negate(result)
    _payments_match(result)
    _balances_recompute(result)
    _pairs_recompute(result)
    for name in triggers.missing(connection):
        result.add(f"the append-only trigger {name} is missing")
    for erasure in Erasure.objects.filter(finished_at__isnull=True):
        result.add(f"the erasure of {erasure.club_name} (id {erasure.pk}) was left open")
    return result


def _transactions_balance(result: Result) -> None:
    wrong = (
        Transaction.objects.annotate(total=Sum("entries__amount_minor"), n=Count("entries"))
        .filter(Q(total__isnull=True) | ~Q(total=0) | ~Q(n=F("n_entries")))
        .values_list("key", "total", "n", "n_entries")
    )
    for key, total, n, announced in wrong:
        result.add(
            f"transaction {key}: {n} of {announced} entries, summing to {total or 0} (not zero)"
        )
    idle = Transaction.objects.filter(
        ~Exists(Entry.objects.filter(transaction=OuterRef("pk")).exclude(amount_minor=0))
    ).values_list("key", flat=True)
    for key in idle:
        result.add(f"transaction {key} moves nothing: its entries are all zero")
    result.counts["transactions"] = Transaction.objects.count()


# Each person's entry less what the transaction's legs net to for them, where not zero.
_UNMATCHED = """
    SELECT t.key, moves.who, SUM(moves.minor) FROM (
        SELECT transaction_id AS tx, player_id AS who, amount_minor AS minor FROM ledger_entry
        UNION ALL SELECT transaction_id, creditor_id, -amount_minor FROM ledger_leg
        UNION ALL SELECT transaction_id, debtor_id, amount_minor FROM ledger_leg
    ) moves JOIN ledger_transaction t ON t.id = moves.tx
    WHERE EXISTS (SELECT 1 FROM ledger_leg l WHERE l.transaction_id = t.id)
    GROUP BY t.id, t.key, moves.who HAVING SUM(moves.minor) <> 0
    ORDER BY t.id, moves.who"""


def _legs_match(result: Result) -> None:
    for key in Transaction.objects.filter(n_legs__isnull=True).values_list("key", flat=True):
        result.add(f"transaction {key} has no legs (posted before legs: run manage.py ledger_legs)")
    short = (
        Transaction.objects.filter(n_legs__isnull=False)
        .annotate(n=Count("legs"))
        .exclude(n=F("n_legs"))
        .values_list("key", "n", "n_legs")
    )
    for key, n, announced in short:
        result.add(f"transaction {key}: {n} of {announced} legs")
    with connection.cursor() as cursor:
        cursor.execute(_UNMATCHED)
        for key, player_id, off in cursor.fetchall():
            result.add(
                f"transaction {key}: the legs of player {player_id} do not net to the entry "
                f"(off by {off})"
            )
    result.counts["legs"] = Leg.objects.count()


def _entries_belong_to_the_club(result: Result) -> None:
    strays = Entry.objects.exclude(player__club=F("transaction__club")).values_list(
        "transaction__key", "player_id"
    )
    for key, player_id in strays:
        result.add(f"transaction {key}: player {player_id} is not of the transaction's club")
    stray_legs = Leg.objects.filter(
        ~Q(debtor__club=F("transaction__club")) | ~Q(creditor__club=F("transaction__club"))
    ).values_list("transaction__key", "debtor_id", "creditor_id")
    for key, debtor, creditor in stray_legs:
        result.add(
            f"transaction {key}: the leg of players {debtor} and {creditor} is not of the "
            "transaction's club"
        )


def _entries_of(tx_ids) -> dict[int, dict[int, int]]:
    found: dict[int, dict[int, int]] = defaultdict(dict)
    rows = Entry.objects.filter(transaction_id__in=tx_ids).values_list(
        "transaction_id", "player_id", "amount_minor"
    )
    for tx_id, player_id, minor in rows.iterator():
        found[tx_id][player_id] = minor
    return found


def _legs_of(tx_ids) -> dict[int, set[tuple[int, int, int]]]:
    found: dict[int, set[tuple[int, int, int]]] = defaultdict(set)
    rows = Leg.objects.filter(transaction_id__in=tx_ids).values_list(
        "transaction_id", "debtor_id", "creditor_id", "amount_minor"
    )
    for tx_id, debtor, creditor, minor in rows.iterator():
        found[tx_id].add((debtor, creditor, minor))
    return found


def _reversals_negate(result: Result) -> None:
    pairs = list(
        Transaction.objects.filter(reverses__isnull=False).values_list(
            "pk", "key", "reverses_id", "reverses__key", "kind"
        )
    )
    ids = [p for pair in pairs for p in (pair[0], pair[2])]
    entries = _entries_of(ids)
    legs = _legs_of(ids)
    for pk, key, original_id, original_key, kind in pairs:
        negated = {player: -minor for player, minor in entries[original_id].items()}
        turned = {(creditor, debtor, minor) for debtor, creditor, minor in legs[original_id]}
        if kind != Kind.REVERSAL or entries[pk] != negated or legs[pk] != turned:
            result.add(f"transaction {key} does not exactly reverse {original_key}")


def _payments_match(result: Result) -> None:
    confirmed = list(
        Payment.objects.filter(status=PaymentStatus.CONFIRMED).values_list(
            "pk", "payer_id", "payee_id", "amount_minor", "unit", "club_id", "transaction_id"
        )
    )
    entries = _entries_of([row[6] for row in confirmed])
    legs = _legs_of([row[6] for row in confirmed])
    units = dict(
        Transaction.objects.filter(pk__in=[row[6] for row in confirmed]).values_list("pk", "unit")
    )
    for pk, payer, payee, minor, unit, _club, tx_id in confirmed:
        if (
            entries.get(tx_id) != {payer: minor, payee: -minor}
            or (
                tx_id in legs
                and nets_of({(d, c): m for d, c, m in legs[tx_id]}) != {payer: minor, payee: -minor}
            )
            or units.get(tx_id) != unit
        ):
            result.add(f"payment {pk} does not match its transaction")
    result.counts["payments"] = len(confirmed)


def _balances_recompute(result: Result) -> None:
    """Every entry added up here, one by one, per (club, unit, scope, person): each club's
    balances in each unit sum to zero, and the derived rows the pages read equal them."""
    where = ("transaction__club_id", "transaction__unit", "transaction__scope", "player_id")
    added: dict[tuple[int, str, str, int], int] = defaultdict(int)
    n_entries = 0
    rows = Entry.objects.values_list(*where, "amount_minor").order_by("pk")
    for *key, minor in rows.iterator(chunk_size=5000):
        added[tuple(key)] += minor
        n_entries += 1
    per_unit: dict[tuple[int, str], int] = defaultdict(int)
    for (club_id, unit, _scope, _player), minor in added.items():
        per_unit[(club_id, unit)] += minor
    for (club_id, unit), total in sorted(per_unit.items()):
        if total:
            result.add(f"the balances of club {club_id} in {unit} sum to {total}, not zero")
    result.counts["entries"] = n_entries
    result.counts["balances"] = len(added)
    _derived_balances(result, added)


def _derived_balances(result: Result, added: dict[tuple[int, str, str, int], int]) -> None:
    """The derived rows against the entries added up (``added``: per transaction scope)."""
    expected: dict[tuple[int, str, str, int], int] = defaultdict(int)
    for (club_id, unit, scope, player_id), minor in added.items():
        expected[(club_id, unit, WHOLE_CLUB, player_id)] += minor
        if scope != WHOLE_CLUB:
            expected[(club_id, unit, scope, player_id)] += minor
    kept = {
        (club_id, unit, scope, player_id): minor
        for club_id, unit, scope, player_id, minor in Balance.objects.values_list(
            "club_id", "unit", "scope", "player_id", "minor"
        ).iterator(chunk_size=5000)
    }
    for key in sorted(set(expected) | set(kept), key=str):
        if key not in kept or key not in expected or kept[key] != expected[key]:
            club_id, unit, scope, player_id = key
            where = f"scope {scope!r}" if scope != WHOLE_CLUB else "the whole club"
            result.add(
                f"derived balance of player {player_id} in club {club_id}, {unit}, {where}: "
                f"{kept.get(key)} kept, {expected.get(key)} in the entries"
            )
    result.counts["derived balances"] = len(kept)


def _pairs_recompute(result: Result) -> None:
    """Every leg added up here, one by one, into who owes whom for the whole club and for
    its transaction's scope (as the trigger does): the derived pairs and parts equal them."""
    pairs: dict[tuple, list[int]] = defaultdict(lambda: [0, 0])  # posted, paid
    parts: dict[tuple, int] = defaultdict(int)
    rows = Leg.objects.values_list(
        "transaction__club_id",
        "transaction__unit",
        "transaction__scope",
        "transaction__kind",
        "transaction__source",
        "transaction__reverses__key",
        "transaction__key",
        "debtor_id",
        "creditor_id",
        "amount_minor",
    ).order_by("pk")
    for (
        club_id,
        unit,
        scope,
        kind,
        source,
        reversed_key,
        key,
        debtor,
        creditor,
        minor,
    ) in rows.iterator(chunk_size=5000):
        low, high = min(debtor, creditor), max(debtor, creditor)
        signed = minor if debtor == low else -minor  # what low owes high
        label = source or reversed_key or key
        part_kind = Kind.CARRY if kind == Kind.CARRY else Kind.POSTING
        for where in {WHOLE_CLUB, scope}:
            pair = (club_id, unit, where, low, high)
            if kind == Kind.PAYMENT:
                pairs[pair][1] -= signed
            else:
                pairs[pair][0] += signed
                parts[(*pair, part_kind, label)] += signed
    kept_pairs = {
        (club_id, unit, scope, low, high): [posted, paid]
        for club_id, unit, scope, low, high, posted, paid in PairDebt.objects.values_list(
            "club_id", "unit", "scope", "low_id", "high_id", "posted_minor", "paid_minor"
        ).iterator(chunk_size=5000)
    }
    for key in sorted(set(pairs) | set(kept_pairs), key=str):
        if kept_pairs.get(key) != pairs.get(key):
            club_id, unit, scope, low, high = key
            result.add(
                f"derived pair {low}-{high} in club {club_id}, {unit}, scope {scope!r}: "
                f"{kept_pairs.get(key)} kept (posted, paid), {pairs.get(key)} in the legs"
            )
    kept_parts = {
        key[:-1]: key[-1]
        for key in PairPart.objects.values_list(
            "club_id", "unit", "scope", "low_id", "high_id", "kind", "label", "minor"
        ).iterator(chunk_size=5000)
    }
    for key in sorted(set(parts) | set(kept_parts), key=str):
        if kept_parts.get(key) != parts.get(key):
            club_id, unit, scope, low, high, _kind, label = key
            result.add(
                f"derived part {label} of pair {low}-{high} in club {club_id}, {unit}, "
                f"scope {scope!r}: {kept_parts.get(key)} kept, {parts.get(key)} in the legs"
            )
    result.counts["derived pairs"] = len(kept_pairs)


def record(result: Result) -> CheckRun:
    """Store the result for ``/health/`` (the runs are kept as written, like the ledger)."""
    problems = result.problems[:MAX_PROBLEMS]
    if len(result.problems) > MAX_PROBLEMS:
        problems.append(f"… and {len(result.problems) - MAX_PROBLEMS} more")
    return CheckRun.objects.create(ok=result.ok, problems=problems, counts=result.counts)


def latest() -> CheckRun | None:
    return CheckRun.objects.order_by("-at", "-id").first()
