"""The ledger's services: postings, reversals, corrections, payments, merges, statements.

Runs on SQLite here and on PostgreSQL in the integration run (the triggers are tested on
both)."""

from decimal import Decimal

import pytest
from django.apps import apps
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.db.models import ProtectedError, RestrictedError

from clubs import services as club_services
from ledger import reads as ledger_reads
from ledger import services
from ledger.models import Entry, Erasure, Kind, Payment, PaymentStatus, Transaction
from ledger.services import erase_club_ledger
from ledger.sources import Source
from tests.ledger_helpers import immediate_constraints, players_of

pytestmark = pytest.mark.django_db

EUR = "EUR"


@pytest.fixture
def p(people):
    return players_of(people)


def post(people, p, key, unit=EUR, scope="", **amounts):
    return services.post_transaction(
        club=people["club"],
        unit=unit,
        scope=scope,
        key=key,
        entries={p[name]: amount for name, amount in amounts.items()},
    )


def balances(people, unit=EUR, scope=None):
    return {
        b.player.display_name: b.amount
        for b in ledger_reads.balances(club=people["club"], unit=unit, scope=scope)
    }


# --- Posting ---------------------------------------------------------------------------------


def test_a_posting_sums_to_zero_and_shows_in_the_balances(people, p):
    posted = post(people, p, "hand:1:v1", ada=Decimal("-3.50"), mia=Decimal("2.00"), sam="1.50")
    assert posted.n_entries == 3
    assert sum(posted.entries.values_list("amount_minor", flat=True)) == 0
    assert balances(people) == {
        "mia": Decimal("2.00"),
        "sam": Decimal("1.50"),
        "ada": Decimal("-3.50"),
    }


def test_posting_the_same_key_twice_posts_once(people, p):
    first = post(people, p, "hand:1:v1", ada=-5, mia=5)
    again = post(people, p, "hand:1:v1", ada=-5, mia=5)
    assert again.pk == first.pk
    assert Transaction.objects.count() == 1
    assert balances(people) == {"mia": Decimal("5.00"), "ada": Decimal("-5.00")}


@pytest.mark.parametrize(
    "change",
    [
        {"amounts": {"ada": -4, "mia": 4}},
        {"amounts": {"ada": -5, "sam": 5}},
        {"unit": "points"},
        {"scope": "session:2"},
    ],
)
def test_the_same_key_with_a_different_body_is_refused(people, p, change):
    post(people, p, "hand:1:v1", ada=-5, mia=5)
    amounts = change.get("amounts", {"ada": -5, "mia": 5})
    with pytest.raises(services.KeyReused, match="already used for a different posting"):
        post(
            people,
            p,
            "hand:1:v1",
            unit=change.get("unit", EUR),
            scope=change.get("scope", ""),
            **amounts,
        )
    assert Transaction.objects.count() == 1


@pytest.mark.parametrize(
    "amounts, unit, message",
    [
        ({"ada": -5, "mia": 4}, EUR, "must sum to zero"),
        ({"ada": 0, "mia": 0}, EUR, "other than zero"),
        ({"ada": -5}, EUR, "at least two people"),
        ({"ada": Decimal("-0.005"), "mia": Decimal("0.005")}, EUR, "two decimal places"),
        ({"ada": -0.5, "mia": 0.5}, EUR, "decimal number"),
        ({"ada": True, "mia": -1}, EUR, "decimal number"),
        ({"ada": Decimal("-1.5"), "mia": Decimal("1.5")}, "points", "whole numbers"),
        ({"ada": -(10**13), "mia": 10**13}, "points", "too large"),
        ({"ada": -1, "mia": 1}, "eur", "ISO 4217"),
        ({"ada": -1, "mia": 1}, "XXY", "ISO 4217"),
    ],
)
def test_bad_postings_are_refused_and_write_nothing(people, p, amounts, unit, message):
    with pytest.raises(ValidationError, match=message):
        post(people, p, "hand:1:v1", unit=unit, **amounts)
    assert not Transaction.objects.exists()
    assert not Entry.objects.exists()


