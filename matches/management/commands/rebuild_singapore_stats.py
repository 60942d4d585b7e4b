"""``manage.py rebuild_singapore_stats [--club SLUG]``: the Singapore statistics from scratch.

The same computation as the tasks run after each hand; the rows come out the same.
"""

from clubs.management.club_command import ClubCommand
from matches.singapore.stats import rebuild


class Command(ClubCommand):
    help = "Rebuild every Singapore statistics row from the hands in force."

    def handle(self, *args, club=None, **options):
        total = 0
        for found in self.clubs(club):
            rows = rebuild(found.pk)
            total += rows
            if rows and options["verbosity"] > 1:
                self.stdout.write(f"{found.slug}: {rows} rows")
        self.stdout.write(f"{total} statistics rows rebuilt")
