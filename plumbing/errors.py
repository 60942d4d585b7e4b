"""Errors every floor may raise that the pages and the API answer the same way.

- Django's ``ValidationError`` is bad input: a 400 naming the field. Its code can say what
  kind of refusal it is (``plumbing.api``): :func:`conflict` builds one with the code
  ``conflict``, a 409 (the request is well-formed but clashes with what is stored: a name
  taken, overlapping seasons, the last admin); :func:`not_found` one with the code
  ``not_found``, a 404 (it names something that does not exist, or that the user may not
  see). A page shows any of them as a form error.
- :class:`Conflict` is a request that comes too late or too early for the state of things
  (a second confirmation of a result, a report on a match already decided, a payment
  confirmed twice): the API answers 409 with the message as ``detail``, the pages show it.
"""

from django.core.exceptions import ValidationError

CONFLICT = "conflict"
NOT_FOUND = "not_found"


def conflict(field: str, message: str) -> ValidationError:
    """``{field: [message]}``, a clash with what is stored."""
    return ValidationError({field: ValidationError(message, code=CONFLICT)})


def not_found(field: str, message: str) -> ValidationError:
    """``{field: [message]}``, naming something that does not exist."""
    return ValidationError({field: ValidationError(message, code=NOT_FOUND)})


class Conflict(Exception):
    """The request conflicts with the current state; ``str(error)`` says why, to the user."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
