"""``python manage.py sputo_ratings [--club SLUG]``: rebuild the Sputo ratings from scratch.

Deletes the clubs' Sputo rating rows and recomputes them from the results in force, in the
same order and with the same function as the task that keeps them up to date, so the
numbers are the same.
"""

from clubs.management.club_command import ClubCommand
from matches.sputo.tasks import recompute_from_scratch


class Command(ClubCommand):
    help = "Recompute the Sputo (Glicko-2) ratings of every club, or of one, from scratch."

    def handle(self, *args, club=None, **options):
        for one in self.clubs(club):
            rated = recompute_from_scratch(one.pk)
            if rated:
                self.stdout.write(f"{one.slug}: {rated} rated matches")
        self.stdout.write(self.style.SUCCESS("Sputo ratings recomputed."))
