"""Legs: every posting keeps its debts between two people; entries follow from them; who owes
whom is the legs netted pair by pair, less the payments (between the two first, then
through chains of debts); reversals turn legs round; the database keeps legs as written
and whole; transactions posted before legs get theirs from ``manage.py ledger_legs``."""

from io import StringIO

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.db import IntegrityError, transaction

from clubs import services as club_services
from ledger import check, services
from ledger import reads as ledger_reads
from ledger import services as ledger_services
from ledger.models import Entry, Leg, Transaction
from tests.ledger_helpers import immediate_constraints, players_of, triggers_off

pytestmark = pytest.mark.django_db


@pytest.fixture
def p(people):
    return players_of(people)


def post(people, key, legs, unit="points", **options):
    return services.post_transaction(club=people["club"], unit=unit, key=key, legs=legs, **options)


def debts(people, unit="points", scope=None):
    return {
        (d.debtor.display_name, d.creditor.display_name): d.amount
        for d in ledger_reads.net_debts(club=people["club"], unit=unit, scope=scope)
    }


def pay(people, payer, payee, amount, unit="points"):
    payment = services.record_payment(
        club=people["club"], payer=payer, payee=payee, amount=amount, unit=unit, by=people["admin"]
    )
    return services.confirm_payment(payment=payment, by=people["admin"])


def test_legs_keep_their_counterparties_and_the_entries_follow(people, p):
    # ada deals; sam covers 2 quotas, pino 1; mia bets on sam's side against... nobody at
    # the table but pino, twice, once each way: one leg nets them.
    posted = post(
        people,
        "hand:1:v1",
        [(p["sam"], p["ada"], 140), (p["pino"], p["ada"], 70), (p["mia"], p["pino"], 70)]
        + [(p["pino"], p["mia"], 20)],
    )
    assert (posted.n_entries, posted.n_legs) == (4, 3)
    assert set(
        posted.legs.values_list("debtor__display_name", "creditor__display_name", "amount_minor")
    ) == {
        ("sam", "ada", 140),
        ("Zio Pino", "ada", 70),
        ("mia", "Zio Pino", 50),
    }
    assert dict(posted.entries.values_list("player__display_name", "amount_minor")) == {
        "ada": 210,
        "sam": -140,
        "Zio Pino": -20,
        "mia": -50,
    }
    assert debts(people) == {("sam", "ada"): 140, ("Zio Pino", "ada"): 70, ("mia", "Zio Pino"): 50}


def test_the_same_key_with_the_same_nets_but_other_legs_is_refused(people, p):
    post(people, "k", [(p["sam"], p["ada"], 5), (p["mia"], p["pino"], 5)])
    assert post(people, "k", [(p["mia"], p["pino"], 5), (p["sam"], p["ada"], 5)]).key == "k"
    with pytest.raises(ledger_services.KeyReused):
        post(people, "k", [(p["sam"], p["pino"], 5), (p["mia"], p["ada"], 5)])
    assert Transaction.objects.count() == 1


@pytest.mark.parametrize(
    "legs, message",
    [
        (lambda p: [(p["ada"], p["ada"], 5)], "two different people"),
        (lambda p: [(p["ada"], p["mia"], -5)], "not below zero"),
        (lambda p: [(p["ada"], p["mia"], 5), (p["mia"], p["ada"], 5)], "other than zero"),
        (lambda p: [(p["ada"], p["mia"], 0)], "other than zero"),
        (lambda p: [(p["ada"], p["mia"], 10**12), (p["ada"], p["mia"], 1)], "too large"),
        (lambda p: [(p["ada"], p["mia"])], "a debtor, a creditor and an amount"),
        (lambda p: [(p["ada"], 12, 5)], "not a player of this club"),
    ],
)
def test_bad_legs_are_refused_and_write_nothing(people, p, legs, message):
    with pytest.raises(ValidationError, match=message):
        post(people, "k", legs(p))
    assert not Transaction.objects.exists()


