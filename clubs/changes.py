"""What the floors above hear of a change in ``clubs``: ``clubs`` knows no game, so the games'
app lends the functions to call (``plumbing.parts``), and the services here call them after
commit.
"""

from functools import partial

from django.db import transaction

from plumbing import public_pages
from plumbing.parts import parts


def club_changed(club_id: int) -> None:
    """The club itself changed (its settings, people, roles, seasons, house rules): every
    page of the club is built again once the write commits (``plumbing.public_pages``)."""
    public_pages.changed(club_id, public_pages.CLUB)


def players_changed(club_id: int) -> None:
    """A club's players changed (added, renamed, merged, removed): every page of the club
    shows them, and what the games keep of them follows after commit (a leaderboard's
    cached fragments): each app's ``players_changed(club_id=)``."""
    club_changed(club_id)
    for hook in parts("players_changed"):
        transaction.on_commit(partial(hook, club_id=club_id))
