"""``ledger_check``: recompute the ledger from its entries and report any mismatch.

Run by ``manage.py ledger_check`` (exit 1 on a mismatch) and by the periodic Celery task
``ledger.check`` (beat, hourly); each run is stored as a :class:`~ledger.models.CheckRun`,
and ``/health/`` shows the latest (it never recomputes anything itself). What it checks:

- every transaction has its ``n_entries`` entries and they sum to zero;
- every entry's person belongs to the transaction's club;
- every reversal negates exactly the transaction it reverses;
- every confirmed payment posted exactly its amount, from the payee to the payer;
- every balance (club, unit, scope, person) computed by the database's aggregate — what the
  pages and the API show — equals the sum of its entries added up here one by one, and each
  club's balances in each unit sum to zero;
- the append-only triggers are installed, and no erasure was left open.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from django.db import connection
from django.db.models import Count, F, Q, Sum

from ledger import triggers
from ledger.models import CheckRun, Entry, Erasure, Kind, Payment, PaymentStatus, Transaction

KEEP_RUNS = 50
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
    _entries_belong_to_the_club(result)
    _reversals_negate(result)
    _payments_match(result)
    _balances_recompute(result)
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
    result.counts["transactions"] = Transaction.objects.count()


def _entries_belong_to_the_club(result: Result) -> None:
    strays = Entry.objects.exclude(player__club=F("transaction__club")).values_list(
        "transaction__key", "player_id"
    )
    for key, player_id in strays:
        result.add(f"transaction {key}: player {player_id} is not of the transaction's club")


def _entries_of(tx_ids) -> dict[int, dict[int, int]]:
    found: dict[int, dict[int, int]] = defaultdict(dict)
    rows = Entry.objects.filter(transaction_id__in=tx_ids).values_list(
        "transaction_id", "player_id", "amount_minor"
    )
    for tx_id, player_id, minor in rows.iterator():
        found[tx_id][player_id] = minor
    return found


def _reversals_negate(result: Result) -> None:
    pairs = list(
        Transaction.objects.filter(reverses__isnull=False).values_list(
            "pk", "key", "reverses_id", "reverses__key", "kind"
        )
    )
    entries = _entries_of([p for pair in pairs for p in (pair[0], pair[2])])
    for pk, key, original_id, original_key, kind in pairs:
        negated = {player: -minor for player, minor in entries[original_id].items()}
        if kind != Kind.REVERSAL or entries[pk] != negated:
            result.add(f"transaction {key} does not exactly reverse {original_key}")


def _payments_match(result: Result) -> None:
    confirmed = list(
        Payment.objects.filter(status=PaymentStatus.CONFIRMED).values_list(
            "pk", "payer_id", "payee_id", "amount_minor", "unit", "club_id", "transaction_id"
        )
    )
    entries = _entries_of([row[6] for row in confirmed])
    units = dict(
        Transaction.objects.filter(pk__in=[row[6] for row in confirmed]).values_list("pk", "unit")
    )
    for pk, payer, payee, minor, unit, _club, tx_id in confirmed:
        if entries.get(tx_id) != {payer: minor, payee: -minor} or units.get(tx_id) != unit:
            result.add(f"payment {pk} does not match its transaction")
    result.counts["payments"] = len(confirmed)


def _balances_recompute(result: Result) -> None:
    """The database's aggregate, as the pages and the API read it, against a sum made here."""
    where = ("transaction__club_id", "transaction__unit", "transaction__scope", "player_id")
    added: dict[tuple[int, str, str, int], int] = defaultdict(int)
    n_entries = 0
    rows = Entry.objects.values_list(*where, "amount_minor").order_by("pk")
    for *key, minor in rows.iterator(chunk_size=5000):
        added[tuple(key)] += minor
        n_entries += 1
    aggregated = {
        tuple(row[name] for name in where): row["minor"]
        for row in Entry.objects.values(*where).annotate(minor=Sum("amount_minor")).order_by()
    }
    for key in sorted(set(added) | set(aggregated), key=str):
        if added.get(key, 0) != aggregated.get(key, 0):
            club_id, unit, scope, player_id = key
            result.add(
                f"balance of player {player_id} in club {club_id}, {unit}, scope {scope!r}: "
                f"{aggregated.get(key)} aggregated, {added.get(key)} added up"
            )
    per_unit: dict[tuple[int, str], int] = defaultdict(int)
    for (club_id, unit, _scope, _player), minor in added.items():
        per_unit[(club_id, unit)] += minor
    for (club_id, unit), total in sorted(per_unit.items()):
        if total:
            result.add(f"the balances of club {club_id} in {unit} sum to {total}, not zero")
    result.counts["entries"] = n_entries
    result.counts["balances"] = len(added)


def record(result: Result) -> CheckRun:
    """Store the result for ``/health/``, keeping the latest :data:`KEEP_RUNS` runs."""
    problems = result.problems[:MAX_PROBLEMS]
    if len(result.problems) > MAX_PROBLEMS:
        problems.append(f"… and {len(result.problems) - MAX_PROBLEMS} more")
    run_ = CheckRun.objects.create(ok=result.ok, problems=problems, counts=result.counts)
    stale = CheckRun.objects.order_by("-at", "-id").values_list("pk", flat=True)[KEEP_RUNS:]
    CheckRun.objects.filter(pk__in=list(stale)).delete()
    return run_


def latest() -> CheckRun | None:
    return CheckRun.objects.order_by("-at", "-id").first()
