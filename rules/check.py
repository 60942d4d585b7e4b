"""The checker: one record in, one result out, as RULES.md "Records and the checker" says.

>>> exit_code, result = check_record({"game": "chess"})
>>> exit_code, result["errors"][0]["code"]
(2, 'unknown_game')
"""

from __future__ import annotations

from collections.abc import Callable

from rules import jsonio, singapore, spazzumazz, sputo
from rules.errors import MalformedRecordError, RulesError, describe

Checker = Callable[[dict[str, object]], dict[str, object]]

GAMES: dict[str, Checker] = {
    "singapore": singapore.check_record,
    "sputo": sputo.check_record,
    "spazzumazz": spazzumazz.check_record,
}


def check_record(record: object) -> tuple[int, dict[str, object]]:
    """Check a parsed record; returns ``(exit_code, result)``."""
    try:
        if not isinstance(record, dict):
            raise MalformedRecordError("bad_record", "a record must be a JSON object", at=None)
        game = record.get("game")
        checker = GAMES.get(game) if isinstance(game, str) else None
        if checker is None:
            raise MalformedRecordError(
                "unknown_game",
                f"game must be one of {', '.join(GAMES)}, not {describe(game)}",
                at="game",
            )
        return 0, {"valid": True, **checker(record)}
    except RulesError as error:
        return error.exit_code, {
            "valid": False,
            "errors": [e.as_dict() for e in error.errors],
        }
    except RecursionError:
        # Absurdly nested junk inside an ignored field can still exhaust the stack.
        deep = MalformedRecordError("bad_record", "the record is nested too deeply", at=None)
        return 2, {"valid": False, "errors": [deep.as_dict()]}


def check_text(text: str) -> tuple[int, dict[str, object]]:
    """Parse ``text`` as JSON and check it; not JSON is ``bad_json`` (exit 2).

    Strict JSON: ``NaN`` and ``Infinity`` are refused, as is nesting deeper than
    Python's parser allows and (Python's own limit) an integer of more than 4300 digits.

    >>> check_text("[1, 2")[1]["errors"][0]["code"]
    'bad_json'
    >>> check_text('{"game": "singapore", "cap": NaN}')[0]
    2
    """
    try:
        record = jsonio.loads(text)
    except (ValueError, RecursionError) as error:
        bad = MalformedRecordError("bad_json", f"not JSON: {error}"[:200], at=None)
        return 2, {"valid": False, "errors": [bad.as_dict()]}
    return check_record(record)
