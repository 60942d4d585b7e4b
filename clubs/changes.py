"""What the floors above hear of a change in ``clubs``: ``clubs`` knows no game, so the games
name the functions to call in the settings, and the services here call them after commit.
"""

from functools import partial

from django.conf import settings
from django.db import transaction
from django.utils.module_loading import import_string


def players_changed(club_id: int) -> None:
    """A club's players changed (added, renamed, merged, removed): what the games show of
    them follows after commit (a leaderboard's cached page). The functions of ``club_id``
    are named in ``settings.PLAYERS_CHANGED``."""
    for path in settings.PLAYERS_CHANGED:
        transaction.on_commit(partial(import_string(path), club_id=club_id))
