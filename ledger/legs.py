"""Legs for a posting given only as nets, and legs for the transactions posted before legs
existed (``manage.py ledger_legs``). Legs as plain values (netted pair by pair, what they
net to per person) are ``ledger.amounts``'.

Such a transaction (``n_legs`` NULL) has its entries, each person's net, but not who owed
whom. Its legs are given once, netting exactly to its entries: the legs, then ``n_legs``
set in the same database transaction, which the database takes only then and only once
(``ledger.triggers``):

- a reversal: its original's legs, turned round;
- two people (a payment, a carried balance, most hands): the one debt between them;
- a posting among more: the legs the floor that posted it recomputes from its own records
  (a provider registered for the prefix of its ``source``, such as ``hand``: the Singapore
  hand's covers and side bets, the games' ``ledger_legs``), when they net exactly to
  the entries; otherwise, and for postings nobody explains, each loser owes each winner in
  proportion to the winnings (what "who owes whom" showed before legs), counted apart.

``ledger_check`` then finds every transaction with its legs, netting to its entries.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from django.core.exceptions import ValidationError
from django.db import transaction as db_transaction
from django.db.models import Exists, OuterRef

import plumbing.bulk as bulk
from ledger import settle
from ledger.amounts import Legs, net_legs, nets_of, to_minor
from ledger.models import Entry, Kind, Leg, Transaction
from ledger.sources import legs_from_records

CHUNK = 2000  # transactions a database transaction


def legs_of_nets(nets: Mapping[int, int]) -> Legs:
    """Legs for a posting given only as each person's net: between two people the one debt;
    among more, each loser owes each winner in proportion to the winnings
    (``settle.allocate``): the caller named no counterparties."""
    return net_legs(
        (t.payer, t.payee, t.amount) for t in settle.allocate(dict(sorted(nets.items())))
    )


@dataclass
class Given:
    """What :func:`give_legs` did: transactions given legs, and how they were found."""

    counts: dict[str, int] = field(
        default_factory=lambda: {"given": 0, "from records": 0, "shared in proportion": 0}
    )

    def add(self, other: Given) -> None:
        for name, n in other.counts.items():
            self.counts[name] += n


def without_legs():
    """The transactions posted before legs that have none yet."""
    return Transaction.objects.filter(n_legs__isnull=True).filter(
        ~Exists(Leg.objects.filter(transaction=OuterRef("pk")))
    )


def _nets(tx_ids: list[int]) -> dict[int, dict[int, int]]:
    found: dict[int, dict[int, int]] = defaultdict(dict)
    rows = Entry.objects.filter(transaction_id__in=tx_ids).exclude(amount_minor=0)
    for tx_id, player_id, minor in rows.values_list("transaction_id", "player_id", "amount_minor"):
        found[tx_id][player_id] = minor
    return found


def _recorded(transactions: list[Transaction]) -> dict[int, dict[tuple[int, int], int]]:
    """The legs the posting floors recompute from their records, in minor units, netted."""
    by_prefix: dict[tuple[int, str], list[Transaction]] = defaultdict(list)
    for tx in transactions:
        prefix = tx.source.partition(":")[0]
        if tx.kind == Kind.POSTING and prefix:
            by_prefix[(tx.club_id, prefix)].append(tx)
    found = {}
    for (_club, prefix), txs in by_prefix.items():
        units = {tx.pk: tx.unit for tx in txs}
        for tx_id, legs in legs_from_records(prefix, txs).items():
            try:
                minor = [(d, c, to_minor(amount, units[tx_id])) for d, c, amount in legs]
            except (KeyError, ValidationError):
                continue
            found[tx_id] = net_legs(m for m in minor if m[2] >= 0)
    return found


@db_transaction.atomic
def give_legs(transactions: Iterable[Transaction]) -> Given:
    """Give each of ``transactions`` (posted before legs, none yet) its legs; see the module."""
    todo = sorted((tx for tx in transactions if tx.n_legs is None), key=lambda tx: tx.pk)
    given = Given()
    if not todo:
        return given
    ids = [tx.pk for tx in todo]
    # Some given legs already but not counted (an interrupted run elsewhere): left to
    # ledger_check, which names them.
    done = set(Leg.objects.filter(transaction_id__in=ids).values_list("transaction_id", flat=True))
    todo = [tx for tx in todo if tx.pk not in done]
    todo_ids = {tx.pk for tx in todo}
    nets = _nets([tx.pk for tx in todo])
    originals = {tx.reverses_id for tx in todo if tx.reverses_id}
    computed: dict[int, dict[tuple[int, int], int]] = defaultdict(dict)
    for tx_id, debtor, creditor, minor in Leg.objects.filter(
        transaction_id__in=originals
    ).values_list("transaction_id", "debtor_id", "creditor_id", "amount_minor"):
        computed[tx_id][(debtor, creditor)] = minor
    recorded = _recorded(todo)
    rows = []
    for tx in todo:
        wanted = nets.get(tx.pk, {})
        legs = None
        if tx.reverses_id and tx.reverses_id in computed:
            turned = {(c, d): m for (d, c), m in computed[tx.reverses_id].items()}
            legs = turned if nets_of(turned) == wanted else None
        elif tx.pk in recorded and len(wanted) > 2 and nets_of(recorded[tx.pk]) == wanted:
            legs = recorded[tx.pk]
            given.counts["from records"] += 1
        if legs is None:
            if not wanted:
                continue  # moves nothing: no legs to give (ledger_check says so)
            legs = legs_of_nets(wanted)
            if len(wanted) > 2:
                given.counts["shared in proportion"] += 1
        computed[tx.pk] = legs
        rows.extend((tx.pk, d, c, m) for (d, c), m in sorted(legs.items()))
        given.counts["given"] += 1
    bulk.insert(Leg, ("transaction", "debtor", "creditor", "amount_minor"), rows)
    # Then counted, once (the database checks they are all there and net to the entries).
    by_count: dict[int, list[int]] = defaultdict(list)
    for tx_id, legs in computed.items():
        if tx_id in todo_ids:
            by_count[len(legs)].append(tx_id)
    for n, tx_ids in sorted(by_count.items()):
        for start in range(0, len(tx_ids), CHUNK):
            Transaction.objects.filter(pk__in=tx_ids[start : start + CHUNK]).update(n_legs=n)
    return given


def give_all_legs(*, chunk: int = CHUNK, progress=None) -> Given:
    """Give every transaction posted before legs its legs, ``chunk`` at a time (each in one
    database transaction); safe to run again (nothing is left the second time)."""
    total = Given()
    last = 0
    while True:
        batch = list(without_legs().filter(pk__gt=last).order_by("pk")[:chunk])
        if not batch:
            return total
        total.add(give_legs(batch))
        last = batch[-1].pk
        if progress:
            progress(total)
