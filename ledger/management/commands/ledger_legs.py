"""``python manage.py ledger_legs``: give the transactions posted before the ledger kept
legs their legs (who owed whom), recomputed from the records behind them where the posting
floor can (``ledger/legs.py``). Run it once after upgrading; running it again does nothing.
``ledger_check`` then verifies every transaction's legs."""

from django.core.management.base import BaseCommand, CommandError

from ledger import legs


class Command(BaseCommand):
    help = (
        "Give the ledger's transactions posted before legs their legs (once; safe to run "
        "again), then run ledger_check."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--chunk", type=int, default=legs.CHUNK, help="Transactions per database transaction."
        )

    def handle(self, *args, **options):
        if options["chunk"] < 1:
            raise CommandError("--chunk must be at least 1.")
        before = legs.without_legs().count()
        given = legs.give_all_legs(chunk=options["chunk"])
        counts = given.counts
        self.stdout.write(
            self.style.SUCCESS(
                f"{counts['given']} of {before} transactions without legs were given theirs: "
                f"{counts['from records']} from the records behind them, "
                f"{counts['shared in proportion']} shared in proportion (nothing records "
                "who owed whom), the others between two people or reversals."
            )
        )
        left = legs.without_legs().count()
        if left:
            self.stdout.write(f"{left} move nothing and have none; ledger_check names them.")
        self.stdout.write("Now run: python manage.py ledger_check")
