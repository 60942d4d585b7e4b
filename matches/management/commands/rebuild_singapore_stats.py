"""``manage.py rebuild_singapore_stats [--club SLUG]``: the Singapore statistics from scratch.

The same computation as the tasks run after each hand; the rows come out the same.
"""

from django.core.management.base import BaseCommand, CommandError

from clubs.models import Club
from matches.singapore.stats import rebuild


class Command(BaseCommand):
    help = "Rebuild every Singapore statistics row from the hands in force."

    def add_arguments(self, parser):
        parser.add_argument("--club", help="only this club (slug)")

    def handle(self, *args, club=None, **options):
        clubs = Club.objects.all()
        if club:
            clubs = clubs.filter(slug=club)
            if not clubs.exists():
                raise CommandError(f"no club {club!r}")
        total = 0
        for found in clubs.order_by("pk"):
            rows = rebuild(found.pk)
            total += rows
            if rows and options["verbosity"] > 1:
                self.stdout.write(f"{found.slug}: {rows} rows")
        self.stdout.write(f"{total} statistics rows rebuilt")
