"""Spazz'u'mazz's event for the clubs' webhooks (``clubs.webhooks``): the club's game named
after someone else ("Gioco di ...", ``game_name.changed``), announced by the rebuild of the
derived rows that moved it (``matches.spazzumazz.stats.refresh``), in its transaction."""

from __future__ import annotations

from django.utils import translation
from django.utils.translation import gettext as _

from clubs.models import Club, Player
from clubs.webhooks.services import emit, listens, player_data
from matches.spazzumazz.models import SpazzumazzTitle


def current_title(club_id: int) -> SpazzumazzTitle | None:
    """Who the club's game is named after now, all time (the name the club goes by)."""
    return (
        SpazzumazzTitle.objects.filter(club_id=club_id, season__isnull=True, until__isnull=True)
        .order_by("-since")
        .first()
    )


def announce_rename(club: Club, *, before: SpazzumazzTitle | None) -> None:
    """``game_name.changed`` if the game is named after someone else than ``before`` said."""
    after = current_title(club.pk)
    if (before.player_id if before else None) == (after.player_id if after else None):
        return
    if not listens(club_id=club.pk, event="game_name.changed"):
        return
    players = Player.objects.in_bulk([t.player_id for t in (before, after) if t is not None])
    holder = players.get(after.player_id) if after else None
    with translation.override(club.language):
        # The words of matches.spazzumazz.boards.game_title ("Gioco di Pino").
        name = _("%(name)s's game") % {"name": holder.display_name} if holder else None
    emit(
        club_id=club.pk,
        event="game_name.changed",
        data={
            "name": name,
            "player": player_data(holder),
            "previous": player_data(players.get(before.player_id) if before else None),
            "since": after.since if after else before.until,
        },
    )
