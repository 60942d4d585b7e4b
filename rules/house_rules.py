"""House rules: one typed settings value per game, with RULES.md's defaults.

A club admin changes these per club; the web app validates them with
:func:`parse_house_rules` and stores the resulting :func:`as_dict`.

>>> parse_house_rules("singapore", {"rounding": "up"}).rounding
'up'
>>> parse_house_rules("singapore", {"colour": "red"})  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
rules.errors.MalformedRecordError: unknown house rule 'colour' for singapore (known: ...)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from typing import Literal, get_args

from rules.errors import MalformedRecordError, describe

Game = Literal["singapore", "sputo", "spazzumazz"]
JokerLimit = Literal["half", "one", "free"]
Rounding = Literal["nearest", "up", "none"]
CapAppliesTo = Literal["base", "total"]


@dataclass(frozen=True, slots=True)
class SingaporeRules:
    """Singapore's house rules (RULES.md, Singapore)."""

    #: "half": no more jokers than natural cards in a combination; "one": at most one
    #: joker per combination; "free": any number, with at least one natural card.
    joker_limit: JokerLimit = "half"
    #: A 10-card sequence with one joker pays x4, with both jokers x3 (instead of x5).
    joker_sequence_multipliers: bool = False
    #: Rounding of the loser's card points to the ten: 75 -> 80 ("nearest"), 71 -> 80 ("up").
    rounding: Rounding = "nearest"
    #: "base": the cap applies to the rounded points before the multiplier; "total": after.
    cap_applies_to: CapAppliesTo = "base"
    #: The cap on points; None for no cap.
    cap: int | None = 100


@dataclass(frozen=True, slots=True)
class SputoRules:
    """Sputo has no house rules: its variant and options are fields of each record."""


@dataclass(frozen=True, slots=True)
class SpazzumazzRules:
    """Spazz'u'mazz's house rules (RULES.md, Statistics)."""

    #: The minimum number of games for a player to count in the "renamed after" statistic.
    idiot_min_games: int = 10


HouseRules = SingaporeRules | SputoRules | SpazzumazzRules

RULES_BY_GAME: dict[str, type[SingaporeRules] | type[SputoRules] | type[SpazzumazzRules]] = {
    "singapore": SingaporeRules,
    "sputo": SputoRules,
    "spazzumazz": SpazzumazzRules,
}

_CHOICES: dict[str, tuple[str, ...]] = {
    "joker_limit": get_args(JokerLimit),
    "rounding": get_args(Rounding),
    "cap_applies_to": get_args(CapAppliesTo),
}


def _bad(name: str, message: str) -> MalformedRecordError:
    return MalformedRecordError("bad_record", message, at=f"house_rules.{name}")


def _validate(name: str, value: object) -> object:
    if name in _CHOICES:
        if not isinstance(value, str) or value not in _CHOICES[name]:
            options = ", ".join(repr(choice) for choice in _CHOICES[name])
            raise _bad(name, f"house rule {name} must be one of {options}, not {describe(value)}")
    elif name == "joker_sequence_multipliers":
        if not isinstance(value, bool):
            raise _bad(name, f"house rule {name} must be true or false, not {describe(value)}")
    elif name == "cap":
        if value is not None and (
            not isinstance(value, int) or isinstance(value, bool) or value < 0
        ):
            raise _bad(
                name,
                f"house rule cap must be a non-negative integer or null, not {describe(value)}",
            )
    elif name == "idiot_min_games":
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise _bad(name, f"house rule {name} must be a positive integer, not {describe(value)}")
    return value


def parse_house_rules(game: str, values: object) -> HouseRules:
    """Build ``game``'s house rules from a dict of overrides (``None`` for the defaults).

    An unknown name or a bad value raises :class:`MalformedRecordError` (``bad_record``,
    exit 2 in the checker) naming it. Settings already built for ``game`` pass through.

    Ruling: ``idiot_min_games`` must be at least 1 (RULES.md only says "a minimum of
    games"; a player with no games has no idiot rate to compare).
    """
    cls = RULES_BY_GAME.get(game) if isinstance(game, str) else None
    if cls is None:
        raise MalformedRecordError("unknown_game", f"unknown game {describe(game)}", at="game")
    if values is None:
        return _DEFAULTS[game]
    if isinstance(values, cls):
        return values
    # A bulk check sees the same few house rules over and over: parse each distinct value
    # once. The key holds each value's type, since True == 1 and 1 == 1.0 in Python but
    # not as house rules; values that are not plain scalars are not cached.
    key: tuple[object, ...] | None = None
    if type(values) is dict and len(values) <= len(_CHOICES) + 2:
        key = (game, *((name, type(v), v) for name, v in values.items()))
        if not all(type(v) in _SCALARS for v in values.values()):
            key = None
        else:
            cached = _PARSED.get(key)
            if cached is not None:
                return cached
    parsed = _parse(cls, game, values)
    if key is not None:
        if len(_PARSED) >= _CACHE_SIZE:
            _PARSED.clear()
        _PARSED[key] = parsed
    return parsed


_SCALARS = (str, bool, int, float, type(None))
_CACHE_SIZE = 1024
_PARSED: dict[tuple[object, ...], HouseRules] = {}
_DEFAULTS: dict[str, HouseRules] = {game: cls() for game, cls in RULES_BY_GAME.items()}


def _parse(
    cls: type[SingaporeRules] | type[SputoRules] | type[SpazzumazzRules],
    game: str,
    values: object,
) -> HouseRules:
    if not isinstance(values, Mapping):
        raise MalformedRecordError(
            "bad_record", "house_rules must be an object of rule names", at="house_rules"
        )
    known = [f.name for f in fields(cls)]
    for name in values:
        if name not in known:
            listed = ", ".join(known) if known else "none"
            raise _bad(
                name[:40] if isinstance(name, str) else describe(name),
                f"unknown house rule {describe(name)} for {game} (known: {listed})",
            )
    checked = {name: _validate(name, value) for name, value in values.items()}
    return cls(**checked)  # type: ignore[arg-type]


def defaults(game: str) -> dict[str, object]:
    """The default house rules of ``game`` as a plain dict."""
    return as_dict(parse_house_rules(game, None))


def as_dict(rules: HouseRules) -> dict[str, object]:
    return asdict(rules)
