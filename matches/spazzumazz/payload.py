"""A Spazz'u'mazz result as people send it, read and checked: the one parser of the API, the
pages (quick entry and corrections) and the result cycle.

A result is ``{"finish_order": [player ids, the idiot last]}`` or ``{"record": {...}}`` (a
full turn log, RULES.md's record, checked by the rules engine). What is stored (the
outcome's payload) is ``{"finish_order": [...], "log": bool}``.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

from clubs.models import Player
from matches.results.adapters import CheckedOutcome, CheckedRecord
from matches.results.steps import check_game_record
from matches.spazzumazz.models import SpazzumazzGame
from plumbing.errors import conflict


def ids_of(raw: str) -> list[int]:
    """The ids a page sends as ``"3,1,2"`` (players in turn order, or in the order they
    went out); a ``ValidationError`` naming ``players`` for anything else."""
    parts = [p for p in (raw or "").replace(" ", "").split(",") if p]
    if not all(p.isdigit() and len(p) < 19 for p in parts):
        raise ValidationError({"players": _("List the players' ids, in turn order.")})
    return [int(p) for p in parts]


def _from_record(game: SpazzumazzGame, record, players: list[Player]) -> tuple[list, dict]:
    names = [p.display_name for p in players]
    by_name = {p.display_name: p for p in players}
    if not isinstance(record, dict):
        raise ValidationError({"record": _("A record is a JSON object.")})
    record = {**record, "game": "spazzumazz"}
    if record.get("players") != names:
        raise ValidationError(
            {
                "record": _("The record's players must be this game's, in turn order: %(names)s.")
                % {"names": ", ".join(names)}
            }
        )
    _checked, result, _version = check_game_record(
        club=game.club, record=record, house_rules=game.house_rules
    )
    return [by_name[name] for name in result["finish_order"]], record


def _from_order(ids, players: list[Player]) -> tuple[list, dict]:
    by_id = {p.pk: p for p in players}
    every_player = _(
        "List every player of the game once, in the order they went out, the idiot last."
    )
    if not isinstance(ids, list) or any(isinstance(i, bool) or not isinstance(i, int) for i in ids):
        raise ValidationError({"finish_order": every_player})
    if sorted(ids) != sorted(by_id):
        # The game's players are stored: an order of others clashes with them.
        raise conflict("finish_order", every_player)
    order = [by_id[i] for i in ids]
    record = {
        "game": "spazzumazz",
        "players": [p.display_name for p in players],
        "finish_order": [p.display_name for p in order],
    }
    return order, record


def check_result(game: SpazzumazzGame, payload) -> CheckedOutcome:
    """``payload`` for ``game``: the canonical payload and its record, or a
    ``ValidationError`` naming the field (a 409 for an order of other players)."""
    players = game.players_in_turn_order()
    if not isinstance(payload, dict):
        raise ValidationError({"finish_order": _("Give the finishing order or a record.")})
    if payload.get("record") is not None:
        order, record = _from_record(game, payload["record"], players)
    else:
        order, record = _from_order(payload.get("finish_order"), players)
    return CheckedOutcome(
        payload={"finish_order": [p.pk for p in order], "log": "turns" in record},
        records=[CheckedRecord(record=record, players={p.display_name: p for p in players})],
    )
