"""Recording Spazz'u'mazz games through the shared result cycle."""

from __future__ import annotations

from datetime import timedelta

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from clubs.access import access_club
from clubs.models import Club, Player
from matches.results import steps
from matches.results.adapters import Actor
from matches.results.models import Outcome
from matches.spazzumazz.adapter import ADAPTER
from matches.spazzumazz.models import SpazzumazzGame, SpazzumazzPlace
from plumbing.errors import not_found
from plumbing.transactions import own_transaction


@own_transaction
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
        season=club.seasons.holding(played_at),
        played_at=played_at,
        size=len(players),
        house_rules=club.current_house_rules("spazzumazz"),
        created_by=by if by.is_authenticated else None,
    )
    SpazzumazzPlace.objects.bulk_create(
        SpazzumazzPlace(game=game, player=player, turn=n, played_at=played_at, size=len(players))
        for n, player in enumerate(players)
    )
    access = access_club(by, club)  # 404 for a club the user may not see, before the report
    who = Actor(
        user=by,
        access=access,
        plays=by.is_authenticated and any(p.user_id == by.pk for p in players),
    )
    steps.require("report", who, game)
    payload = {"record": record} if record is not None else {"finish_order": finish_order}
    result = ADAPTER.check(game, payload, actor=who)
    # The result: recorded, then (a scorer's, in force at once) the places written, the
    # statistics marked and queued, the webhooks told.
    outcome = steps.record_new(ADAPTER, subject=game, checked=result, who=who)
    if outcome.in_force:
        steps.into_force(ADAPTER, game, outcome, by=by, checked=result)
    return game, outcome


def players_of(club: Club, ids) -> list[Player]:
    """The club's active players with these ids, in the order given; a ``ValidationError``
    naming ``players`` for anything else (code ``not_found`` for ids that are not there)."""
    if not isinstance(ids, list | tuple) or any(
        isinstance(i, bool) or not isinstance(i, int) for i in ids
    ):
        raise ValidationError({"players": _("List the players' ids, in turn order.")})
    found = club.players.active().in_bulk(ids)
    missing = [i for i in ids if i not in found]
    if missing:
        # Named but not there (another club's, merged, never): a 404 in the API.
        raise not_found(
            "players",
            _("No such player in this club: %(ids)s.")
            % {"ids": ", ".join(str(i) for i in missing)},
        )
    return [found[i] for i in ids]


@transaction.atomic
def record_spazzumazz_batch(
    *,
    club: Club,
    players: list[Player],
    by,
    finish_orders: list[list[int]],
    played_at=None,
) -> list[tuple[SpazzumazzGame, Outcome]]:
    """A club night's games by the same players in a row, all or none: one finishing order
    per game, a minute apart from ``played_at`` (now by default) so their order is kept."""
    if not isinstance(finish_orders, list) or not finish_orders:
        raise ValidationError({"finish_orders": _("Give at least one finishing order.")})
    if len(finish_orders) > 50:
        raise ValidationError({"finish_orders": _("At most 50 games at once.")})
    start = played_at or timezone.now() - timedelta(minutes=len(finish_orders) - 1)
    recorded = []
    for n, order in enumerate(finish_orders):
        try:
            recorded.append(
                record_spazzumazz_game(
                    club=club,
                    players=players,
                    by=by,
                    finish_order=order,
                    played_at=start + timedelta(minutes=n),
                )
            )
        except ValidationError as error:
            if hasattr(error, "error_dict") and "finish_order" in error.error_dict:
                raise ValidationError(
                    {
                        "finish_orders": _("Game %(n)s: %(problem)s")
                        % {"n": n + 1, "problem": " ".join(error.message_dict["finish_order"])}
                    }
                ) from error
            raise
    return recorded


def recent_tables(club: Club, player: Player | None = None, *, limit: int = 6):
    """The tables (players in turn order) of the club's latest games, most recent first,
    each once; those where ``player`` sat first. For quick entry: one tap picks a table."""
    games = SpazzumazzGame.objects.filter(club=club).order_by("-played_at", "-pk")
    if player is not None:
        games = games.filter(places__player=player)
    ids = list(games.values_list("pk", flat=True)[:60])
    places = (
        SpazzumazzPlace.objects.filter(game_id__in=ids, player__merged_into__isnull=True)
        .select_related("player")
        .order_by("game_id", "turn")
    )
    by_game: dict[int, list[Player]] = {}
    for place in places:
        by_game.setdefault(place.game_id, []).append(place.player)
    tables, seen = [], set()
    for pk in ids:
        table = by_game.get(pk, [])
        key = tuple(p.pk for p in table)
        if len(table) >= 2 and key not in seen:
            seen.add(key)
            tables.append(table)
        if len(tables) == limit:
            break
    return tables
