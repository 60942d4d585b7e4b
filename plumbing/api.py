"""API plumbing shared by every app: the error format and its status codes.

Every error body has one shape (``plumbing.schema.ERROR_SCHEMA`` documents it): an object
whose ``detail`` says what went wrong when no one field is at fault, or whose keys name the
fields at fault (``non_field_errors`` for the body as a whole), each with a list of
messages; a rules-engine error is an object ``{"code", "message", "at"}`` in that list
(``plumbing.rule_errors``).

The status follows from the error codes of a validation error, so that services say what
happened once, for the pages and the API alike:

- ``not_found`` (and DRF's ``does_not_exist``, a related object named in the body that the
  user cannot see): **404** when every error is one;
- ``conflict`` (the request is well-formed but clashes with what is stored: a name
  already taken, the last admin, an invitation used up): **409** when every error is one;
  a constraint that caught two requests racing (``IntegrityError``) is a 409 too;
- ``key_reused`` (an ``Idempotency-Key`` sent again with another body): **422**;
- anything else: **400**.

Errors of nested fields (a list's items, a nested object) are named by their path, one level
deep: ``players[1]``, ``side_bets[0].quotas`` (:func:`flat`).
"""

from django.core.exceptions import PermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError
from django.http import Http404
from django.utils.translation import gettext_lazy as _
from rest_framework import exceptions, status
from rest_framework.exceptions import ErrorDetail
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.views import exception_handler as drf_exception_handler

from plumbing.errors import Conflict
from plumbing.rule_errors import as_api_item, is_rules_error

NOT_FOUND_CODES = frozenset({"not_found", "does_not_exist"})
CONFLICT_CODES = frozenset({"conflict"})
# An ``Idempotency-Key`` sent again with another request (``plumbing.once``).
UNPROCESSABLE_CODES = frozenset({"key_reused"})


class NotFoundError(exceptions.ValidationError):
    status_code = status.HTTP_404_NOT_FOUND


class ConflictError(exceptions.ValidationError):
    status_code = status.HTTP_409_CONFLICT


class UnprocessableError(exceptions.ValidationError):
    status_code = status.HTTP_422_UNPROCESSABLE_ENTITY


def _drf_detail(error: DjangoValidationError):
    """A Django ``ValidationError`` as DRF's detail, keeping each message's code."""

    def details(errors) -> list:
        out: list = []
        for one in errors:
            if is_rules_error(one):
                # An engine error keeps its code and where it is (plumbing.rule_errors).
                out.append(as_api_item(one))
                continue
            out.extend(ErrorDetail(message, code=one.code or "invalid") for message in one.messages)
        return out

    if hasattr(error, "error_dict"):
        return {field: details(errors) for field, errors in error.error_dict.items()}
    return {"non_field_errors": details(error.error_list)}


def _is_rules_item(value) -> bool:
    return isinstance(value, dict) and isinstance(value.get("message"), str) and "code" in value


def flat(detail, prefix: str = "") -> dict:
    """Nested field errors (a list's items, a nested object's fields) as one level, each key
    the path of the field at fault: ``{"players": {"1": [...]}}`` becomes
    ``{"players[1]": [...]}``, ``{"side_bets": [{}, {"quotas": [...]}]}`` becomes
    ``{"side_bets[1].quotas": [...]}``; the one error body (``plumbing.schema``) has lists of
    messages only."""
    out: dict = {}

    def key(name) -> str:
        name = str(name)
        if not prefix:
            return name
        if name == api_settings.NON_FIELD_ERRORS_KEY:  # the nested value as a whole
            return prefix
        return f"{prefix}[{name}]" if name.isdigit() else f"{prefix}.{name}"

    if isinstance(detail, dict):
        for name, value in detail.items():
            if isinstance(value, dict) and not _is_rules_item(value):
                out.update(flat(value, key(name)))
            elif isinstance(value, list) and any(
                isinstance(v, dict | list) and not _is_rules_item(v) for v in value
            ):
                for index, item in enumerate(value):
                    if isinstance(item, dict | list) and not _is_rules_item(item):
                        out.update(flat(item, f"{key(name)}[{index}]"))
                    elif item:
                        out.setdefault(key(name), []).append(item)
            else:
                out[key(name)] = value
    elif isinstance(detail, list):
        for index, item in enumerate(detail):
            if isinstance(item, dict | list) and not _is_rules_item(item):
                out.update(flat(item, f"{prefix}[{index}]"))
            elif item:
                out.setdefault(prefix or "non_field_errors", []).append(item)
    return out


def _codes(detail) -> set[str]:
    if isinstance(detail, dict):
        return set().union(*(_codes(value) for value in detail.values())) if detail else set()
    if isinstance(detail, list):
        return set().union(*(_codes(value) for value in detail)) if detail else set()
    return {getattr(detail, "code", None) or "invalid"}


def with_status(exc: exceptions.ValidationError) -> exceptions.ValidationError:
    """The validation error as a 404 or a 409 when its codes say so (see the module)."""
    if type(exc) is not exceptions.ValidationError:
        return exc
    codes = _codes(exc.detail)
    for kind, known in (
        (NotFoundError, NOT_FOUND_CODES),
        (ConflictError, CONFLICT_CODES),
        (UnprocessableError, UNPROCESSABLE_CODES),
    ):
        if codes and codes <= known:
            converted = kind.__new__(kind)
            converted.detail = exc.detail
            return converted
    return exc


class StateConflict(exceptions.APIException):
    """A request that comes at the wrong moment (``plumbing.errors.Conflict``): 409."""

    status_code = status.HTTP_409_CONFLICT
    default_detail = _("This conflicts with the current state.")
    default_code = "conflict"


def exception_handler(exc: Exception, context: dict) -> Response | None:
    """DRF's handler, plus model/service ``ValidationError`` turned into a 400 (404, 409)
    naming fields."""
    if isinstance(exc, DjangoValidationError):
        detail = _drf_detail(exc)
        exc = exceptions.ValidationError()
        exc.detail = detail  # as built: a rules-engine error's ``at`` stays an integer
    elif isinstance(exc, IntegrityError):
        # A constraint caught what validation could not: two requests raced for one name.
        exc = ConflictError(
            {"non_field_errors": [_("This conflicts with a change made at the same moment.")]}
        )
    elif isinstance(exc, Conflict):
        exc = StateConflict(exc.message)
    elif isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied(str(exc) or None)
    if isinstance(exc, exceptions.ValidationError):
        exc = with_status(exc)
        if isinstance(exc.detail, dict):
            exc.detail = flat(exc.detail)
    return drf_exception_handler(exc, context)
