"""A championship's rules as the club writes them (the API's body, the page's form), read
and checked into their one canonical form, or refused with a message per field::

    {"events": {"sputo": {"points": [25, 18, 15], "participation": 1},
                "singapore_night": {"points": [10, 6, 4], "participation": 1, "min_games": 3},
                "spazzumazz_night": {...}},
     "best_of": null, "min_events": 0, "guests": true}

An event kind left out does not count. ``points`` are by place (1st, 2nd...; a place past
the list earns none), ``participation`` goes to everyone who took part on top of the
place's points, ``min_games`` (nights only) is how many games a player must play in the
night to take part in its ranking. ``best_of``: only a player's best N results count (None:
all); ``min_events``: results needed to be ranked; ``guests``: whether guests are ranked.
"""

from __future__ import annotations

from django.utils.translation import gettext as _

from matches.championship.models import EventKind

MAX_PLACES = 64
MAX_POINTS = 10_000
MAX_COUNT = 1_000
NIGHTS = (EventKind.SINGAPORE_NIGHT, EventKind.SPAZZUMAZZ_NIGHT)
DEFAULT = {"events": {}, "best_of": None, "min_events": 0, "guests": True}


class ConfigError(ValueError):
    """What is wrong, by field (``"events.sputo.points"``): a list of messages each."""

    def __init__(self, errors: dict[str, list[str]]):
        super().__init__(errors)
        self.errors = errors


def _count(value, field: str, errors: dict, *, least: int = 0, most: int = MAX_COUNT):
    if isinstance(value, bool) or not isinstance(value, int) or not least <= value <= most:
        errors[field] = [
            _("A whole number from %(least)s to %(most)s.") % {"least": least, "most": most}
        ]
        return None
    return value


def _event(kind: str, data, errors: dict) -> dict | None:
    where = f"events.{kind}"
    if not isinstance(data, dict):
        errors[where] = [_("An object with points, participation and min_games.")]
        return None
    allowed = {"points", "participation"} | ({"min_games"} if kind in NIGHTS else set())
    for key in sorted(set(data) - allowed):
        errors[f"{where}.{key}"] = [_("Unknown field.")]
    points = data.get("points")
    if (
        not isinstance(points, list)
        or not 1 <= len(points) <= MAX_PLACES
        or any(
            isinstance(p, bool) or not isinstance(p, int) or not 0 <= p <= MAX_POINTS
            for p in points
        )
    ):
        errors[f"{where}.points"] = [
            _("A list of 1 to %(places)s whole numbers from 0 to %(most)s: the points by place.")
            % {"places": MAX_PLACES, "most": MAX_POINTS}
        ]
    found = {
        "points": points,
        "participation": _count(
            data.get("participation", 0), f"{where}.participation", errors, most=MAX_POINTS
        ),
    }
    if kind in NIGHTS:
        found["min_games"] = _count(data.get("min_games", 0), f"{where}.min_games", errors)
    return found


def parse(data) -> dict:
    """``data`` checked into the championship's canonical rules, or :class:`ConfigError`."""
    if not isinstance(data, dict):
        raise ConfigError({"events": [_("The championship's rules, as an object.")]})
    errors: dict[str, list[str]] = {}
    for key in sorted(set(data) - set(DEFAULT)):
        errors[key] = [_("Unknown field.")]
    events = data.get("events", {})
    found_events = {}
    if not isinstance(events, dict):
        errors["events"] = [_("An object of the events that count, by kind.")]
    else:
        for kind in sorted(set(events) - set(EventKind.values)):
            errors[f"events.{kind}"] = [
                _("Not an event: one of %(kinds)s.") % {"kinds": ", ".join(EventKind.values)}
            ]
        for kind in EventKind.values:
            if kind in events and events[kind] is not None:
                found_events[kind] = _event(kind, events[kind], errors)
    best_of = data.get("best_of")
    if best_of is not None:
        best_of = _count(best_of, "best_of", errors, least=1)
    min_events = _count(data.get("min_events", 0), "min_events", errors)
    guests = data.get("guests", True)
    if not isinstance(guests, bool):
        errors["guests"] = [_("true or false.")]
    if errors:
        raise ConfigError(errors)
    return {"events": found_events, "best_of": best_of, "min_events": min_events, "guests": guests}
