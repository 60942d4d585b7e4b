"""``python manage.py recompute_stats [--club SLUG]``: rebuild every game's derived rows
(statistics, ratings, standings) from scratch, with the same numbers as the tasks."""

from django.conf import settings
from django.utils.module_loading import import_string

from clubs.management.club_command import ClubCommand


class Command(ClubCommand):
    help = "Rebuild statistics and ratings of every game from the results in force."

    def handle(self, *args, club: str | None = None, **options):
        rebuilders = [import_string(path) for path in settings.STATS_REBUILDERS]
        for found in self.clubs(club):
            for rebuild in rebuilders:
                result = rebuild(found.pk)
                self.stdout.write(f"{found.slug}: {rebuild.__module__}: {result}")
