"""Who owes whom as derived rows (``ledger.models.PairDebt``, ``PairPart``): kept by the legs'
trigger, read in the same few queries whatever the history, a payment's chain recorded in its
legs (``ledger.pairs``), compared by ``ledger_check`` and made again by ``recompute_stats``."""

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from clubs import merge
from ledger import check, services
from ledger import reads as ledger_reads
from ledger.models import WHOLE_CLUB, Kind, PairDebt, Transaction
from tests.ledger_helpers import players_of

pytestmark = pytest.mark.django_db


def pay(club, payer, payee, minor, by):
    payment = services.record_payment(
        club=club, payer=payer, payee=payee, amount=minor, unit="points", by=by
    )
    return services.confirm_payment(payment=payment, by=by)


def owed(club, scope=None):
    return {
        (d.debtor.display_name, d.creditor.display_name): d.minor
        for d in ledger_reads.net_debts(club=club, unit="points", scope=scope)
    }


def test_a_payment_through_a_chain_posts_the_chains_legs_and_clears_it(people):
    p, club = players_of(people), people["club"]
    services.post_transaction(
        club=club, unit="points", key="h", legs=[(p["mia"], p["sam"], 30), (p["sam"], p["ada"], 50)]
    )
    payment = pay(club, p["mia"], p["ada"], 40, people["admin"])
    legs = set(payment.transaction.legs.values_list("debtor_id", "creditor_id", "amount_minor"))
    # 30 through sam (sam owes mia what mia owed him; ada owes sam), 10 left: ada owes mia.
    assert legs == {
        (p["sam"].pk, p["mia"].pk, 30),
        (p["ada"].pk, p["sam"].pk, 30),
        (p["ada"].pk, p["mia"].pk, 10),
    }
    entries = dict(payment.transaction.entries.values_list("player_id", "amount_minor"))
    assert entries == {p["mia"].pk: 40, p["ada"].pk: -40}  # sam is even: no entry
    assert owed(club) == {("sam", "ada"): 20, ("ada", "mia"): 10}
    assert check.run().ok, check.run().problems


def test_who_owes_whom_costs_the_same_queries_whatever_the_history(people):
    p, club = players_of(people), people["club"]

    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            ledger_reads.net_debts(club=club, unit="points", parts=5)
        return len(captured)

    services.post_transaction(club=club, unit="points", key="a", legs=[(p["mia"], p["ada"], 1)])
    few = queries()
    start = timezone.now()
    services.post_many(
        [
            services.Posting(
                club=club,
                unit="points",
                key=f"b{n}",
                source=f"x:{n}",
                legs=[(p["sam"], p["ada"], 1)],
                at=start + timedelta(minutes=n),
            )
            for n in range(200)
        ]
    )
    assert queries() == few
    debts = {d.debtor.pk: d for d in ledger_reads.net_debts(club=club, unit="points", parts=5)}
    sam = debts[p["sam"].pk]
    assert (sam.minor, sam.earlier, len(sam.parts)) == (200, True, 5)
    assert [part.label for part in sam.parts] == [f"x:{n}" for n in range(195, 200)]
    assert not debts[p["mia"].pk].earlier
    every = ledger_reads.net_debts(club=club, unit="points")
    assert max(len(d.parts) for d in every) == 200  # the API's: every part
    assert not any(d.earlier for d in every)


def test_a_scope_has_its_own_pairs_without_the_payments(people):
    p, club = players_of(people), people["club"]
    services.post_transaction(
        club=club, unit="points", key="s1", scope="session:1", legs=[(p["mia"], p["ada"], 8)]
    )
    services.post_transaction(club=club, unit="points", key="u", legs=[(p["mia"], p["ada"], 2)])
    pay(club, p["mia"], p["ada"], 10, people["admin"])
    assert owed(club) == {}
    assert owed(club, "session:1") == {("mia", "ada"): 8}
    whole = PairDebt.objects.get(club=club, scope=WHOLE_CLUB)
    assert (whole.posted_minor, whole.paid_minor) != (0, 0)


def test_a_merged_guests_pairs_read_as_the_members(people):
    p, club = players_of(people), people["club"]
    services.post_transaction(club=club, unit="points", key="g", legs=[(p["pino"], p["ada"], 5)])
    services.post_transaction(club=club, unit="points", key="m", legs=[(p["mia"], p["ada"], 3)])
    services.post_transaction(club=club, unit="points", key="x", legs=[(p["pino"], p["mia"], 4)])
    merge.merge_players(source=p["pino"], target=p["mia"])
    assert owed(club) == {("mia", "ada"): 8}
    assert check.run().ok, check.run().problems


def test_ledger_check_finds_a_pair_apart_and_recompute_stats_makes_it_again(people):
    p, club = players_of(people), people["club"]
    services.post_transaction(
        club=club, unit="points", key="h", scope="session:3", legs=[(p["mia"], p["ada"], 4)]
    )
    PairDebt.objects.filter(club=club, scope=WHOLE_CLUB).update(posted_minor=9)
    problems = "\n".join(check.run().problems)
    assert "derived pair" in problems and "[9, 0] kept" in problems
    call_command("recompute_stats", club=club.slug, stdout=StringIO())
    assert check.run().ok, check.run().problems
    assert owed(club) == {("mia", "ada"): 4}
    assert Transaction.objects.filter(kind=Kind.POSTING).count() == 1


def test_the_payment_form_offers_the_ledgers_people_not_the_whole_club(people, client):
    p, club = players_of(people), people["club"]
    services.post_transaction(club=club, unit="points", key="h", legs=[(p["mia"], p["sam"], 30)])
    stranger = club.players.create(display_name="Zeno Forestiero")
    client.force_login(people["admin"])
    page = client.get(f"/clubs/{club.slug}/ledger/?unit=points").content.decode()
    payee = page[page.index('name="payee"') :]
    payee = payee[: payee.index("</select>")]
    assert p["mia"].display_name in payee and p["sam"].display_name in payee
    assert stranger.display_name not in payee
