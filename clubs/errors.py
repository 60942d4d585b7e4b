"""Validation errors that say what kind of refusal they are, for the pages and the API.

A page shows any of them as a form error. The API answers with a status that follows
from the code (``circolo.api``): ``conflict`` is a 409 (the request is well-formed but
clashes with what is stored), ``not_found`` a 404 (it names something that does not
exist, or that the user may not see); any other code is a 400.
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
