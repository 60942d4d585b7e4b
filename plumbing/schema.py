"""The OpenAPI schema as the server really behaves: its errors and its input constraints.

``REST_FRAMEWORK["DEFAULT_SCHEMA_CLASS"]`` is :class:`AutoSchema`, so every view is
documented this way without doing anything:

**Error responses**, all with the one error body (:data:`ERROR_SCHEMA`, component
``Error``; ``plumbing.api`` explains the statuses):

- **400** on every operation: a NUL in any query parameter is one on every API request
  (``circolo.middleware``), and bodies, filters and pages are checked;
- **401** on every operation of a view that authenticates (credentials that are wrong or
  expired are refused wherever they are sent; anonymous writes need a login first);
- **403** on every write of such a view (a role the user lacks, a missing CSRF token);
- **404** on every operation with a path parameter (what does not exist or may not be
  seen), on paginated lists (a page past the last), and on operations whose body names
  another object (a club, a player: one the user cannot see reads as missing);
- **413** on every write: a body larger than its limit (``circolo.middleware``);
- anything more -- **409** above all -- where the view declares it, in its ``api_errors``
  attribute: ``{action: {status, ...}}`` (viewset action names, such as ``"create"`` or
  ``"accept"``, or lower-case HTTP methods for plain views)::

      class SeasonViewSet(ClubAccessMixin, viewsets.ModelViewSet):
          api_errors = {"create": {409}, "update": {409}, "destroy": {409}}

  A response given with ``@extend_schema(responses=...)`` is kept as given.

**Input constraints**, so that what the schema calls valid is accepted and what it calls
invalid is refused (a schemathesis run checks both, ``tests/test_api_schemathesis.py``):

- every free-text field of a body and every free-text query or path parameter is
  documented without NUL characters (DRF and the middleware refuse them); a body text
  field that may not be blank must hold a character other than white space (DRF trims);
- a decimal field's pattern has at least one digit, no minus sign when its minimum is 0, and
  no zero when its minimum is the smallest amount above it;
- a date-time's year is from 1900 to 9899 (``plumbing.strict.DATE_TIME_PATTERN``);
- a list of ids given each once (``plumbing.strict.IdList(unique=True)``) says ``uniqueItems``;
- a strict serializer's body refuses a field it does not have: ``additionalProperties:
  false``;
- what a serializer's fields cannot say alone (exactly one of two fields) is its
  ``request_schema_extra``, merged into its request component (``oneOf`` of ``required``).
"""

from drf_spectacular.extensions import OpenApiAuthenticationExtension, OpenApiSerializerExtension
from drf_spectacular.openapi import AutoSchema as SpectacularAutoSchema
from drf_spectacular.plumbing import (
    build_bearer_security_scheme_object,
    force_instance,
    get_lib_doc_excludes,
)
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import permissions, relations, serializers

import plumbing.strict as strict
from plumbing.once import KEY_LENGTH
from plumbing.strict import DATE_TIME_PATTERN, decimal_pattern

# The characters Python's str.strip() (and so DRF's trimming) removes, NUL aside.
WHITE_SPACE = r"\t-\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
NO_NUL = r"^[^\x00]*$"
NOT_BLANK = rf"^[^\x00]*[^\x00{WHITE_SPACE}][^\x00]*$"

RULE_ERROR_SCHEMA = {
    "type": "object",
    "description": "An error of the rules engine: its stable code, a translated message, "
    "and where it is (a card, a field, an event or turn index).",
    "properties": {
        "code": {"type": "string"},
        "message": {"type": "string"},
        "at": {"oneOf": [{"type": "string"}, {"type": "integer"}], "nullable": True},
    },
    "required": ["code", "message", "at"],
}

ERROR_SCHEMA = {
    "type": "object",
    "description": "What went wrong. `detail` when no one field is at fault; otherwise each "
    "key names a field or query parameter at fault (`non_field_errors`: the body as a "
    "whole) with its messages, a rules-engine error being an object with its code.",
    "properties": {"detail": {"type": "string"}},
    "additionalProperties": {
        "type": "array",
        "items": {"oneOf": [{"type": "string"}, RULE_ERROR_SCHEMA]},
    },
}

DESCRIPTIONS = {
    400: "Bad input: the keys name the fields or query parameters at fault.",
    401: "Not logged in, or the credentials are wrong or expired.",
    403: "Logged in, but this needs a role the user does not have in the club.",
    404: "No such object, or one the user may not see (a body's keys name a field that "
    "refers to one).",
    409: "The request clashes with what is stored (a name already taken, the last admin, "
    "an invitation that cannot be used any more).",
    413: "The body is larger than its limit (the message names it).",
    429: "Too many requests (failed logins, or mails asked for): try again later.",
}


def lib_doc_excludes() -> list:
    """Base classes whose docstrings are not an API's description (settings'
    ``GET_LIB_DOC_EXCLUDES``): a serializer without a docstring of its own has none, rather
    than the strict mixin's."""
    return [
        *get_lib_doc_excludes(),
        strict.StrictInputMixin,
        strict.StrictSerializer,
        strict.StrictModelSerializer,
        strict.StrictQuerySerializer,
    ]


class ErrorSerializer(serializers.Serializer):
    """The one error body of the API (see ``ERROR_SCHEMA``)."""


class ErrorSerializerExtension(OpenApiSerializerExtension):
    target_class = ErrorSerializer

    def map_serializer(self, auto_schema, direction):
        return ERROR_SCHEMA