def test_a_reversal_turns_every_leg_round_and_a_correction_posts_new_legs(people, p):
    first = post(people, "hand:1:v1", [(p["sam"], p["ada"], 140), (p["mia"], p["pino"], 70)])
    services.correct_transaction(
        transaction=first, key="hand:1:v2", legs=[(p["ada"], p["sam"], 140)]
    )
    reversal = Transaction.objects.get(reverses=first)
    assert set(
        reversal.legs.values_list("debtor__display_name", "creditor__display_name", "amount_minor")
    ) == {
        ("ada", "sam", 140),
        ("Zio Pino", "mia", 70),
    }
    assert debts(people) == {("ada", "sam"): 140}
    (debt,) = ledger_reads.net_debts(club=people["club"], unit="points")
    # A posting and its reversal come under one label (the posting's), and cancel out.
    assert [(part.label, part.minor) for part in debt.parts] == [("hand:1:v2", 140)]
    assert check.run().ok


def test_a_payment_clears_its_pairs_debt_first_then_chains_of_debts(people, p):
    post(people, "h1", [(p["sam"], p["ada"], 100), (p["mia"], p["sam"], 60)])
    # The fewest payments: mia pays ada 60, sam pays ada 40; pair by pair, mia owes sam.
    plan = ledger_reads.settle_up_plan(club=people["club"], unit="points")
    assert {(d.debtor.display_name, d.creditor.display_name, d.minor) for d in plan} == {
        ("mia", "ada", 60),
        ("sam", "ada", 40),
    }
    pay(people, p["mia"], p["ada"], 60)  # through the chain mia -> sam -> ada
    assert debts(people) == {("sam", "ada"): 40}
    (left,) = ledger_reads.net_debts(club=people["club"], unit="points")
    assert (left.paid_minor, [part.minor for part in left.parts]) == (60, [100])
    pay(people, p["sam"], p["ada"], 50)  # 10 more than sam owed: ada owes it back
    (back,) = ledger_reads.net_debts(club=people["club"], unit="points")
    assert (back.debtor, back.creditor, back.minor, back.paid_minor) == (
        p["ada"],
        p["sam"],
        10,
        -110,
    )
    # A session's debts are what its postings made: payments are club-wide.
    post(people, "h2", [(p["pino"], p["mia"], 30)], scope="session:1")
    assert debts(people, scope="session:1") == {("Zio Pino", "mia"): 30}


def test_a_merged_guests_legs_count_as_the_members(people, p):
    post(people, "h1", [(p["pino"], p["ada"], 40), (p["mia"], p["pino"], 15)])
    post(people, "h2", [(p["pino"], p["sam"], 5)])
    club_services.merge_players(source=p["pino"], target=p["sam"])
    assert debts(people) == {("sam", "ada"): 40, ("mia", "sam"): 15}
    assert ledger_reads.balance_minors(club=people["club"], unit="points")[p["pino"].pk] == 0
    assert check.run().ok


def test_a_statement_names_the_people_of_each_entry(people, p):
    post(people, "h1", [(p["sam"], p["ada"], 140), (p["mia"], p["ada"], 70)])
    (line,) = ledger_reads.statement(player=p["ada"], unit="points").lines
    assert [(other.display_name, minor) for other, minor in line.parts] == [
        ("sam", 140),
        ("mia", 70),
    ]


