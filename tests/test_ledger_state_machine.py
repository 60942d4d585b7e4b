"""A hypothesis state machine over the ledger's services: random postings in points and in
money, in scopes, reversals (voids), corrections, payments, and duplicate posts (the same
body again, or another body under a used key). After every step every transaction sums to
zero and every balance equals both the sum of its entries and a model kept here; at the end
``ledger_check`` finds nothing wrong.

Each example runs in a savepoint rolled back at its end. On PostgreSQL (the integration run)
the deferred zero-sum triggers are fired after every step as well."""

from collections import defaultdict
from decimal import Decimal

import pytest
from django.db import connection, transaction
from django.db.models import Count, F, Q, Sum
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from ledger import check, services
from ledger import reads as ledger_reads
from ledger import services as ledger_services
from ledger.models import Entry, Transaction
from tests.ledger_helpers import players_of

pytestmark = pytest.mark.django_db

UNITS = ["points", "EUR"]
SCOPES = ["", "session:1", "session:2"]
amounts = st.lists(st.integers(min_value=-5000, max_value=5000), min_size=1, max_size=3)


def test_the_ledger_stays_consistent_whatever_happens(people):
    club, admin = people["club"], people["admin"]
    players = list(players_of(people).values())

    class Ledger(RuleBasedStateMachine):
        def __init__(self):
            super().__init__()
            self.atomic = transaction.atomic()
            self.atomic.__enter__()
            self.expected: dict[tuple[str, str, int], int] = defaultdict(int)
            self.bodies: dict[str, tuple] = {}  # key -> (unit, scope, {player id: minor})
            self.live: list[str] = []  # postings neither reversed nor corrected
            self.n = 0

        def teardown(self):
            try:
                result = check.run()
                assert result.ok, result.problems
            finally:
                transaction.set_rollback(True)
                self.atomic.__exit__(None, None, None)

        def _entries(self, unit, values, order):
            minors = [*values, -sum(values)]
            chosen = [players[i] for i in order[: len(minors)]]
            as_amount = (lambda m: m) if unit == "points" else (lambda m: Decimal(m) / 100)
            return {p: as_amount(m) for p, m in zip(chosen, minors, strict=True)}, {
                p.pk: m for p, m in zip(chosen, minors, strict=True)
            }

        def _book(self, unit, scope, minors, sign=1):
            for player_id, minor in minors.items():
                self.expected[(unit, scope, player_id)] += sign * minor

        @rule(
            unit=st.sampled_from(UNITS),
            scope=st.sampled_from(SCOPES),
            values=amounts,
            order=st.permutations(range(4)),
        )
        def post(self, unit, scope, values, order):
            entries, minors = self._entries(unit, values, order)
            key = f"hand:{self.n}:v1"
            self.n += 1
            if not any(minors.values()):
                with pytest.raises(services.ValidationError):
                    services.post_transaction(
                        club=club, unit=unit, scope=scope, key=key, entries=entries
                    )
                return
            services.post_transaction(
                club=club, unit=unit, scope=scope, key=key, entries=entries, by=admin
            )
            self.bodies[key] = (unit, scope, minors, entries)
            self.live.append(key)
            self._book(unit, scope, minors)

        @precondition(lambda self: self.bodies)
        @rule(data=st.data())
        def post_the_same_again(self, data):
            key = data.draw(st.sampled_from(sorted(self.bodies)))
            unit, scope, _, entries = self.bodies[key]
            before = Transaction.objects.count()
            again = services.post_transaction(
                club=club, unit=unit, scope=scope, key=key, entries=entries
            )
            assert again.key == key
            assert Transaction.objects.count() == before

        @precondition(lambda self: self.bodies)
        @rule(data=st.data(), values=amounts, order=st.permutations(range(4)))
        def post_something_else_under_a_used_key(self, data, values, order):
            key = data.draw(st.sampled_from(sorted(self.bodies)))
            unit, scope, minors, _ = self.bodies[key]
            entries, other = self._entries(unit, values, order)
            if other == minors or not any(other.values()):
                return
            with pytest.raises(ledger_services.KeyReused):
                services.post_transaction(
                    club=club, unit=unit, scope=scope, key=key, entries=entries
                )

        @precondition(lambda self: self.live)
        @rule(data=st.data())
        def void(self, data):
            key = data.draw(st.sampled_from(self.live))
            posted = Transaction.objects.get(key=key)
            first = services.reverse_transaction(transaction=posted, by=admin)
            again = services.reverse_transaction(transaction=posted, by=admin)
            assert first.pk == again.pk
            unit, scope, minors, _ = self.bodies[key]
            self._book(unit, scope, minors, sign=-1)
            self.live.remove(key)

        @precondition(lambda self: self.live)
        @rule(data=st.data(), values=amounts, order=st.permutations(range(4)))
        def correct(self, data, values, order):
            key = data.draw(st.sampled_from(self.live))
            unit, scope, minors, _ = self.bodies[key]
            entries, new = self._entries(unit, values, order)
            if not any(new.values()):
                return
            new_key = key.replace(":v", ":w") + "x"
            posted = Transaction.objects.get(key=key)
            services.correct_transaction(transaction=posted, key=new_key, entries=entries, by=admin)
            services.correct_transaction(transaction=posted, key=new_key, entries=entries, by=admin)
            self._book(unit, scope, minors, sign=-1)
            self._book(unit, scope, new)
            self.live.remove(key)
            self.bodies[new_key] = (unit, scope, new, entries)
            self.live.append(new_key)

        @rule(
            unit=st.sampled_from(UNITS),
            pair=st.permutations(range(4)),
            minor=st.integers(min_value=1, max_value=10_000),
        )
        def pay(self, unit, pair, minor):
            payer, payee = players[pair[0]], players[pair[1]]
            amount = minor if unit == "points" else Decimal(minor) / 100
            payment = services.record_payment(
                club=club, payer=payer, payee=payee, amount=amount, unit=unit, by=admin
            )
            services.confirm_payment(payment=payment, by=admin)
            with pytest.raises(services.AlreadyDecided):
                services.confirm_payment(payment=payment, by=admin)
            self._book(unit, "", {payer.pk: minor, payee.pk: -minor})

        @invariant()
        def every_transaction_sums_to_zero(self):
            if connection.vendor == "postgresql":
                with connection.cursor() as cursor:
                    cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
                    cursor.execute("SET CONSTRAINTS ALL DEFERRED")
            unbalanced = Transaction.objects.annotate(
                total=Sum("entries__amount_minor"), n=Count("entries")
            ).filter(~Q(total=0) | ~Q(n=F("n_entries")))
            assert not unbalanced.exists()

        @invariant()
        def every_balance_is_the_sum_of_its_entries_and_of_the_model(self):
            # The derived rows: each named scope's, and the whole club's (scope None: every
            # scope together, the unscoped postings too), against the entries and the model.
            for unit in UNITS:
                for scope in [*(s for s in SCOPES if s), None]:
                    shown = ledger_reads.balance_minors(club=club, unit=unit, scope=scope)
                    entries = Entry.objects.filter(transaction__unit=unit)
                    if scope is not None:
                        entries = entries.filter(transaction__scope=scope)
                    added = defaultdict(int)
                    for player_id, minor in entries.values_list("player_id", "amount_minor"):
                        added[player_id] += minor
                    model = defaultdict(int)
                    for (u, s, pk), m in self.expected.items():
                        if u == unit and scope in (None, s):
                            model[pk] += m
                    assert shown == dict(added)
                    assert {k: v for k, v in shown.items() if v} == {
                        k: v for k, v in model.items() if v
                    }
                club_wide = ledger_reads.balance_minors(club=club, unit=unit)
                assert sum(club_wide.values()) == 0
            assert check.run().ok

    run_state_machine_as_test(
        Ledger, settings=settings(max_examples=30, stateful_step_count=20, deadline=None)
    )
