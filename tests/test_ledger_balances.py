"""The derived balances (``ledger.models.Balance``): kept by the entries' trigger in each
posting's own transaction, per scope and for the whole club, whatever writes the entries
(a posting, a reversal, a payment, a bulk import); read in one query whatever the history;
compared by ``ledger_check`` and made again from scratch by ``recompute_stats``."""

from io import StringIO

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from ledger import check, services
from ledger import reads as ledger_reads
from ledger.models import WHOLE_CLUB, Balance
from tests.ledger_helpers import players_of

pytestmark = pytest.mark.django_db


def kept(club, unit, scope=WHOLE_CLUB) -> dict[int, int]:
    return dict(
        Balance.objects.filter(club=club, unit=unit, scope=scope).values_list("player_id", "minor")
    )


def test_every_writer_of_entries_moves_the_rows_of_its_scope_and_of_the_whole_club(people):
    p, club = players_of(people), people["club"]
    ada, mia, sam, pino = (p[n].pk for n in ("ada", "mia", "sam", "pino"))
    hand = services.post_transaction(
        club=club, unit="points", key="h1", scope="session:1", legs=[(p["mia"], p["ada"], 7)]
    )
    services.post_transaction(
        club=club, unit="points", key="h2", scope="session:2", legs=[(p["sam"], p["ada"], 2)]
    )
    services.post_many(
        [
            services.Posting(club=club, unit="points", key=f"i{n}", legs=[(p["pino"], p["mia"], 1)])
            for n in range(3)
        ]
    )
    assert kept(club, "points", "session:1") == {ada: 7, mia: -7}
    assert kept(club, "points", "session:2") == {ada: 2, sam: -2}
    assert kept(club, "points") == {ada: 9, mia: -4, sam: -2, pino: -3}
    services.reverse_transaction(transaction=hand)
    assert kept(club, "points", "session:1") == {ada: 0, mia: 0}
    assert kept(club, "points") == {ada: 2, mia: 3, sam: -2, pino: -3}
    payment = services.record_payment(
        club=club, payer=p["mia"], payee=p["ada"], amount="1.50", unit="EUR", by=people["member"]
    )
    assert kept(club, "EUR") == {}  # pending: nothing posted yet
    services.confirm_payment(payment=payment, by=people["admin"])
    assert kept(club, "EUR") == {mia: 150, ada: -150}
    assert ledger_reads.balance_minors(club=club, unit="points") == kept(club, "points")
    assert check.run().ok, check.run().problems


def test_a_balance_is_one_query_whatever_the_history(people):
    p, club = players_of(people), people["club"]

    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            ledger_reads.balance_minors(club=club, unit="points")
        return len(captured)

    services.post_transaction(club=club, unit="points", key="a", legs=[(p["mia"], p["ada"], 1)])
    few = queries()
    services.post_many(
        [
            services.Posting(club=club, unit="points", key=f"b{n}", legs=[(p["sam"], p["ada"], 1)])
            for n in range(200)
        ]
    )
    assert queries() == few == 1
    assert ledger_reads.balance_minors(club=club, unit="points")[p["ada"].pk] == 201


def test_ledger_check_finds_a_derived_row_apart_and_recompute_stats_makes_it_again(people):
    p, club = players_of(people), people["club"]
    services.post_transaction(
        club=club, unit="points", key="h", scope="session:3", legs=[(p["mia"], p["ada"], 4)]
    )
    Balance.objects.filter(club=club, scope=WHOLE_CLUB, player=p["ada"]).update(minor=5)
    Balance.objects.filter(club=club, scope="session:3", player=p["mia"]).delete()
    problems = "\n".join(check.run().problems)
    assert f"derived balance of player {p['ada'].pk}" in problems and "5 kept, 4" in problems
    assert f"derived balance of player {p['mia'].pk}" in problems and "None kept, -4" in problems
    out = StringIO()
    call_command("recompute_stats", club=club.slug, stdout=out)
    assert f"{club.slug}: ledger balances and pairs: 8 rows" in out.getvalue()  # 4 + 2 + 2
    assert check.run().ok, check.run().problems
    assert kept(club, "points", "session:3") == {p["ada"].pk: 4, p["mia"].pk: -4}
