"""The database's own refusal to rewrite the ledger, on PostgreSQL and on SQLite.

What both databases refuse (an ``IntegrityError`` in Django on either):

- any ``UPDATE`` of an entry;
- any ``UPDATE`` of a transaction, but one: ``created_by`` set to NULL with nothing else
  changed (a deleted user's postings stay, anonymous: the foreign key's ``SET_NULL``);
- any ``DELETE`` of an entry or a transaction, unless an :class:`~ledger.models.Erasure` of
  its club is open in the same database transaction (``services.erase_club_ledger`` opens
  and closes it; other connections never see it open);
- a transaction whose entries do not sum to zero, or are not ``n_entries`` in number. On
  PostgreSQL a deferred constraint trigger on the transaction checks both at commit, once
  per transaction in one query (an entry-less transaction cannot commit either), and a
  statement-level trigger on the entries refuses, as each INSERT or COPY ends, an entry
  beyond its transaction's ``n_entries`` or for a transaction this database transaction
  cannot see: a committed transaction has all its entries and loses none, so no entry can
  be added to it later. On SQLite, which has no deferred triggers, the check runs when the
  last announced entry is inserted and refuses any entry beyond (a transaction left short
  of its entries is found by ``ledger_check``).

``TRUNCATE`` is not refused (a database administrator's tool, and the test runner's flush).

PostgreSQL: the triggers are declared on the models (``Meta.triggers``) and installed by
django-pgtrigger's migration operations, which do nothing on other databases. SQLite: the
migration ``0002_sqlite_triggers`` runs :func:`install_sqlite` (which does nothing on other
databases). SQLite drops a table's triggers when Django rebuilds the table, so a migration
that alters ``ledger_transaction`` or ``ledger_entry`` must call :func:`install_sqlite`
again; ``ledger_check`` reports any trigger missing on either database.
"""

from __future__ import annotations

import pgtrigger
import pgtrigger.compiler

REFUSED = "integrity_constraint_violation"


class UnignorableTriggerSql(pgtrigger.compiler.UpsertTriggerSql):
    """pgtrigger's SQL for a trigger, less the preamble that lets ``pgtrigger.ignore`` skip it
    (migration 0003 names this class: keep its name and place).

    That preamble reads the setting ``pgtrigger.ignore`` in a PL/pgSQL block with an
    EXCEPTION clause, which fails (the setting is unset) and rolls back a subtransaction on
    every call; each such rollback scans the whole queue of pending deferred trigger events,
    so checking n transactions at commit took time in n squared (an import of 20,000
    transactions waited 20 s at commit; 1 s without it). Nothing here uses
    ``pgtrigger.ignore``, and the ledger's guarantees should not be skippable anyway: the
    one way past them is an :class:`~ledger.models.Erasure`.
    """

    def get_template(self) -> str:
        return """
            CREATE OR REPLACE FUNCTION {pgid}()
            RETURNS TRIGGER AS $$
                {declare}
                BEGIN
                    {func}
                END;
            $$ LANGUAGE plpgsql;

            DROP TRIGGER IF EXISTS {pgid} ON {table};
            CREATE {constraint} TRIGGER {pgid}
                {when} {operation} ON {table}
                {timing}
                {referencing}
                FOR EACH {level} {condition}
                EXECUTE PROCEDURE {execute};

            COMMENT ON TRIGGER {pgid} ON {table} IS '{hash}';
        """


class Trigger(pgtrigger.Trigger):
    """A pgtrigger trigger that ``pgtrigger.ignore`` cannot skip (see above)."""

    def compile(self, model) -> pgtrigger.compiler.Trigger:
        compiled = super().compile(model)
        kwargs = {k: v for k, v in compiled.sql.kwargs.items() if k != "ignore_func_name"}
        return pgtrigger.compiler.Trigger(name=compiled.name, sql=UnignorableTriggerSql(**kwargs))


# An erasure of the club is open in this database transaction.
_ERASING_ENTRY = """EXISTS (
    SELECT 1 FROM ledger_erasure e JOIN ledger_transaction t ON t.club_id = e.club_id
    WHERE t.id = OLD.transaction_id AND e.finished_at IS NULL)"""
