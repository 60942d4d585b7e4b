"""``python manage.py recompute_stats [--club SLUG]``: rebuild every game's derived rows
(statistics, ratings, standings) from scratch, with the same numbers as the tasks."""

from clubs.management.club_command import ClubCommand
from matches import games


class Command(ClubCommand):
    help = "Rebuild statistics and ratings of every game from the results in force."

    def handle(self, *args, club: str | None = None, **options):
        for found in self.clubs(club):
            for game in games.all():
                result = game.rebuild(found.pk)
                self.stdout.write(f"{found.slug}: {game.rebuild.__module__}: {result}")
