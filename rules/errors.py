"""One exception family for everything the rules module refuses.

Every error carries a stable ``code`` from RULES.md, a message that names the
offending card, field or event, and ``at`` where it helps (a card token, a field
path such as ``"winner[3]"``, or an event/turn index).

Two kinds, matching the checker's exit codes:

* :class:`MalformedRecordError` (exit 2): the record is unusable -- not JSON,
  unknown game, a missing or mistyped field, a bad house rule.
* :class:`RuleViolation` (exit 1): the record is well-formed but breaks a rule
  (unknown cards included).

A phase that finds several errors raises :class:`ErrorGroup` carrying all of them.

>>> err = RuleViolation("too_low", "5H cannot go on 9S", at=4)
>>> err.as_dict()
{'code': 'too_low', 'message': '5H cannot go on 9S', 'at': 4}
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar

At = str | int | None


class RulesError(ValueError):
    """Base of every error the rules module raises on bad input."""

    exit_code: ClassVar[int] = 1

    def __init__(self, code: str, message: str, *, at: At = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.at = at

    @property
    def errors(self) -> tuple[RulesError, ...]:
        """The individual errors this exception stands for."""
        return (self,)

    def as_dict(self) -> dict[str, object]:
        return {"code": self.code, "message": self.message, "at": self.at}

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.code!r}, {self.message!r}, at={self.at!r})"

    def __reduce__(self) -> tuple[object, ...]:
        # Pickle (worker processes, caches) rebuilds without __init__, whose signature
        # differs per subclass; the attributes travel as the state.
        return (_rebuild, (type(self), self.args), self.__dict__)


class MalformedRecordError(RulesError):
    """The record is unusable: ``bad_json``, ``unknown_game`` or ``bad_record``."""

    exit_code = 2


class RuleViolation(RulesError):
    """The record is well-formed but breaks a rule of the game."""

    exit_code = 1


class UnknownCardError(RuleViolation):
    """A string that is not a card (``"1"``, ``"JOKER"``, ``"A S"``).

    The message quotes the token (cut short if it is long); ``token`` keeps it whole.

    >>> UnknownCardError("11H", at="loser[8]").as_dict()
    {'code': 'unknown_card', 'message': "unknown card '11H'", 'at': 'loser[8]'}
    """

    def __init__(self, token: str, *, at: At = None) -> None:
        super().__init__(
            "unknown_card",
            f"unknown card {describe(token)}",
            at=at if at is not None else token[:40],
        )
        self.token = token


class ErrorGroup(RulesError):
    """Several errors found in one phase; raised together so that all are reported."""

    def __init__(self, errors: Iterable[RulesError]) -> None:
        self._errors = tuple(errors)
        if not self._errors:
            raise ValueError("an ErrorGroup needs at least one error")
        first = self._errors[0]
        super().__init__(first.code, first.message, at=first.at)

    @property
    def errors(self) -> tuple[RulesError, ...]:
        return self._errors

    @property
    def exit_code(self) -> int:  # type: ignore[override]
        return max(e.exit_code for e in self._errors)


def _rebuild(cls: type[RulesError], args: tuple[object, ...]) -> RulesError:
    error = cls.__new__(cls)
    error.args = args
    return error


def describe(value: object, *, limit: int = 40) -> str:
    """A short, safe rendering of any JSON value for an error message.

    Never fails and never takes long, whatever the value: strings are quoted and cut
    at ``limit`` characters, huge integers, lists and objects are named, not printed
    (``repr`` of a 5000-digit integer raises, and of deep nesting recurses).

    >>> describe("QH"), describe(7), describe(True), describe(None), describe([1, [2]])
    ("'QH'", '7', 'true', 'null', 'a list')
    >>> describe("x" * 100, limit=5), describe(10**400)
    ("'xxxxx...'", 'a very large integer')
    """
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value) if value.bit_length() <= 64 else "a very large integer"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        if len(value) > limit:
            quoted = repr(value[:limit])
            return quoted[:-1] + "..." + quoted[-1]
        return repr(value)
    if isinstance(value, list | tuple):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return f"a {type(value).__name__}"


def raise_all(errors: list[RulesError]) -> None:
    """Raise the collected errors of a phase, if any: one alone, several as a group."""
    if len(errors) == 1:
        raise errors[0]
    if errors:
        raise ErrorGroup(errors)
