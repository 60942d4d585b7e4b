"""Helpers for the ledger's tests: the people of the ``people`` fixture as players, and a
way to step past the append-only triggers to plant a mismatch for ``ledger_check``."""

from contextlib import contextmanager

from django.db import connection

from clubs.models import Club
from ledger import services
from ledger.models import Transaction
from ledger.triggers import SQLITE_TRIGGERS, install_sqlite

TABLES = ["ledger_entry", "ledger_leg", "ledger_transaction", "ledger_erasure", "ledger_checkrun"]


def players_of(people) -> dict[str, object]:
    club = people["club"]
    return {
        "ada": club.players.get(user=people["admin"]),
        "sam": club.players.get(user=people["scorer"]),
        "mia": club.players.get(user=people["member"]),
        "pino": people["guest"],
    }


@contextmanager
def triggers_off():
    """Drop (SQLite) or disable (PostgreSQL) the ledger's triggers inside the test's own
    transaction; they are back on when the block ends, and the derived balances are made
    again from the entries as they then are (as the migration that began them did for the
    entries before it), so that a planted mismatch is the only one."""
    with connection.cursor() as cursor:
        if connection.vendor == "sqlite":
            for name in SQLITE_TRIGGERS:
                cursor.execute(f"DROP TRIGGER IF EXISTS {name}")
        else:
            # Pending deferred checks first: PostgreSQL alters no table with events queued.
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
            cursor.execute("SET CONSTRAINTS ALL DEFERRED")
            for table in TABLES:
                cursor.execute(f"ALTER TABLE {table} DISABLE TRIGGER USER")
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            if connection.vendor == "sqlite":

                class Editor:
                    def __init__(self, connection):
                        self.connection = connection

                    def execute(self, sql):
                        cursor.execute(sql)

                install_sqlite(None, Editor(connection))
            else:
                cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # the foreign keys' checks
                cursor.execute("SET CONSTRAINTS ALL DEFERRED")
                for table in TABLES:
                    cursor.execute(f"ALTER TABLE {table} ENABLE TRIGGER USER")
        for club_id in set(Transaction.objects.values_list("club_id", flat=True)):
            services.rebuild_balances(club=Club.objects.get(pk=club_id))


def immediate_constraints() -> None:
    """PostgreSQL checks the deferred zero-sum triggers at commit, which a test inside a
    transaction never reaches: run them now."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