def test_a_player_of_another_club_or_one_merged_away_cannot_be_posted(people, p, make_user):
    stranger = club_services.add_guest(club=people["other"], display_name="Straniero")
    with pytest.raises(ValidationError, match="not a player of this club"):
        services.post_transaction(
            club=people["club"], unit=EUR, key="k1", entries={p["ada"]: -1, stranger: 1}
        )
    club_services.merge_players(source=p["pino"], target=p["mia"])
    p["pino"].refresh_from_db()
    with pytest.raises(ValidationError, match="merged into another player"):
        post(people, p, "k2", ada=-1, pino=1)


@pytest.mark.parametrize("key", ["", " padded ", "x" * 151, 42])
def test_a_posting_needs_a_proper_key(people, p, key):
    with pytest.raises(ValidationError):
        post(people, p, key, ada=-1, mia=1)


def test_units_never_mix_and_points_are_integers(people, p):
    post(people, p, "a", ada=-5, mia=5)
    post(people, p, "b", unit="points", ada=120, mia=-120)
    post(people, p, "c", unit="CHF", ada=Decimal("-0.10"), mia=Decimal("0.10"))
    assert balances(people) == {"mia": Decimal("5.00"), "ada": Decimal("-5.00")}
    assert balances(people, unit="points") == {"ada": 120, "mia": -120}
    assert all(type(v) is int for v in balances(people, unit="points").values())
    assert balances(people, unit="CHF") == {"mia": Decimal("0.10"), "ada": Decimal("-0.10")}
    assert ledger_reads.units_of(people["club"]) == ["EUR", "points", "CHF"]


def test_money_sums_are_exact(people, p):
    for n in range(30):
        post(people, p, f"k{n}", ada=Decimal("-0.10"), mia=Decimal("0.10"))
    assert balances(people) == {"mia": Decimal("3.00"), "ada": Decimal("-3.00")}


def test_a_scope_groups_postings_and_the_club_sees_them_all(people, p):
    post(people, p, "a", scope="session:1", ada=-5, mia=5)
    post(people, p, "b", scope="session:2", ada=2, sam=-2)
    assert balances(people, scope="session:1") == {"mia": 5, "ada": -5}
    assert balances(people, scope="session:2") == {"ada": 2, "sam": -2}
    assert balances(people) == {"mia": 5, "sam": -2, "ada": -3}


# --- Reversals and corrections ------------------------------------------------------------


def test_a_reversal_negates_every_entry_and_reversing_twice_posts_once(people, p):
    hand = post(people, p, "hand:1:v1", ada=-5, mia=3, sam=2)
    reversal = services.reverse_transaction(transaction=hand)
    again = services.reverse_transaction(transaction=hand)
    assert again.pk == reversal.pk
    assert reversal.kind == Kind.REVERSAL and reversal.reverses == hand
    assert reversal.key == "reversal:hand:1:v1"
    assert dict(reversal.entries.values_list("player__display_name", "amount_minor")) == {
        "ada": 500,
        "mia": -300,
        "sam": -200,
    }
    assert set(balances(people).values()) == {0}
    with pytest.raises(ValidationError, match="already reversed"):
        services.reverse_transaction(transaction=hand, key="another-key")
    assert Transaction.objects.count() == 2


def test_only_a_posting_can_be_reversed(people, p):
    hand = post(people, p, "hand:1:v1", ada=-5, mia=5)
    reversal = services.reverse_transaction(transaction=hand)
    with pytest.raises(ValidationError, match="Only a posting can be reversed"):
        services.reverse_transaction(transaction=reversal)


def test_a_correction_reverses_the_old_version_and_posts_the_new_once(people, p):
    v1 = post(people, p, "hand:1:v1", ada=-5, mia=5)
    v2 = services.correct_transaction(
        transaction=v1, key="hand:1:v2", entries={p["ada"]: -7, p["sam"]: 7}
    )
    again = services.correct_transaction(
        transaction=v1, key="hand:1:v2", entries={p["ada"]: -7, p["sam"]: 7}
    )
    assert again.pk == v2.pk
    assert Transaction.objects.count() == 3
    assert balances(people) == {"sam": 7, "mia": 0, "ada": -7}
    with pytest.raises(ValidationError, match="already corrected"):
        services.correct_transaction(
            transaction=v1, key="hand:1:v3", entries={p["ada"]: -1, p["sam"]: 1}
        )
    assert Transaction.objects.count() == 3


# --- Payments ------------------------------------------------------------------------------


