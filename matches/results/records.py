"""Recording games: the rules engine checks the record before anything is written."""

from enum import Enum

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from clubs.models import Club, HouseRuleSet, Player
from matches.results.models import GameRecord, GameSeat
from plumbing.rule_errors import rules_validation_error
from rules.check import check_record
from rules.house_rules import as_dict, parse_house_rules


class _Current(Enum):
    CURRENT = "current"


#: ``house_rules`` not given: the club's current version, asked for. A game's own version
#: (None when the club had none as the game was made: the game's defaults) is passed as
#: it is, so a game keeps the rules it began with and nothing is asked again.
CURRENT = _Current.CURRENT
Version = HouseRuleSet | None | _Current


def _version(club: Club, game: str, house_rules: Version) -> HouseRuleSet | None:
    return club.current_house_rules(game) if house_rules is CURRENT else house_rules


def names_in(record: dict) -> list[str]:
    """Everyone the record names, once each: for Singapore, the dealer, the opponent, the
    coverers and the side bettors of its stake."""
    if record.get("game") == "singapore":
        stake = record.get("stake") or {}
        names = [stake.get("dealer"), stake.get("opponent"), *(stake.get("covers") or {})]
        for bet in stake.get("side_bets") or []:
            names += [bet.get("backer_of_winner"), bet.get("backer_of_loser")]
        return list(dict.fromkeys(n for n in names if n))
    return list(record.get("players") or [])


def check_game_record(
    *, club: Club, record: dict, house_rules: Version = CURRENT, field: str = "record"
) -> tuple[dict, dict, HouseRuleSet | None]:
    """Check ``record`` with the rules engine under ``house_rules`` (a version of the
    club's, None for the game's defaults; by default the current one, see
    :data:`CURRENT`): ``(the record as checked, the engine's result, the version used)``,
    or a ``ValidationError`` at ``field`` with the engine's errors."""
    if not isinstance(record, dict) or record.get("game") not in (
        "singapore",
        "sputo",
        "spazzumazz",
    ):
        raise ValidationError({field: _("The record must name its game.")})
    game = record["game"]
    current = _version(club, game, house_rules)
    if current is not None and (current.club_id != club.pk or current.game != game):
        raise ValidationError({"house_rules": _("These house rules are not this club's.")})
    rules = dict(current.rules) if current else as_dict(parse_house_rules(game, None))
    checked = {**record, "house_rules": rules}
    exit_code, result = check_record(checked)
    if exit_code != 0:
        # Each engine error in the user's language, with its code, where it is and the cards.
        raise rules_validation_error(result.get("errors", []), field=field)
    return checked, result, current


def record_game(**fields) -> GameRecord:
    """Check and store a game record with its seats, in a transaction of its own: see
    :func:`write_game_record`, whose arguments it takes."""
    with transaction.atomic():
        return write_game_record(**fields)


def write_game_record(
    *,
    club: Club,
    record: dict,
    players: dict[str, Player],
    recorded_by=None,
    played_at=None,
    season=None,
    house_rules: Version = CURRENT,
    outcome=None,
    result: dict | None = None,
) -> GameRecord:
    """Check ``record`` under ``house_rules`` (as :func:`check_game_record` takes it) and
    store it with its seats, as part of ``outcome`` if given.

    ``players`` maps each name used in the record to one of the club's players. A caller
    that has just checked ``record`` itself (its house rules included) passes the engine's
    ``result`` and the record is stored as it is, without a second check.

    It writes two rows in the caller's transaction (no savepoint of its own: the result
    cycle's steps store a result's records inside theirs); :func:`record_game` is the same
    in a transaction of its own.
    """
    if result is None:
        checked, result, current = check_game_record(
            club=club, record=record, house_rules=house_rules
        )
    else:
        checked, current = record, _version(club, record["game"], house_rules)
    game = checked["game"]
    for name in names_in(record):
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
        outcome=outcome,
        recorded_by=recorded_by,
    )
    GameSeat.objects.bulk_create(
        GameSeat(
            game_record=game_record,
            player=players[name],
            name_in_record=name,
            place=(order.index(name) + 1) if name in order else None,
        )
        for name in names_in(record)
    )
    return game_record
