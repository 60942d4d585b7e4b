"""API input read as the OpenAPI schema describes it, no more leniently.

DRF converts what it can: the number ``5`` becomes the name ``"5"``, ``"yes"`` and ``1``
become ``true``, ``"20250101"`` and ``"2025-W01-1"`` become dates, ``"1e1"`` and ``".5"``
become decimals. The schema promises less (a name is a string, a flag a boolean, a date
``YYYY-MM-DD``), and a client that sends what the schema calls invalid should hear so,
not find its input quietly reinterpreted. :class:`StrictInputMixin` checks each field's raw
value against its documented type before DRF converts it:

==========================  =====================================  ============================
field                       JSON body                              form or multipart body
==========================  =====================================  ============================
``BooleanField``            ``true`` or ``false``                  ``true`` or ``false``
``IntegerField``, a         an integer (not a boolean)             digits, with an optional ``-``
primary-key relation, a
choice of whole numbers
``DecimalField``            a string matching :func:`decimal_pattern` (the schema's pattern)
``DateField``               a string ``YYYY-MM-DD``
``DateTimeField``           RFC 3339, with an offset (``2025-01-31T20:00:00+01:00``), from 1900
text, choices, a slug       a string without NUL                   (a string without NUL)
==========================  =====================================  ============================

``null`` is left to DRF (allowed where the field allows it; in a form, an empty value or
``null`` is null for such a field); nested objects and lists too.
A value of the wrong kind is a 400 naming the field, and so is a field the serializer does
not have (``Unknown field.``: a client written against a newer contract is not misled into
thinking an older server took it). Every serializer that reads API
input derives from the mixin (``StrictSerializer``, ``StrictModelSerializer``; query
parameters ``StrictQuerySerializer``, read like a form);
``tests/test_api_contract.py`` checks that every API view's input serializer does.
"""

import re
from decimal import Decimal

import django_filters
from django import forms
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from drf_spectacular.utils import extend_schema_field
from rest_framework import relations, serializers
from rest_framework.settings import api_settings

DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
# Date-times from 1900 (before it, the local time of Europe/Rome and other zones had offsets
# of seconds, which RFC 3339 cannot write) to 9899 (a year 9999 may not fit in UTC).
DATE_TIME_YEARS = r"(?:19[0-9]{2}|[2-8][0-9]{3}|9[0-8][0-9]{2})"
DATE_TIME_PATTERN = rf"^{DATE_TIME_YEARS}-"  # the schema's, beside its format
DATE_TIME = re.compile(
    DATE_TIME_YEARS + r"-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]{1,6})?"
    r"(?:Z|[+-][0-9]{2}:[0-9]{2})"
)
FORM_INTEGER = re.compile(r"-?[0-9]+")
BOOLEAN_WORDS = {"true": True, "false": False}
# A form cannot send JSON's null: an empty value or the word null stands for it, where a
# field may be null.
FORM_NULLS = {"", "null"}


def decimal_pattern(field: serializers.DecimalField) -> str | None:
    """The pattern of a decimal field's strings: at least one digit, at most its digits
    before and after the point, no minus sign when its minimum is 0 or more, and not zero
    when its minimum is the smallest amount above it (``0.01`` for two places). The
    OpenAPI schema documents the same pattern (``plumbing.schema``)."""
    if field.max_digits is None or field.decimal_places is None:
        return None
    whole = field.max_digits - field.decimal_places
    if whole < 1:
        return None
    sign = "" if field.min_value is not None and field.min_value >= 0 else "-?"
    places = field.decimal_places
    fraction = rf"(?:\.[0-9]{{1,{places}}})?" if places else ""
    if places and field.min_value is not None and field.min_value == Decimal(1).scaleb(-places):
        # More than zero, the smallest amount allowed: a digit other than 0 somewhere.
        some = "|".join(f"0{{{k}}}[1-9][0-9]{{0,{places - k - 1}}}" for k in range(places))
        above_one = rf"0{{0,{whole - 1}}}[1-9][0-9]{{0,{whole - 1}}}{fraction}"
        return rf"^(?:{above_one}|0{{1,{whole}}}\.(?:{some}))$"
    return rf"^{sign}[0-9]{{1,{whole}}}{fraction}$"


def _is_text(value) -> bool:
    return isinstance(value, str)


def _whole_number_choices(field) -> bool:
    """A choice among whole numbers (best of 1, 3 or 5): the schema documents integers."""
    return (
        isinstance(field, serializers.ChoiceField)
        and bool(field.choices)
        and all(isinstance(key, int) and not isinstance(key, bool) for key in field.choices)
    )


