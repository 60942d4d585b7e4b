"""``python manage.py recompute_stats [--club SLUG]``: rebuild every game's derived rows
(statistics, ratings, standings) and the ledger's derived balances from scratch, with the
same numbers as the tasks and the ledger's trigger."""

from clubs.management.club_command import ClubCommand
from ledger import services as ledger
from matches import games
from matches.championship import standings as championship


class Command(ClubCommand):
    help = (
        "Rebuild statistics and ratings of every game from the results in force, and the "
        "ledger's balances from its entries."
    )

    def handle(self, *args, club: str | None = None, **options):
        for found in self.clubs(club):
            for game in games.all():
                result = game.rebuild(found.pk)
                self.stdout.write(f"{found.slug}: {game.rebuild.__module__}: {result}")
            # After the games: a tournament's places are rebuilt with its game's rows.
            self.stdout.write(f"{found.slug}: championship: {championship.rebuild_club(found.pk)}")
            rows = ledger.rebuild_balances(club=found)
            self.stdout.write(f"{found.slug}: ledger balances and pairs: {rows} rows")