def test_a_payment_counts_once_the_payee_confirms_it(people, p):
    post(people, p, "hand:1", ada=5, mia=-5)
    payment = services.record_payment(
        club=people["club"],
        payer=p["mia"],
        payee=p["ada"],
        amount="5",
        unit=EUR,
        by=people["member"],
    )
    assert payment.status == PaymentStatus.PENDING
    assert balances(people) == {"ada": 5, "mia": -5}  # no effect yet
    confirmed = services.confirm_payment(payment=payment, by=people["admin"])
    assert confirmed.status == PaymentStatus.CONFIRMED
    assert confirmed.transaction.key == f"payment:{payment.pk}"
    assert balances(people) == {"ada": 0, "mia": 0}
    with pytest.raises(services.AlreadyDecided, match="already confirmed"):
        services.confirm_payment(payment=payment, by=people["admin"])
    assert Transaction.objects.filter(kind=Kind.PAYMENT).count() == 1


def test_the_payer_cannot_confirm_their_own_payment_unless_an_admin(people, p):
    payment = services.record_payment(
        club=people["club"],
        payer=p["mia"],
        payee=p["sam"],
        amount="2.50",
        unit=EUR,
        by=people["member"],
    )
    with pytest.raises(PermissionDenied):
        services.confirm_payment(payment=payment, by=people["member"])
    services.confirm_payment(payment=payment, by=people["scorer"])  # the payee
    assert balances(people) == {"mia": Decimal("2.50"), "sam": Decimal("-2.50")}
    own = services.record_payment(
        club=people["club"], payer=p["ada"], payee=p["mia"], amount=1, unit=EUR, by=people["admin"]
    )
    assert services.confirm_payment(payment=own, by=people["admin"]).status == "confirmed"


def test_a_member_records_only_their_own_payments_a_scorer_anyones(people, p):
    with pytest.raises(PermissionDenied):
        services.record_payment(
            club=people["club"],
            payer=p["sam"],
            payee=p["ada"],
            amount=1,
            unit=EUR,
            by=people["member"],
        )
    made = services.record_payment(
        club=people["club"],
        payer=p["pino"],
        payee=p["ada"],
        amount=1,
        unit=EUR,
        by=people["scorer"],
    )
    assert made.recorded_by == people["scorer"]
    with pytest.raises(PermissionDenied):  # an outsider of a public club sees it, may not act
        services.record_payment(
            club=people["club"],
            payer=p["pino"],
            payee=p["ada"],
            amount=1,
            unit=EUR,
            by=people["outsider"],
        )


@pytest.mark.parametrize(
    "field, change, message",
    [
        ("payee", {"payee": "mia"}, "two different people"),
        ("amount", {"amount": "0"}, "more than zero"),
        ("amount", {"amount": "-3"}, "more than zero"),
        ("amount", {"amount": "1.234"}, "two decimal places"),
        ("unit", {"unit": "dollars"}, "ISO 4217"),
    ],
)
def test_bad_payments_are_refused_naming_the_field(people, p, field, change, message):
    args = {"payer": "mia", "payee": "ada", "amount": "3", "unit": EUR, **change}
    with pytest.raises(ValidationError, match=message) as refused:
        services.record_payment(
            club=people["club"],
            payer=p[args["payer"]],
            payee=p[args["payee"]],
            amount=args["amount"],
            unit=args["unit"],
            by=people["member"],
        )
    assert field in refused.value.message_dict
    assert not Payment.objects.exists()


def test_a_cancelled_payment_cannot_be_confirmed(people, p):
    payment = services.record_payment(
        club=people["club"], payer=p["mia"], payee=p["ada"], amount=1, unit=EUR, by=people["member"]
    )
    services.cancel_payment(payment=payment, by=people["member"])
    with pytest.raises(services.AlreadyDecided, match="cancelled"):
        services.confirm_payment(payment=payment, by=people["admin"])
    assert not Transaction.objects.exists()


def test_a_bystander_member_cannot_cancel_someone_elses_payment(people, p, make_user):
    payment = services.record_payment(
        club=people["club"],
        payer=p["pino"],
        payee=p["ada"],
        amount=1,
        unit=EUR,
        by=people["scorer"],
    )
    with pytest.raises(PermissionDenied):
        services.cancel_payment(payment=payment, by=people["member"])
    assert services.cancel_payment(payment=payment, by=people["scorer"]).status == "cancelled"


