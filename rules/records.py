"""Helpers for reading a record's structure: each failure is a ``bad_record`` (exit 2)
naming the field, so the games' checkers never touch an unchecked value."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

from rules.errors import MalformedRecordError, RulesError, RuleViolation, raise_all

T = TypeVar("T")

_KIND_NAMES: dict[type, str] = {
    str: "a string",
    int: "an integer",
    bool: "true or false",
    list: "a list",
    dict: "an object",
    float: "a number",
}


def bad_record(message: str, at: str | int | None) -> MalformedRecordError:
    return MalformedRecordError("bad_record", message, at=at)


def is_int(value: object) -> bool:
    """JSON integers only: ``true`` is not 1 here."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: object) -> bool:
    return (isinstance(value, int | float)) and not isinstance(value, bool)


def expect(value: object, kind: type[T], at: str) -> T:
    """``value`` if it is of ``kind``, else a ``bad_record`` naming ``at``."""
    ok = is_int(value) if kind is int else isinstance(value, kind)
    if not ok:
        raise bad_record(f"{at} must be {_KIND_NAMES.get(kind, kind.__name__)}", at)
    return value  # type: ignore[return-value]


def field(record: dict[str, object], name: str, kind: type[T], *, at: str | None = None) -> T:
    """The required field ``name`` of ``record``, checked to be of ``kind``."""
    path = at or name
    if name not in record:
        raise bad_record(f"{path} is missing", path)
    return expect(record[name], kind, path)


def optional(
    record: dict[str, object], name: str, kind: type[T], default: T, *, at: str | None = None
) -> T:
    """The optional field ``name`` (``null`` or absent gives ``default``)."""
    if record.get(name) is None:
        return default
    return expect(record[name], kind, at or name)


def player_names(value: object, at: str, *, minimum: int, maximum: int | None = None) -> list[str]:
    """A list of distinct non-empty player names."""
    names = expect(value, list, at)
    for index, name in enumerate(names):
        if not isinstance(name, str) or not name.strip():
            raise bad_record(f"{at}[{index}] must be a non-empty name", f"{at}[{index}]")
    if len(set(names)) != len(names):
        raise bad_record(f"{at} must be distinct names", at)
    if len(names) < minimum or (maximum is not None and len(names) > maximum):
        wanted = f"exactly {minimum}" if maximum == minimum else f"at least {minimum}"
        raise bad_record(f"{at} must hold {wanted} players, not {len(names)}", at)
    return list(names)


class Phase:
    """Collects the rule violations of one phase so that all of them are reported.

    A malformed-record error is never collected: it stops the check at once.

    >>> with Phase() as phase:
    ...     phase.run(int, "3")
    3
    """

    def __init__(self) -> None:
        self.errors: list[RulesError] = []

    def run(self, function: Callable[..., T], *args: object, **kwargs: object) -> T | None:
        try:
            return function(*args, **kwargs)
        except MalformedRecordError:
            raise
        except RulesError as error:
            self.errors.extend(error.errors)
            return None

    def add(self, error: RuleViolation) -> None:
        self.errors.append(error)

    def __enter__(self) -> Phase:
        return self

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if exc_type is None:
            raise_all(self.errors)


@contextmanager
def phase() -> Iterator[Phase]:
    """``with phase() as p:`` -- the same as ``with Phase() as p``."""
    with Phase() as collected:
        yield collected
