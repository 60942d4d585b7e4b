"""The API's filter backend: every viewset's ``?field=`` filters, read strictly.

django-filter on its own ignores what it cannot read: ``?mine=-1``, ``?is_public=maybe``
or ``?user__isnull=`` filtered nothing and answered 200, as if the filter were not there.
Here a filter parameter the viewset declares (``filterset_fields`` or a ``filterset_class``)
is a 400 naming it when it is

- given more than once;
- empty, unless it is a text filter (an empty text filter filters nothing);
- a yes/no filter with anything but ``true`` or ``false`` (what the schema says);
- a date filter that is not an ISO date (``2025-01-31``);
- anything else its form field refuses (an unknown choice, a date that does not exist).

Every viewset gets it from ``REST_FRAMEWORK["DEFAULT_FILTER_BACKENDS"]``; the OpenAPI
schema documents the same parameters (drf-spectacular's django-filter extension, with the
NUL-free patterns of ``plumbing.schema``).
"""

import re

import django_filters
from django.utils.translation import gettext as _
from django_filters.rest_framework import DjangoFilterBackend
from rest_framework import exceptions

ISO_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
BOOLEANS = {"true", "false"}


def problem_with(filter_, values: list[str]) -> str | None:
    """Why these raw values cannot be read by ``filter_``, or None."""
    if len(values) > 1:
        return _("Give this parameter once.")
    value = values[0]
    if isinstance(filter_, django_filters.CharFilter):
        return None
    if value == "":
        return _("Give a value, or leave the parameter out.")
    if isinstance(filter_, django_filters.BooleanFilter) and value not in BOOLEANS:
        return _("Must be true or false.")
    if isinstance(filter_, django_filters.DateFilter) and not ISO_DATE.fullmatch(value):
        return _("Enter a date as YYYY-MM-DD.")
    return None


class StrictFilterBackend(DjangoFilterBackend):
    def filter_queryset(self, request, queryset, view):
        filterset = self.get_filterset(request, queryset, view)
        if filterset is None:
            return queryset
        errors = {}
        for name, filter_ in filterset.filters.items():
            values = request.query_params.getlist(name)
            problem = problem_with(filter_, values) if values else None
            if problem:
                errors[name] = [problem]
        if errors:
            raise exceptions.ValidationError(errors)
        if not filterset.is_valid():
            raise exceptions.ValidationError(
                {name: list(messages) for name, messages in filterset.errors.items()}
            )
        return filterset.qs