# --- Guest merges ------------------------------------------------------------------------


def test_merging_a_guest_carries_their_balances_to_the_member(people, p):
    post(people, p, "a", scope="session:1", pino=-5, ada=5)
    post(people, p, "b", unit="points", pino=40, sam=-40)
    post(people, p, "c", pino=3, mia=-3)
    pending = services.record_payment(
        club=people["club"],
        payer=p["pino"],
        payee=p["ada"],
        amount=1,
        unit=EUR,
        by=people["scorer"],
    )

    club_services.merge_players(source=p["pino"], target=p["mia"])

    carried = Transaction.objects.filter(kind=Kind.CARRY)
    assert sorted(carried.values_list("key", flat=True)) == [
        f"merge:{p['pino'].pk}:{p['mia'].pk}:EUR:",
        f"merge:{p['pino'].pk}:{p['mia'].pk}:EUR:session:1",
        f"merge:{p['pino'].pk}:{p['mia'].pk}:points:",
    ]
    assert balances(people) == {"ada": 5, "mia": -5}
    assert balances(people, scope="session:1") == {"ada": 5, "mia": -5}
    assert balances(people, unit="points") == {"mia": 40, "sam": -40}
    guest = ledger_reads.statement(player=p["pino"], unit=EUR)
    assert guest.balance == 0
    assert [line.description for line in guest.lines[-2:]] == ["Balance carried over to mia"] * 2
    member = ledger_reads.statement(player=p["mia"], unit="points")
    assert [line.description for line in member.lines] == ["Balance carried over from Zio Pino"]
    assert Entry.objects.filter(player=p["pino"]).count() == 6  # never rewritten
    pending.refresh_from_db()
    assert pending.status == PaymentStatus.CANCELLED


def test_a_guest_without_a_ledger_merges_without_postings(people, p):
    club_services.merge_players(source=p["pino"], target=p["mia"])
    assert not Transaction.objects.exists()


# --- Reading -----------------------------------------------------------------------------


def test_a_statement_has_every_entry_its_source_and_the_running_balance(people, p, monkeypatch):
    # For this test only, "hand" is described by this stand-in of the Singapore feature's.
    hands = ("hand", lambda club, ids: {i: Source(f"Hand {i}", f"/hands/{i}/") for i in ids})
    monkeypatch.setattr(apps.get_app_config("matches"), "ledger_sources", (hands,))
    services.post_transaction(
        club=people["club"],
        unit=EUR,
        key="hand:7:v1",
        source="hand:7",
        memo="Mano 7",  # the poster's words; the describer speaks the reader's language
        entries={p["mia"]: -4, p["ada"]: 4},
    )
    services.post_transaction(
        club=people["club"],
        unit=EUR,
        key="bet",
        memo="A bet",
        entries={p["mia"]: 10, p["sam"]: -10},
    )
    payment = services.record_payment(
        club=people["club"], payer=p["mia"], payee=p["ada"], amount=4, unit=EUR, by=people["member"]
    )
    services.confirm_payment(payment=payment, by=people["admin"])
    lines = ledger_reads.statement(player=p["mia"], unit=EUR).lines
    assert [(line.description, line.url, line.amount, line.balance) for line in lines] == [
        ("Hand 7", "/hands/7/", Decimal("-4.00"), Decimal("-4.00")),
        ("A bet", None, Decimal("10.00"), Decimal("6.00")),
        ("Payment to ada", None, Decimal("4.00"), Decimal("10.00")),
    ]
    ada = ledger_reads.statement(player=p["ada"], unit=EUR)
    assert ada.lines[-1].description == "Payment from mia"
    assert ada.balance == 0


def test_pairwise_debts_follow_each_transaction_and_add_up_to_the_balances(people, p):
    post(people, p, "a", unit="points", ada=10, sam=5, mia=-9, pino=-6)
    post(people, p, "b", unit="points", mia=4, ada=-4)
    debts = {
        (d.debtor.display_name, d.creditor.display_name): d.amount
        for d in ledger_reads.net_debts(club=people["club"], unit="points")
    }
    assert debts == {
        ("Zio Pino", "ada"): 4,
        ("mia", "sam"): 3,
        ("Zio Pino", "sam"): 2,
        ("mia", "ada"): 2,
    }
    net = dict.fromkeys(["ada", "sam", "mia", "Zio Pino"], 0)
    for (debtor, creditor), amount in debts.items():
        net[debtor] -= amount
        net[creditor] += amount
    assert net == {k: v for k, v in balances(people, unit="points").items()}


