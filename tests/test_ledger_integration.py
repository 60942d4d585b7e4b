"""The ledger on a real PostgreSQL (the integration run): fifty posts of one transaction at
the same moment post it once; fifty confirmations of one payment post it once; the database
itself refuses to update or delete entries, to commit a transaction that does not sum to
zero or lacks an entry, and to add an entry to a transaction already committed or not yet
committed by another connection. Elsewhere these tests skip (under CI=true without
PostgreSQL they fail, as the integration run itself does)."""

import threading

import pytest
from django.db import IntegrityError, connection, connections, transaction
from django.utils import timezone

from ledger import reads as ledger_reads
from ledger import services
from ledger.models import CheckRun, Entry, Erasure, Leg, Payment, Transaction
from ledger.services import erase_club_ledger
from plumbing import bulk
from tests.ledger_helpers import players_of

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

THREADS = 50


@pytest.fixture(autouse=True)
def _postgresql():
    if connection.vendor != "postgresql":
        pytest.skip(
            "concurrent writers and deferred triggers need PostgreSQL (the integration run)"
        )


def at_once(work, n: int = THREADS) -> list:
    """Run ``work(i)`` in ``n`` threads released together; each result or exception, in order."""
    barrier = threading.Barrier(n)
    outcomes: list = [None] * n

    def run(i):
        from django.utils import translation

        try:
            barrier.wait(30)
            with translation.override("en"):
                outcomes[i] = work(i)
        except Exception as error:  # noqa: BLE001 - collected and asserted on below
            outcomes[i] = error
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    return outcomes


def test_fifty_posts_of_the_same_transaction_at_once_post_it_once(people):
    p = players_of(people)
    club = people["club"]

    def post(i):
        return services.post_transaction(
            club=club, unit="EUR", key="hand:1:v1", entries={p["ada"]: "-2.50", p["mia"]: "2.50"}
        ).pk

    outcomes = at_once(post)
    assert all(isinstance(o, int) for o in outcomes), [
        o for o in outcomes if not isinstance(o, int)
    ]
    assert len(set(outcomes)) == 1
    assert Transaction.objects.count() == 1
    assert Entry.objects.count() == 2
    assert ledger_reads.balance_minors(club=club, unit="EUR") == {
        p["ada"].pk: -250,
        p["mia"].pk: 250,
    }


def test_at_the_same_moment_a_different_body_under_the_same_key_is_refused(people):
    p = players_of(people)
    club = people["club"]

    def post(i):
        amount = 1 + i % 2  # two bodies race for one key
        return services.post_transaction(
            club=club, unit="points", key="k", entries={p["ada"]: -amount, p["mia"]: amount}
        ).pk

    outcomes = at_once(post)
    posted = [o for o in outcomes if isinstance(o, int)]
    refused = [o for o in outcomes if isinstance(o, services.KeyReused)]
    assert len(posted) + len(refused) == THREADS, outcomes
    assert len(set(posted)) == 1 and refused
    assert Transaction.objects.count() == 1


def test_fifty_confirmations_of_one_payment_at_once_post_it_once(people):
    p = players_of(people)
    payment = services.record_payment(
        club=people["club"],
        payer=p["mia"],
        payee=p["ada"],
        amount="3",
        unit="EUR",
        by=people["member"],
    )

    def confirm(i):
        return services.confirm_payment(payment=payment, by=people["admin"]).status

    outcomes = at_once(confirm)
    assert outcomes.count("confirmed") == 1, outcomes
    assert sum(isinstance(o, services.AlreadyDecided) for o in outcomes) == THREADS - 1
    assert Transaction.objects.filter(key=f"payment:{payment.pk}").count() == 1
    assert Payment.objects.get().status == "confirmed"


@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE ledger_entry SET amount_minor = 0",
        "UPDATE ledger_entry SET player_id = player_id",
        "DELETE FROM ledger_entry",
        "UPDATE ledger_transaction SET memo = 'rewritten'",
        "DELETE FROM ledger_transaction",
    ],
)
def test_postgresql_refuses_to_update_or_delete_the_ledger(people, sql):
    p = players_of(people)
    services.post_transaction(
        club=people["club"], unit="EUR", key="h", entries={p["ada"]: -1, p["mia"]: 1}
    )
    with pytest.raises(IntegrityError, match="append-only"):
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(sql)
    assert sorted(Entry.objects.values_list("amount_minor", flat=True)) == [-100, 100]
    assert Transaction.objects.get().memo == ""


