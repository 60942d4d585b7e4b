"""Recording games: the rules engine checks the record before anything is written."""

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from clubs.models import Club, Player
from clubs.rule_errors import rules_validation_error
from clubs.services import house_rules_for
from matches.models import GameRecord, GameSeat
from rules.check import check_record


def _names_in(record: dict) -> list[str]:
    if record.get("game") == "singapore":
        stake = record.get("stake") or {}
        return [n for n in (stake.get("dealer"), stake.get("opponent")) if n]
    return list(record.get("players") or [])


@transaction.atomic
def record_game(
    *,
    club: Club,
    record: dict,
    players: dict[str, Player],
    recorded_by=None,
    played_at=None,
    season=None,
) -> GameRecord:
    """Check ``record`` under the club's current house rules and store it with its seats.

    ``players`` maps each name used in the record to one of the club's players.
    """
    if not isinstance(record, dict) or record.get("game") not in (
        "singapore",
        "sputo",
        "spazzumazz",
    ):
        raise ValidationError({"record": _("The record must name its game.")})
    game = record["game"]
    current = club.current_house_rules(game)
    checked = {**record, "house_rules": house_rules_for(club=club, game=game)}
    exit_code, result = check_record(checked)
    if exit_code != 0:
        # Each engine error in the user's language, with its code, where it is and the cards.
        raise rules_validation_error(result.get("errors", []), field="record")
    for name in _names_in(record):
        player = players.get(name)
        if player is None or player.club_id != club.pk:
            raise ValidationError(
                {"players": _("%(name)s is not a player of this club.") % {"name": name}}
            )
    order = result.get("finish_order") or []
    game_record = GameRecord.objects.create(
        club=club,
        season=season,
        game=game,
        played_at=played_at or timezone.now(),
        record=checked,
        result=result,
        house_rules=current,
        recorded_by=recorded_by,
    )
    GameSeat.objects.bulk_create(
        GameSeat(
            game_record=game_record,
            player=players[name],
            name_in_record=name,
            place=(order.index(name) + 1) if name in order else None,
        )
        for name in _names_in(record)
    )
    return game_record