def test_the_settle_up_plan_clears_every_balance_with_the_fewest_payments(people, p):
    post(people, p, "a", ada=10, sam=-4, mia=-6)
    post(people, p, "b", pino=3, ada=-3)
    plan = ledger_reads.settle_up_plan(club=people["club"], unit=EUR)
    assert len(plan) == 3
    left = {
        name: minor
        for name, minor in ledger_reads.balance_minors(club=people["club"], unit=EUR).items()
    }
    for payment in plan:
        left[payment.debtor.pk] += payment.minor
        left[payment.creditor.pk] -= payment.minor
    assert set(left.values()) == {0}


# --- Deleting, and the database's own refusals --------------------------------------------


def test_a_club_with_a_ledger_cannot_be_deleted_until_its_ledger_is_erased(people, p):
    hand = post(people, p, "a", ada=-5, mia=5)
    services.reverse_transaction(transaction=hand)
    payment = services.record_payment(
        club=people["club"], payer=p["mia"], payee=p["ada"], amount=1, unit=EUR, by=people["member"]
    )
    services.confirm_payment(payment=payment, by=people["admin"])
    with pytest.raises(ProtectedError):
        people["club"].delete()
    erasure = erase_club_ledger(club=people["club"], by=people["admin"])
    assert (erasure.transactions, erasure.payments) == (3, 1)
    assert erasure.finished_at is not None
    people["club"].delete()
    assert not Transaction.objects.exists() and not Entry.objects.exists()
    assert Erasure.objects.get().club_name == "Circolo Alfa"


def test_a_player_with_entries_cannot_be_deleted_alone(people, p):
    post(people, p, "a", pino=-5, mia=5)
    with pytest.raises(RestrictedError):
        p["pino"].delete()


def test_the_database_refuses_to_update_or_delete_entries_and_transactions(people, p):
    posted = post(people, p, "a", ada=-5, mia=5)
    refused = [
        lambda: Entry.objects.filter(transaction=posted).update(amount_minor=0),
        lambda: Entry.objects.filter(transaction=posted).delete(),
        lambda: Transaction.objects.filter(pk=posted.pk).update(memo="changed"),
        lambda: Transaction.objects.filter(pk=posted.pk).update(key="other", created_by=None),
        lambda: Transaction.objects.filter(pk=posted.pk).delete(),
    ]
    for attempt in refused:
        with pytest.raises(IntegrityError, match="append-only"), transaction.atomic():
            attempt()
    assert dict(posted.entries.values_list("player__display_name", "amount_minor")) == {
        "ada": -500,
        "mia": 500,
    }


def test_a_deleted_users_postings_stay_without_a_name(people, p, make_user):
    clerk = make_user("clerk")
    posted = services.post_transaction(
        club=people["club"], unit=EUR, key="a", entries={p["ada"]: -1, p["mia"]: 1}, by=clerk
    )
    clerk.delete()
    posted.refresh_from_db()
    assert posted.created_by is None
    assert posted.key == "a"


def test_the_database_refuses_a_transaction_that_does_not_sum_to_zero(people, p):
    with pytest.raises(IntegrityError), transaction.atomic():
        tx = Transaction.objects.create(club=people["club"], unit=EUR, key="raw", n_entries=2)
        Entry.objects.bulk_create(
            [
                Entry(transaction=tx, player=p["ada"], amount_minor=-5),
                Entry(transaction=tx, player=p["mia"], amount_minor=4),
            ]
        )
        immediate_constraints()
    with pytest.raises(IntegrityError), transaction.atomic():
        tx = Transaction.objects.create(club=people["club"], unit=EUR, key="raw", n_entries=2)
        Entry.objects.bulk_create(
            [
                Entry(transaction=tx, player=p["ada"], amount_minor=-5),
                Entry(transaction=tx, player=p["mia"], amount_minor=5),
                Entry(transaction=tx, player=p["sam"], amount_minor=0),
            ]
        )
        immediate_constraints()
    assert not Transaction.objects.exists()