ERROR_RESPONSE = ErrorSerializer


class TokenScheme(OpenApiAuthenticationExtension):
    """The API tokens (``clubs.tokens``): ``Authorization: Token <token>``, as before knox."""

    target_class = "clubs.tokens.TokenAuthentication"
    name = "tokenAuth"

    def get_security_definition(self, auto_schema):
        from knox.settings import knox_settings  # here: it reads settings on import

        return build_bearer_security_scheme_object(
            header_name="Authorization", token_prefix=knox_settings.AUTH_HEADER_PREFIX
        )


def _names_related_object(serializer) -> bool:
    fields = getattr(force_instance(serializer), "fields", None)
    if fields is None:
        return False
    return any(
        isinstance(field, relations.RelatedField | relations.ManyRelatedField)
        and not field.read_only
        for field in fields.values()
    )


class AutoSchema(SpectacularAutoSchema):
    def error_statuses(self) -> set[int]:
        """The error statuses this operation can answer (see the module)."""
        statuses = {400}
        view, method = self.view, self.method
        authenticates = bool(view.get_authenticators())
        if authenticates:
            statuses.add(401)
            if method not in permissions.SAFE_METHODS:
                statuses.add(403)
        has_path_parameters = "{" in self.path
        paginated = self._is_list_view() and self._get_paginator() is not None
        writes = method in {"POST", "PUT", "PATCH"}
        request_serializer = self.get_request_serializer() if writes else None
        if has_path_parameters or paginated or _names_related_object(request_serializer):
            statuses.add(404)
        if writes:
            statuses.add(413)  # a body over its size limit (circolo.middleware)
        action = getattr(view, "action", None) or method.lower()
        statuses |= set(getattr(view, "api_errors", {}).get(action, ()))
        return statuses

    def _is_list_view(self, serializer=None) -> bool:
        # A viewset's ``list`` that answers one object (a settle-up plan) says so.
        if getattr(self.view, "answers_one_object", False):
            return False
        return super()._is_list_view(serializer)

    def _get_response_bodies(self, direction="response"):
        responses = super()._get_response_bodies(direction)
        for status in sorted(self.error_statuses()):
            if str(status) not in responses:
                response = self._get_response_for_code(ErrorSerializer, str(status))
                response["description"] = DESCRIPTIONS.get(status, "")
                responses[str(status)] = response
        return responses

    def _get_parameters(self):
        parameters = super()._get_parameters()
        for parameter in parameters:
            _no_nul(parameter.get("schema", {}))
        return parameters

    def _map_basic_serializer(self, serializer, direction):
        schema = super()._map_basic_serializer(serializer, direction)
        if direction == "request":
            strict_body = isinstance(serializer, strict.StrictInputMixin) and not getattr(
                serializer, "reads_query", False
            )
            if strict_body:  # it refuses a field it does not have (plumbing.strict)
                schema["additionalProperties"] = False
            schema.update(getattr(serializer, "request_schema_extra", {}))
        return schema

    def _map_serializer_field(self, field, direction, bypass_extensions=False):
        schema = super()._map_serializer_field(field, direction, bypass_extensions)
        if direction != "request" or field.read_only:
            return schema
        if getattr(field, "unique", False) and schema.get("type") == "array":
            schema["uniqueItems"] = True
        if isinstance(field, serializers.DecimalField):
            _decimal_pattern(field, schema)
        elif isinstance(field, serializers.DateTimeField):
            schema["pattern"] = DATE_TIME_PATTERN
        elif isinstance(field, relations.SlugRelatedField) and _is_free_text(schema):
            # An empty slug reads as null (DRF): a slug has a character other than space.
            schema.update(minLength=1, pattern=NOT_BLANK)
        elif isinstance(field, serializers.CharField) and not field.allow_blank:
            if _is_free_text(schema) and field.trim_whitespace:
                schema["pattern"] = NOT_BLANK
            else:
                _no_nul(schema)
        else:
            _no_nul(schema)
        return schema


def _is_free_text(schema: dict) -> bool:
    return schema.get("type") == "string" and not (
        {"enum", "format", "pattern"} & set(schema) or "$ref" in schema
    )


def _no_nul(schema: dict) -> None:
    if _is_free_text(schema):
        schema["pattern"] = NO_NUL


def _decimal_pattern(field: serializers.DecimalField, schema: dict) -> None:
    pattern = decimal_pattern(field)
    if pattern is not None:
        schema["pattern"] = pattern


def idempotency_key(description) -> OpenApiParameter:
    """The ``Idempotency-Key`` header of a write that honours it (``plumbing.once``): at
    most 255 characters (longer is a 400); the same key and body answer what the first
    request recorded (200); the same key with another body is a 422 naming the key."""
    return OpenApiParameter(
        "Idempotency-Key",
        {"type": "string", "maxLength": KEY_LENGTH, "pattern": NO_NUL},
        OpenApiParameter.HEADER,
        description=description,
    )


def recorded_once(serializer, *, key, already, **schema):
    """``extend_schema`` of a create that honours an ``Idempotency-Key`` (``key`` describes
    it): ``serializer`` answers with a 201, or with a 200 for what was ``already`` recorded."""
    return extend_schema(
        parameters=[idempotency_key(key)],
        responses={201: serializer, 200: OpenApiResponse(serializer, description=already)},
        **schema,
    )
