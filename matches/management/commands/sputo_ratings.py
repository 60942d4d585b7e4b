"""``python manage.py sputo_ratings [--club SLUG]``: rebuild the Sputo ratings from scratch.

Deletes the clubs' Sputo rating rows and recomputes them from the results in force, in the
same order and with the same function as the task that keeps them up to date, so the
numbers are the same.
"""

from django.core.management.base import BaseCommand, CommandError

from clubs.models import Club
from matches.sputo.tasks import recompute_from_scratch


class Command(BaseCommand):
    help = "Recompute the Sputo (Glicko-2) ratings of every club, or of one, from scratch."

    def add_arguments(self, parser):
        parser.add_argument("--club", help="a club's slug (default: every club)")

    def handle(self, *args, club=None, **options):
        clubs = Club.objects.all()
        if club:
            clubs = clubs.filter(slug=club)
            if not clubs.exists():
                raise CommandError(f"No club with the slug {club!r}.")
        for one in clubs.order_by("pk"):
            rated = recompute_from_scratch(one.pk)
            if rated:
                self.stdout.write(f"{one.slug}: {rated} rated matches")
        self.stdout.write(self.style.SUCCESS("Sputo ratings recomputed."))
