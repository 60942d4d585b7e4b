"""Recording Spazz'u'mazz games through the shared result cycle."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from clubs.models import Club, Player
from matches.models import Outcome, SpazzumazzGame, SpazzumazzPlace
from matches.outcomes import actor, report_outcome


def season_of(club: Club, when):
    """The club's season holding the day of ``when``, if any."""
    day = timezone.localtime(when).date() if timezone.is_aware(when) else when.date()
    return club.seasons.filter(start__lte=day, end__gte=day).first()


@transaction.atomic
def record_spazzumazz_game(
    *,
    club: Club,
    players: list[Player],
    by,
    finish_order: list[int] | None = None,
    record: dict | None = None,
    played_at=None,
) -> tuple[SpazzumazzGame, Outcome]:
    """A new game of ``players`` (in turn order) and its reported result: the finishing
    order (player ids, the idiot last) or a full record. A player of the game reports it
    for another to confirm; a scorer's or an admin's entry is in force at once."""
    if len(players) < 2:
        raise ValidationError({"players": _("A game needs at least two players.")})
    if len({p.pk for p in players}) != len(players):
        raise ValidationError({"players": _("A player can sit at a table only once.")})
    for player in players:
        if player.club_id != club.pk or player.merged_into_id is not None:
            raise ValidationError(
                {"players": _("%(name)s is not a player of this club.") % {"name": player}}
            )
    if (finish_order is None) == (record is None):
        raise ValidationError({"finish_order": _("Give either the finishing order or a record.")})
    played_at = played_at or timezone.now()
    game = SpazzumazzGame.objects.create(
        club=club,
        season=season_of(club, played_at),
        played_at=played_at,
        house_rules=club.current_house_rules("spazzumazz"),
        created_by=by if by.is_authenticated else None,
    )
    SpazzumazzPlace.objects.bulk_create(
        SpazzumazzPlace(game=game, player=player, turn=n) for n, player in enumerate(players)
    )
    actor(game, by)  # 404 for a club the user may not see, before anything else
    payload = {"record": record} if record is not None else {"finish_order": finish_order}
    outcome = report_outcome(subject=game, payload=payload, by=by)
    return game, outcome
