"""The append-only and zero-sum triggers on SQLite (PostgreSQL's come with 0001, through
django-pgtrigger). A no-op on other databases; see ``ledger/triggers.py``.

The triggers as they were at this point, frozen here: the current ones (``0004_legs`` on)
name tables and columns that do not exist yet."""

from django.db import migrations

_ERASING_ENTRY = """EXISTS (
    SELECT 1 FROM ledger_erasure e JOIN ledger_transaction t ON t.club_id = e.club_id
    WHERE t.id = OLD.transaction_id AND e.finished_at IS NULL)"""
_ERASING_TRANSACTION = """EXISTS (
    SELECT 1 FROM ledger_erasure e WHERE e.club_id = OLD.club_id AND e.finished_at IS NULL)"""
_COLUMNS = [
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
_UNCHANGED = " AND ".join(f"NEW.{c} IS OLD.{c}" for c in _COLUMNS)
_COUNT = "(SELECT COUNT(*) FROM ledger_entry WHERE transaction_id = NEW.transaction_id)"
_ANNOUNCED = "(SELECT n_entries FROM ledger_transaction WHERE id = NEW.transaction_id)"
_SUM = "(SELECT SUM(amount_minor) FROM ledger_entry WHERE transaction_id = NEW.transaction_id)"

TRIGGERS = {
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


def install(apps, schema_editor) -> None:
    if schema_editor.connection.vendor != "sqlite":
        return
    for name, sql in TRIGGERS.items():
        schema_editor.execute(f"DROP TRIGGER IF EXISTS {name}")
        schema_editor.execute(sql)


def uninstall(apps, schema_editor) -> None:
    if schema_editor.connection.vendor != "sqlite":
        return
    for name in TRIGGERS:
        schema_editor.execute(f"DROP TRIGGER IF EXISTS {name}")


class Migration(migrations.Migration):
    dependencies = [("ledger", "0001_initial")]

    operations = [migrations.RunPython(install, uninstall, elidable=False)]