def test_the_database_refuses_to_rewrite_legs_or_to_leave_them_out(people, p):
    posted = post(people, "h1", [(p["sam"], p["ada"], 5)])
    for attempt in (
        lambda: Leg.objects.filter(transaction=posted).update(amount_minor=6),
        lambda: Leg.objects.filter(transaction=posted).delete(),
    ):
        with pytest.raises(IntegrityError, match="append-only"), transaction.atomic():
            attempt()
    with pytest.raises(IntegrityError), transaction.atomic():  # no legs announced
        Transaction.objects.create(club=people["club"], unit="EUR", key="raw", n_entries=2)
        immediate_constraints()
    with pytest.raises(IntegrityError), transaction.atomic():  # legs that do not net
        tx = Transaction.objects.create(
            club=people["club"], unit="EUR", key="raw", n_entries=2, n_legs=1
        )
        Entry.objects.bulk_create(
            [
                Entry(transaction=tx, player=p["ada"], amount_minor=5),
                Entry(transaction=tx, player=p["sam"], amount_minor=-5),
            ]
        )
        Leg.objects.create(transaction=tx, debtor=p["mia"], creditor=p["ada"], amount_minor=5)
        immediate_constraints()
    with pytest.raises(IntegrityError), transaction.atomic():  # an amount beyond the bound
        tx = Transaction.objects.create(
            club=people["club"], unit="EUR", key="raw", n_entries=2, n_legs=1
        )
        Entry.objects.create(transaction=tx, player=p["ada"], amount_minor=10**13)
    assert Transaction.objects.count() == 1


def test_transactions_posted_before_legs_get_them_once(people, p):
    club = people["club"]
    services.post_transaction(club=club, unit="points", key="new", legs=[(p["sam"], p["ada"], 1)])
    with triggers_off():  # as the ledger was: entries alone
        for key, nets in [
            ("two", {"ada": -5, "mia": 5}),
            ("four", {"ada": 6, "sam": 3, "mia": -6, "pino": -3}),
        ]:
            tx = Transaction.objects.create(club=club, unit="points", key=key, n_entries=len(nets))
            Entry.objects.bulk_create(
                Entry(transaction=tx, player=p[name], amount_minor=m) for name, m in nets.items()
            )
        old = Transaction.objects.get(key="four")
        tx = Transaction.objects.create(
            club=club,
            unit="points",
            key="reversal:four",
            kind="reversal",
            reverses=old,
            n_entries=4,
        )
        Entry.objects.bulk_create(
            Entry(transaction=tx, player_id=e.player_id, amount_minor=-e.amount_minor)
            for e in old.entries.all()
        )
    assert "has no legs" in "\n".join(check.run().problems)
    out = StringIO()
    call_command("ledger_legs", stdout=out)
    assert (
        "3 of 3 transactions without legs were given theirs: 0 from the records" in out.getvalue()
    )
    assert "1 shared in proportion" in out.getvalue()
    assert check.run().ok, check.run().problems
    assert set(
        Transaction.objects.get(key="two").legs.values_list("debtor", "creditor", "amount_minor")
    ) == {(p["ada"].pk, p["mia"].pk, 5)}
    call_command("ledger_legs", stdout=out)  # again: nothing left to do
    assert Leg.objects.count() == 1 + 1 + 4 + 4
    with pytest.raises(IntegrityError), transaction.atomic():  # given once: none beyond
        Leg.objects.create(transaction=old, debtor=p["ada"], creditor=p["sam"], amount_minor=1)
        immediate_constraints()


def test_legs_are_counted_for_an_older_transaction_only_when_they_net_to_its_entries(people, p):
    with triggers_off():
        old = Transaction.objects.create(club=people["club"], unit="points", key="old", n_entries=2)
        Entry.objects.bulk_create(
            [
                Entry(transaction=old, player=p["ada"], amount_minor=5),
                Entry(transaction=old, player=p["mia"], amount_minor=-5),
            ]
        )
    Leg.objects.create(transaction=old, debtor=p["sam"], creditor=p["ada"], amount_minor=5)
    for n in (1, 2):
        with pytest.raises(IntegrityError, match="append-only"), transaction.atomic():
            Transaction.objects.filter(pk=old.pk).update(n_legs=n)
    with pytest.raises(IntegrityError, match="append-only"), transaction.atomic():
        Transaction.objects.filter(pk=old.pk).update(n_legs=1, memo="changed")