_ERASING_TRANSACTION = """EXISTS (
    SELECT 1 FROM ledger_erasure e WHERE e.club_id = OLD.club_id AND e.finished_at IS NULL)"""


def postgres_entry_triggers() -> list[Trigger]:
    return [
        Trigger(
            name="ledger_entry_append_only",
            operation=pgtrigger.Update | pgtrigger.Delete,
            when=pgtrigger.Before,
            func=f"""
                IF TG_OP = 'DELETE' AND {_ERASING_ENTRY} THEN
                    RETURN OLD;
                END IF;
                RAISE EXCEPTION 'ledger entries are append-only: % refused', TG_OP
                    USING ERRCODE = '{REFUSED}';
            """,
        ),
        Trigger(
            # Once per statement (a transaction's entries come in one or a few): an entry
            # whose transaction already has all its entries is one too many. A transaction
            # that committed has exactly its n_entries (the deferred check below), and
            # entries are never deleted, so this refuses any entry added to one; and one
            # whose transaction this database transaction cannot see (another's, not yet
            # committed) could never be checked, so it is refused as well.
            name="ledger_entry_not_beyond",
            operation=pgtrigger.Insert,
            when=pgtrigger.After,
            level=pgtrigger.Statement,
            referencing=pgtrigger.Referencing(new="inserted"),
            declare=[("beyond", "bigint")],
            func=f"""
                SELECT touched.transaction_id INTO beyond
                    FROM (SELECT DISTINCT transaction_id FROM inserted) touched
                    LEFT JOIN ledger_transaction t ON t.id = touched.transaction_id
                    WHERE t.id IS NULL
                       OR (SELECT COUNT(*) FROM ledger_entry e
                           WHERE e.transaction_id = touched.transaction_id) > t.n_entries
                    LIMIT 1;
                IF FOUND THEN
                    RAISE EXCEPTION
                        'ledger transaction % must have all its entries, summing to zero:'
                        ' no entry beyond them, nor for a transaction not yet committed',
                        beyond USING ERRCODE = '{REFUSED}';
                END IF;
                RETURN NULL;
            """,
        ),
    ]


def postgres_transaction_triggers() -> list[Trigger]:
    return [
        Trigger(
            name="ledger_transaction_append_only",
            operation=pgtrigger.Update | pgtrigger.Delete,
            when=pgtrigger.Before,
            func=f"""
                IF TG_OP = 'DELETE' AND {_ERASING_TRANSACTION} THEN
                    RETURN OLD;
                END IF;
                IF TG_OP = 'UPDATE' AND NEW.created_by_id IS NULL
                   AND (to_jsonb(NEW) - 'created_by_id') = (to_jsonb(OLD) - 'created_by_id') THEN
                    RETURN NEW;
                END IF;
                RAISE EXCEPTION 'ledger transactions are append-only: % refused', TG_OP
                    USING ERRCODE = '{REFUSED}';
            """,
        ),
        Trigger(
            # At commit, once per transaction (not per entry): all its entries, summing to
            # zero. Gone by then means erased in this same database transaction.
            name="ledger_transaction_balanced",
            operation=pgtrigger.Insert,
            when=pgtrigger.After,
            timing=pgtrigger.Deferred,
            declare=[("counted", "bigint"), ("total", "numeric")],
            func=f"""
                SELECT COUNT(e.id), COALESCE(SUM(e.amount_minor), 0) INTO counted, total
                    FROM ledger_transaction t
                    LEFT JOIN ledger_entry e ON e.transaction_id = t.id
                    WHERE t.id = NEW.id
                    GROUP BY t.id;
                IF FOUND AND (counted <> NEW.n_entries OR total <> 0) THEN
                    RAISE EXCEPTION
                        'ledger transaction % must have its % entries, summing to zero'
                        ' (it has %, summing to %)',
                        NEW.id, NEW.n_entries, counted, total USING ERRCODE = '{REFUSED}';
                END IF;
                RETURN NULL;
            """,
        ),
    ]


POSTGRES_TRIGGERS = {
    "ledger_entry": ["ledger_entry_append_only", "ledger_entry_not_beyond"],
    "ledger_transaction": ["ledger_transaction_append_only", "ledger_transaction_balanced"],
}