def problem_with(field, value, *, form: bool) -> str | None:
    """Why ``value`` is not of the kind the schema documents for ``field``, or None (a
    list's items and an object's values are checked against their own kind)."""
    if value is None or isinstance(field, serializers.Serializer | serializers.ListSerializer):
        return None
    if isinstance(field, serializers.ListField) and isinstance(value, list):
        return next(
            (p for item in value if (p := problem_with(field.child, item, form=form))), None
        )
    if isinstance(field, serializers.DictField) and isinstance(value, dict):
        return next(
            (p for item in value.values() if (p := problem_with(field.child, item, form=form))),
            None,
        )
    if isinstance(field, serializers.BooleanField):
        if (form and _is_text(value) and value in BOOLEAN_WORDS) or (
            not form and isinstance(value, bool)
        ):
            return None
        return _("Must be true or false.")
    if isinstance(
        field, serializers.IntegerField | relations.PrimaryKeyRelatedField
    ) or _whole_number_choices(field):
        if form and _is_text(value) and FORM_INTEGER.fullmatch(value):
            return None
        if not form and isinstance(value, int) and not isinstance(value, bool):
            return None
        return _("A whole number is required.")
    if isinstance(field, serializers.DecimalField):
        pattern = decimal_pattern(field)
        if _is_text(value) and (pattern is None or re.fullmatch(pattern, value)):
            return None
        return _('Enter a number as a string, such as "0.10".')
    if isinstance(field, serializers.DateTimeField):
        if _is_text(value) and DATE_TIME.fullmatch(value):
            return None
        return _("Enter a date and time such as 2025-01-31T20:00:00+01:00, from the year 1900 on.")
    if isinstance(field, serializers.DateField):
        if _is_text(value) and DATE.fullmatch(value):
            return None
        return _("Enter a date as YYYY-MM-DD.")
    if isinstance(
        field, serializers.CharField | serializers.ChoiceField | relations.SlugRelatedField
    ):
        if not _is_text(value):
            return _("Not a valid string.")
        # No database stores a NUL (PostgreSQL refuses it outright): the schema says so too.
        return _("Null characters are not allowed.") if "\x00" in value else None
    return None


class StrictInputMixin:
    """Check every field's raw value against its documented kind (see the module)."""

    reads_query = False  # query parameters are strings, read like a form

    def to_internal_value(self, data):
        if isinstance(data, dict):
            request = self.context.get("request")
            content_type = getattr(request, "content_type", "") or ""
            form = self.reads_query or (bool(content_type) and "json" not in content_type)
            errors = self._unknown(data, form=form)
            for field in self._writable_fields:
                if field.source == "*" or field.field_name not in data:
                    continue
                value = data[field.field_name]
                if form and field.allow_null and _is_text(value) and value in FORM_NULLS:
                    data = {**data, field.field_name: None}
                problem = problem_with(field, data[field.field_name], form=form)
                if problem:
                    errors[field.field_name] = [problem]
            if errors:
                raise serializers.ValidationError(errors)
        return super().to_internal_value(data)

    def _unknown(self, data: dict, *, form: bool) -> dict:
        """A field the serializer does not have is refused, by name: a client written
        against a newer contract must not find a field it relies on quietly ignored. Query
        parameters are left to the views (``page``, ``format``); a form's CSRF token is not
        a field. A read-only field is known, and ignored as DRF does (a client may send
        back what it read: the club's slug, a row's id); the request's schema, which does
        not list it, says ``additionalProperties: false`` (``plumbing.schema``)."""
        if self.reads_query:
            return {}
        known = set(self.fields)
        if form:
            known |= IGNORED_FORM_NAMES
        return {str(name)[:100]: [_("Unknown field.")] for name in data if str(name) not in known}


# Names a form body carries that are not the API's fields.
IGNORED_FORM_NAMES = {"csrfmiddlewaretoken"}


def parsers_of(kind: str) -> list:
    """The API's parsers of one kind (``"json"``, ``"multipart"``): ``parser_classes =
    parsers_of("json")`` for bodies that nest lists and objects, which a form cannot say."""

    return [p for p in api_settings.DEFAULT_PARSER_CLASSES if kind in p.media_type]


def json_parsers() -> list:
    return parsers_of("json")


class StrictSerializer(StrictInputMixin, serializers.Serializer):
    pass


class _WholeNumber(forms.IntegerField):
    """Digits only: ``1.0``, `` 5`` and ``1e3`` are not ids (Django's field reads them)."""

    def to_python(self, value):
        if value not in self.empty_values and not FORM_INTEGER.fullmatch(str(value)):
            raise forms.ValidationError(_("A whole number is required."), code="invalid")
        return super().to_python(value)


@extend_schema_field({"type": "integer", "minimum": 1, "maximum": 2**63 - 1})
class IdFilter(django_filters.NumberFilter):
    """``?season=<id>``: an object's id; one that is not there filters everything out."""

    field_class = _WholeNumber

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("min_value", 1)
        kwargs.setdefault("max_value", 2**63 - 1)
        super().__init__(*args, **kwargs)


class IdList(serializers.ListField):
    """Ids of objects (whole numbers from 1); with ``unique``, each once (the schema says
    ``uniqueItems``, ``plumbing.schema``)."""

    default_error_messages = {"not_unique": gettext_lazy("Give each one once.")}

    def __init__(self, *, unique: bool = False, **kwargs):
        kwargs.setdefault("child", serializers.IntegerField(min_value=1, max_value=2**63 - 1))
        self.unique = unique
        super().__init__(**kwargs)

    def to_internal_value(self, data):
        values = super().to_internal_value(data)
        if self.unique and len(set(values)) != len(values):
            self.fail("not_unique")
        return values


class StrictModelSerializer(StrictInputMixin, serializers.ModelSerializer):
    pass


class StrictQuerySerializer(StrictInputMixin, serializers.Serializer):
    """Query parameters read as strictly as a form body (``?session=5``, not ``5.0``).
    Give it ``query_data(request)``: a parameter given twice is a list, which a scalar
    field refuses."""

    reads_query = True


def query_data(request) -> dict:
    """The query string as a plain dict (a key given twice: a list of its values)."""
    return {
        key: values[0] if len(values) == 1 else values
        for key, values in request.query_params.lists()
    }
