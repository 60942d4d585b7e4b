"""The append-only and zero-sum triggers on SQLite (PostgreSQL's come with 0001, through
django-pgtrigger). A no-op on other databases; see ``ledger/triggers.py``."""

from django.db import migrations

from ledger.triggers import install_sqlite, uninstall_sqlite


class Migration(migrations.Migration):
    dependencies = [("ledger", "0001_initial")]

    operations = [migrations.RunPython(install_sqlite, uninstall_sqlite, elidable=False)]
