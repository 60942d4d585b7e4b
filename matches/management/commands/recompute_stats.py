"""``python manage.py recompute_stats [--club SLUG]``: rebuild every game's derived rows
(statistics, ratings, standings) from scratch, with the same numbers as the tasks."""

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.utils.module_loading import import_string

from clubs.models import Club


class Command(BaseCommand):
    help = "Rebuild statistics and ratings of every game from the results in force."

    def add_arguments(self, parser):
        parser.add_argument("--club", help="only this club (its slug)")

    def handle(self, *args, club: str | None = None, **options):
        clubs = Club.objects.order_by("pk")
        if club is not None:
            clubs = clubs.filter(slug=club)
            if not clubs.exists():
                raise CommandError(f"No club with the slug {club!r}.")
        rebuilders = [import_string(path) for path in settings.STATS_REBUILDERS]
        for found in clubs:
            for rebuild in rebuilders:
                result = rebuild(found.pk)
                self.stdout.write(f"{found.slug}: {rebuild.__module__}: {result}")
