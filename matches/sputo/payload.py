"""A reported match result, checked: the format (best of 1, 3 or 5), the players, the cards
left for the variant, and every game's record through the rules engine.

What people send (the API's body, the pages' forms)::

    {"games": [{"winner": id, "cards_left": n} | {"record": {...full log...}}, ...]}
    {"walkover": id}                      # id wins: the opponent did not show up
    {"retired": id, "games": [...]}       # id retired during the match; the games so far
    {"double_forfeit": true}              # neither played (a scorer or an admin)
    {"awarded": id}                       # an admin awards a match (resolving a flag)

What is stored (the outcome's payload) is the canonical form in ``matches.sputo.models``.
"""

from __future__ import annotations

from collections.abc import Callable

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from matches.results.adapters import CheckedOutcome, CheckedRecord
from matches.results.steps import check_game_record
from matches.sputo import bracket
from plumbing.rule_errors import message_of, restated
from rules.sputo import LAYOUT_TOTALS

KEYS = ("games", "walkover", "retired", "double_forfeit", "awarded")


def _is_id(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def error_list(error: ValidationError) -> list[ValidationError]:
    if hasattr(error, "error_dict"):
        return [e for errors in error.error_dict.values() for e in errors]
    return list(error.error_list)


def in_game(n: int, error: ValidationError) -> ValidationError:
    """An error about the ``n``-th game's record, its message prefixed "Game n:"; a rules
    engine's keeps its code and where it is (``plumbing.rule_errors``: the event index)."""
    return restated(error, _("Game %(n)s: %(message)s") % {"n": n, "message": message_of(error)})


def _game_error(n: int, message: str) -> ValidationError:
    return ValidationError({"games": [_("Game %(n)s: %(message)s") % {"n": n, "message": message}]})


def _player(match, payload: dict, field: str) -> int:
    """The id ``payload[field]`` names: one of the match's two players, else a 400."""
    value = payload.get(field)
    if not _is_id(value) or value not in (match.player_a_id, match.player_b_id):
        raise ValidationError({field: [_("Name one of the two players of this match (by id).")]})
    return value


def check_match_result(match, payload, *, require: Callable[[str], None]) -> CheckedOutcome:
    """The canonical payload and the game records of ``payload`` for ``match``, or a
    ``ValidationError`` naming the field. ``require(step)`` refuses (a 403) unless the
    person reporting may take that row of the game's roles table (``double_forfeit``,
    ``award``)."""
    if not isinstance(payload, dict) or not any(payload.get(k) is not None for k in KEYS):
        raise ValidationError(
            {"games": [_("Give the games, or a walkover, a retirement or a double forfeit.")]}
        )
    given = [k for k in KEYS if payload.get(k) not in (None, False) and k != "games"]
    if len(given) > 1:
        raise ValidationError({given[1]: [_("Give one kind of result only.")]})
    if payload.get("double_forfeit") not in (None, False):
        if payload["double_forfeit"] is not True:
            raise ValidationError({"double_forfeit": [_("Must be true.")]})
        if payload.get("games"):
            raise ValidationError({"games": [_("A double forfeit has no games.")]})
        require("double_forfeit")
        return CheckedOutcome(
            payload={"result": bracket.DOUBLE_FORFEIT, "winner": None, "games": []}
        )
    if payload.get("walkover") is not None or payload.get("awarded") is not None:
        field = "walkover" if payload.get("walkover") is not None else "awarded"
        winner = _player(match, payload, field)
        if payload.get("games"):
            raise ValidationError({"games": [_("A walkover has no games.")]})
        if field == "awarded":
            require("award")
        result = bracket.WALKOVER if field == "walkover" else bracket.AWARDED
        return CheckedOutcome(payload={"result": result, "winner": winner, "games": []})
    return _games_played(match, payload)


def _games_played(match, payload: dict) -> CheckedOutcome:
    """A result of games: the match played out, or a retirement after the games so far."""
    games = payload.get("games")
    if games is None:
        games = []
    if not isinstance(games, list):
        raise ValidationError({"games": [_("The games are a list.")]})
    retired = _player(match, payload, "retired") if payload.get("retired") is not None else None
    need = match.best_of // 2 + 1
    if not games and retired is None:
        raise ValidationError({"games": [_("Give at least one game.")]})
    if len(games) > match.best_of:
        raise ValidationError(
            {
                "games": [
                    ngettext(
                        "At most %(n)s game in this match.",
                        "At most %(n)s games in this match.",
                        match.best_of,
                    )
                    % {"n": match.best_of}
                ]
            }
        )
    names = {p.pk: p.display_name for p in match.players()}
    players = {p.display_name: p for p in match.players()}
    wins = dict.fromkeys((match.player_a_id, match.player_b_id), 0)
    stored, records = [], []
    for n, game in enumerate(games, 1):
        if max(wins.values()) >= need:
            raise _game_error(
                n, _("the match was already decided; a game after that cannot count.")
            )
        winner, cards_left, record = _check_game(match, n, game, names)
        wins[winner] += 1
        stored.append({"winner": winner, "cards_left": cards_left, "log": "events" in record})
        records.append(CheckedRecord(record=record, players=players))
    if retired is not None:
        if wins[retired] >= need:
            raise ValidationError({"retired": [_("This player had already won the match.")]})
        winner = next(pid for pid in wins if pid != retired)
        return CheckedOutcome(
            payload={"result": bracket.RETIREMENT, "winner": winner, "games": stored},
            records=records,
        )
    leader = max(wins, key=lambda pid: (wins[pid], pid == match.player_a_id))
    if wins[leader] < need:
        raise ValidationError(
            {
                "games": [
                    ngettext(
                        "Nobody has won %(need)s game yet: the match is best of %(of)s.",
                        "Nobody has won %(need)s games yet: the match is best of %(of)s.",
                        need,
                    )
                    % {"need": need, "of": match.best_of}
                ]
            }
        )
    return CheckedOutcome(
        payload={"result": bracket.PLAYED, "winner": leader, "games": stored}, records=records
    )


def _check_game(match, n: int, game, names: dict[int, str]) -> tuple[int, int, dict]:
    """One game: ``(winner id, loser's cards left, the record to store)``."""
    tournament = match.tournament
    if not isinstance(game, dict):
        raise _game_error(n, _("a game is a JSON object."))
    record = game.get("record")
    if record is not None:
        if not isinstance(record, dict):
            raise _game_error(n, _("a record is a JSON object."))
        if set(record.get("players") or []) != set(names.values()) or len(names) != 2:
            raise _game_error(
                n,
                _("the record's players must be this match's: %(names)s.")
                % {"names": ", ".join(names.values())},
            )
        if record.get("variant", tournament.variant) != tournament.variant:
            raise _game_error(
                n, _("this tournament plays %(variant)s.") % {"variant": tournament.variant}
            )
        record = {
            **record,
            "game": "sputo",
            "variant": tournament.variant,
            "options": tournament.options or {},
        }
        try:
            _checked, result, _version = check_game_record(
                club=match.club, record=record, house_rules=tournament.house_rules
            )
        except ValidationError as error:
            raise ValidationError({"games": [in_game(n, e) for e in error_list(error)]}) from error
        by_name = {name: pid for pid, name in names.items()}
        winner = by_name[result["winner"]]
        if game.get("winner") is not None and game.get("winner") != winner:
            raise _game_error(
                n,
                _("the log says %(name)s won, not the winner reported.")
                % {"name": result["winner"]},
            )
        return winner, result["loser_cards_left"], record
    winner, cards_left = game.get("winner"), game.get("cards_left")
    if not _is_id(winner) or winner not in names:
        raise _game_error(n, _("the winner must be one of the two players of this match."))
    most = LAYOUT_TOTALS[tournament.variant]
    if not _is_id(cards_left) or not 1 <= cards_left <= most:
        raise _game_error(
            n,
            _("the loser's cards left must be a whole number from 1 to %(most)s in this variant.")
            % {"most": most},
        )
    record = {
        "game": "sputo",
        "variant": tournament.variant,
        "options": tournament.options or {},
        "players": [names[match.player_a_id], names[match.player_b_id]],
        "winner": names[winner],
        "loser_cards_left": cards_left,
    }
    return winner, cards_left, record
