"""``python manage.py ledger_check``: recompute every balance from the entries, check that
every transaction sums to zero, and report any mismatch (exit 1). See ``ledger/check.py``."""

from django.core.management.base import BaseCommand, CommandError

from ledger import check


class Command(BaseCommand):
    help = "Recompute the ledger from its entries; exit 1 on any mismatch (also shown on /health/)."

    def handle(self, *args, **options):
        result = check.run()
        check.record(result)
        counts = ", ".join(f"{n} {what}" for what, n in result.counts.items())
        if result.ok:
            self.stdout.write(self.style.SUCCESS(f"The ledger is consistent ({counts})."))
            return
        for problem in result.problems:
            self.stderr.write(problem)
        raise CommandError(f"{len(result.problems)} mismatch(es) in the ledger ({counts}).")
