"""What the floors above hear of a change in ``clubs``: ``clubs`` knows no game, so the games'
app lends the functions to call (``plumbing.parts``), and the services here call them after
commit.
"""

from functools import partial

from django.db import transaction

from plumbing.parts import parts


def players_changed(club_id: int) -> None:
    """A club's players changed (added, renamed, merged, removed): what the games show of
    them follows after commit (a leaderboard's cached page): each app's
    ``players_changed(club_id=)``."""
    for hook in parts("players_changed"):
        transaction.on_commit(partial(hook, club_id=club_id))