# --- SQLite --------------------------------------------------------------------------------

# The columns of ledger_transaction that may never change (all but created_by_id).
_TRANSACTION_COLUMNS = [
    "id",
    "club_id",
    "unit",
    "scope",
    "key",
    "kind",
    "source",
    "memo",
    "reverses_id",
    "n_entries",
    "at",
    "created_at",
]
_UNCHANGED = " AND ".join(f"NEW.{c} IS OLD.{c}" for c in _TRANSACTION_COLUMNS)

_COUNT = "(SELECT COUNT(*) FROM ledger_entry WHERE transaction_id = NEW.transaction_id)"
_ANNOUNCED = "(SELECT n_entries FROM ledger_transaction WHERE id = NEW.transaction_id)"
_SUM = "(SELECT SUM(amount_minor) FROM ledger_entry WHERE transaction_id = NEW.transaction_id)"

SQLITE_TRIGGERS = {
    "ledger_entry_no_update": """
        CREATE TRIGGER ledger_entry_no_update BEFORE UPDATE ON ledger_entry
        BEGIN SELECT RAISE(ABORT, 'ledger entries are append-only: UPDATE refused'); END""",
    "ledger_entry_no_delete": f"""
        CREATE TRIGGER ledger_entry_no_delete BEFORE DELETE ON ledger_entry
        WHEN NOT {_ERASING_ENTRY}
        BEGIN SELECT RAISE(ABORT, 'ledger entries are append-only: DELETE refused'); END""",
    "ledger_entry_balanced": f"""
        CREATE TRIGGER ledger_entry_balanced AFTER INSERT ON ledger_entry
        WHEN {_COUNT} >= {_ANNOUNCED}
        BEGIN SELECT RAISE(ABORT, 'a ledger transaction must have all its entries, summing to zero')
              WHERE {_COUNT} > {_ANNOUNCED} OR {_SUM} <> 0; END""",
    "ledger_transaction_no_update": f"""
        CREATE TRIGGER ledger_transaction_no_update BEFORE UPDATE ON ledger_transaction
        WHEN NOT (NEW.created_by_id IS NULL AND {_UNCHANGED})
        BEGIN SELECT RAISE(ABORT, 'ledger transactions are append-only: UPDATE refused'); END""",
    "ledger_transaction_no_delete": f"""
        CREATE TRIGGER ledger_transaction_no_delete BEFORE DELETE ON ledger_transaction
        WHEN NOT {_ERASING_TRANSACTION}
        BEGIN SELECT RAISE(ABORT, 'ledger transactions are append-only: DELETE refused'); END""",
}


def install_sqlite(apps, schema_editor) -> None:
    """(Re)create the SQLite triggers; a no-op on other databases (a migration's RunPython)."""
    if schema_editor.connection.vendor != "sqlite":
        return
    for name, sql in SQLITE_TRIGGERS.items():
        schema_editor.execute(f"DROP TRIGGER IF EXISTS {name}")
        schema_editor.execute(sql)


def uninstall_sqlite(apps, schema_editor) -> None:
    if schema_editor.connection.vendor != "sqlite":
        return
    for name in SQLITE_TRIGGERS:
        schema_editor.execute(f"DROP TRIGGER IF EXISTS {name}")


def missing(connection) -> list[str]:
    """The names of the append-only triggers this database lacks (for ``ledger_check``)."""
    with connection.cursor() as cursor:
        if connection.vendor == "sqlite":
            cursor.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")
            present = {row[0] for row in cursor.fetchall()}
            return sorted(set(SQLITE_TRIGGERS) - present)
        if connection.vendor == "postgresql":
            cursor.execute(
                "SELECT c.relname, t.tgname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid"
                " WHERE c.relname IN ('ledger_entry', 'ledger_transaction')"
                " AND t.tgenabled <> 'D'"
            )
            present = {(table, name) for table, name in cursor.fetchall()}
            return sorted(
                f"{table}.{name}"
                for table, names in POSTGRES_TRIGGERS.items()
                for name in names
                if not any(t == table and n.startswith(f"pgtrigger_{name}_") for t, n in present)
            )
    return []