def test_postgresql_refuses_to_commit_a_transaction_that_does_not_sum_to_zero(people):
    p = players_of(people)
    with pytest.raises(IntegrityError, match="summing to zero"):
        with transaction.atomic():  # the deferred trigger runs at this commit
            tx = Transaction.objects.create(club=people["club"], unit="EUR", key="x", n_entries=2)
            Entry.objects.create(transaction=tx, player=p["ada"], amount_minor=-5)
            Entry.objects.create(transaction=tx, player=p["mia"], amount_minor=4)
    with pytest.raises(IntegrityError, match="must have its 2 entries"):
        with transaction.atomic():
            Transaction.objects.create(club=people["club"], unit="EUR", key="y", n_entries=2)
    assert not Transaction.objects.exists()


def test_postgresql_refuses_an_entry_added_to_a_committed_transaction(people):
    p = players_of(people)
    posted = services.post_transaction(
        club=people["club"], unit="EUR", key="h", entries={p["ada"]: -1, p["mia"]: 1}
    )
    for amounts in ([0], [-3, 3]):  # a zero, or a pair that keeps the sum at zero
        with pytest.raises(IntegrityError, match="no entry beyond them"):
            with transaction.atomic():
                Entry.objects.bulk_create(
                    Entry(transaction=posted, player=who, amount_minor=amount)
                    for who, amount in zip([p["sam"], p["pino"]], amounts, strict=False)
                )
    assert posted.entries.count() == 2


def test_postgresql_refuses_entries_for_a_transaction_another_has_not_committed(people):
    p = players_of(people)
    created, refused = threading.Event(), threading.Event()

    def open_a_transaction():
        try:
            with transaction.atomic():
                tx = Transaction.objects.create(
                    club=people["club"], unit="EUR", key="open", n_entries=2, n_legs=1
                )
                Entry.objects.create(transaction=tx, player=p["ada"], amount_minor=-5)
                Entry.objects.create(transaction=tx, player=p["mia"], amount_minor=5)
                Leg.objects.create(
                    transaction=tx, debtor=p["ada"], creditor=p["mia"], amount_minor=5
                )
                outcomes["id"] = tx.pk
                created.set()
                refused.wait(30)
        finally:
            connections.close_all()

    outcomes: dict = {}
    other = threading.Thread(target=open_a_transaction)
    other.start()
    try:
        assert created.wait(30)
        with pytest.raises(IntegrityError, match="not yet committed"):
            with transaction.atomic():
                Entry.objects.create(transaction_id=outcomes["id"], player=p["sam"], amount_minor=0)
        with pytest.raises(IntegrityError, match="not yet committed"):
            with transaction.atomic():
                Leg.objects.create(
                    transaction_id=outcomes["id"],
                    debtor=p["sam"],
                    creditor=p["ada"],
                    amount_minor=1,
                )
    finally:
        refused.set()
        other.join(30)
    amounts = Transaction.objects.get().entries.values_list("amount_minor", flat=True)
    assert sorted(amounts) == [-5, 5]


def test_postgresql_checks_each_transaction_of_a_bulk_posting_at_commit(people):
    p = players_of(people)
    rows = [
        (
            people["club"].pk,
            "EUR",
            "",
            f"k{i}",
            "posting",
            "",
            "",
            2,
            1,
            timezone.now(),
            None,
            timezone.now(),
        )
        for i in range(3)
    ]
    with pytest.raises(IntegrityError, match="must have its 2 entries, summing to zero"):
        with transaction.atomic():
            ids = bulk.insert(Transaction, services.TRANSACTION_FIELDS, rows, returning=True)
            bulk.insert(
                Entry,
                ("transaction", "player", "amount_minor"),
                [(ids[0], p["ada"].pk, -1), (ids[0], p["mia"].pk, 1)]  # whole
                + [(ids[1], p["ada"].pk, -1), (ids[1], p["mia"].pk, 2)]  # not zero
                + [(ids[2], p["ada"].pk, -1)],  # short of an entry
            )
            bulk.insert(
                Leg,
                ("transaction", "debtor", "creditor", "amount_minor"),
                [(tx_id, p["ada"].pk, p["mia"].pk, 1) for tx_id in ids],
            )
    assert not Transaction.objects.exists()


