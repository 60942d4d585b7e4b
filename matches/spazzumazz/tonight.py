"""Spazz'u'mazz on the tonight screen (``TONIGHT_PANES``, see ``matches/boards/tonight.py``):
tonight's games, tonight's idiot tally, and the game's name, announced when it changed hands
tonight. Five queries whatever the night's size."""

from __future__ import annotations

from django.urls import reverse
from django.utils.translation import gettext as _

from matches.boards import night_bounds
from matches.boards.tonight import Pane, Tick
from matches.results.models import Outcome, OutcomeStatus
from matches.spazzumazz.boards import game_title, games_of_night, night_rows, night_tally
from matches.spazzumazz.models import SpazzumazzTitle

SHOWN = 8


def tonight_pane(club, *, night, sees_money: bool) -> Pane | None:
    start, end = night_bounds(night)
    # The last games shown, read with their places; the tally of the whole night counted
    # by the database: a night of hundreds of games reads no more than one of ten.
    games = list(games_of_night(club, night).order_by("-played_at", "-pk")[:SHOWN])
    title = (
        SpazzumazzTitle.objects.filter(club=club, season=None, until__isnull=True)
        .select_related("player")
        .first()
    )
    if not games and title is None:
        return None
    rows = night_rows(games)[0]
    tally = night_tally(club, night) if games else []
    played = sum(n for _name, n in tally)
    confirmed = set(
        Outcome.objects.filter(
            club=club,
            status=OutcomeStatus.CONFIRMED,
            content_type__model="spazzumazzgame",
            object_id__in=[g.pk for g in games],
        ).values_list("object_id", flat=True)
    )
    name = game_title(title.player.display_name) if title else ""
    changed_tonight = title is not None and start <= title.since < end
    return Pane(
        slug="spazzumazz",
        title="Spazz'u'mazz",
        template="matches/spazzumazz/_tonight.html",
        context={
            "games": rows,
            "more": max(0, played - len(rows)),
            "tally": tally,
            "name": name,
            "changed_tonight": changed_tonight,
        },
        ticks=[
            Tick(
                at=row["game"].played_at,
                text=_("Spazz'u'mazz: %(name)s is the idiot") % {"name": row["idiot"].display_name},
                url=reverse("spazzumazz:game", args=[club.slug, row["game"].pk]),
            )
            for row in rows
            if row["game"].pk in confirmed
        ],
        banner=(
            _("The game changes hands: now it is %(name)s") % {"name": name}
            if changed_tonight
            else ""
        ),
    )