def test_pgtrigger_ignore_does_not_skip_the_ledgers_triggers(people):
    import pgtrigger

    p = players_of(people)
    services.post_transaction(
        club=people["club"], unit="EUR", key="h", entries={p["ada"]: -1, p["mia"]: 1}
    )
    with pytest.raises(IntegrityError, match="append-only"):
        with (
            pgtrigger.ignore("ledger.Entry:ledger_entry_append_only"),
            transaction.atomic(),
        ):
            Entry.objects.update(amount_minor=0)
    assert sorted(Entry.objects.values_list("amount_minor", flat=True)) == [-100, 100]


def test_erasing_a_clubs_ledger_commits_and_the_club_can_go(people):
    p = players_of(people)
    services.post_transaction(
        club=people["club"], unit="EUR", key="h", entries={p["ada"]: -1, p["mia"]: 1}
    )
    erase_club_ledger(club=people["club"], by=people["admin"])
    people["club"].delete()
    assert not Transaction.objects.exists()


def raw(people, key, entries, legs, n_legs="count"):
    """A transaction written row by row, as only a bug or a hand at the console would."""
    p = players_of(people)
    tx = Transaction.objects.create(
        club=people["club"],
        unit="EUR",
        key=key,
        n_entries=len(entries),
        n_legs=len(legs) if n_legs == "count" else n_legs,
    )
    Entry.objects.bulk_create(
        Entry(transaction=tx, player=p[n], amount_minor=m) for n, m in entries
    )
    Leg.objects.bulk_create(
        Leg(transaction=tx, debtor=p[d], creditor=p[c], amount_minor=m) for d, c, m in legs
    )
    return tx


@pytest.mark.parametrize(
    "entries, legs, n_legs, message",
    [
        ([("ada", 5), ("mia", -5)], [], None, "must have its <NULL> legs"),
        ([("ada", 5), ("mia", -5)], [("mia", "ada", 5)], 2, "must have its 2 legs"),
        ([("ada", 5), ("mia", -5)], [("sam", "ada", 5)], "count", "2 people do not net"),
        (
            [("ada", 0), ("mia", 0)],
            [("sam", "ada", 5), ("ada", "mia", 5), ("mia", "sam", 5)],  # a circle
            "count",
            "moves nothing",
        ),
    ],
)
def test_postgresql_refuses_to_commit_a_transaction_without_its_legs(
    people, entries, legs, n_legs, message
):
    with pytest.raises(IntegrityError, match=message):
        with transaction.atomic():  # the deferred trigger runs at this commit
            raw(people, "x", entries, legs, n_legs)
    assert not Transaction.objects.exists()


def test_postgresql_refuses_a_leg_added_to_a_committed_transaction(people):
    p = players_of(people)
    posted = services.post_transaction(
        club=people["club"], unit="EUR", key="h", legs=[(p["ada"], p["mia"], 1)]
    )
    with pytest.raises(IntegrityError, match="no leg beyond them"):
        with transaction.atomic():
            Leg.objects.create(
                transaction=posted, debtor=p["sam"], creditor=p["pino"], amount_minor=1
            )
    assert posted.legs.count() == 1


def test_postgresql_refuses_amounts_beyond_the_services_bound(people):
    with pytest.raises(IntegrityError, match="ledger_entry_amount_bounded"):
        with transaction.atomic():
            raw(people, "x", [("ada", 10**12 + 1), ("mia", -(10**12) - 1)], [("mia", "ada", 1)])
    with pytest.raises(IntegrityError, match="ledger_leg_amount_positive_bounded"):
        with transaction.atomic():
            raw(people, "x", [("ada", 5), ("mia", -5)], [("mia", "ada", 10**12 + 1)])


def test_postgresql_keeps_erasures_and_check_runs_as_written(people):
    CheckRun.objects.create(ok=True)
    Erasure.objects.create(club_id=0, club_name="Circolo Fantasma")
    for sql in [
        "UPDATE ledger_checkrun SET ok = false",
        "DELETE FROM ledger_checkrun",
        "UPDATE ledger_erasure SET club_name = 'Altro'",
        "DELETE FROM ledger_erasure",
    ]:
        with pytest.raises(IntegrityError, match="append-only|kept as written"):
            with transaction.atomic(), connection.cursor() as cursor:
                cursor.execute(sql)
    assert CheckRun.objects.get().ok and Erasure.objects.get().club_name == "Circolo Fantasma"
