"""The API's pagination: ``?page=`` is a page number from 1, or a 400 naming ``page``."""

import re

from django.utils.translation import gettext as _
from rest_framework import exceptions, pagination

PAGE_NUMBER = re.compile(r"[1-9][0-9]*")


class PageNumberPagination(pagination.PageNumberPagination):
    """DRF's page numbers, read strictly: ``page`` is a whole number from 1 given once
    (``abc``, ``0``, ``-1``, an empty value or ``page`` twice are a 400 naming it, as the
    schema says); a page past the last is a 404."""

    last_page_strings = ()

    def get_page_number(self, request, paginator):
        values = request.query_params.getlist(self.page_query_param)
        if not values:
            return 1
        if len(values) > 1:
            raise exceptions.ValidationError(
                {self.page_query_param: [_("Give this parameter once.")]}
            )
        if not PAGE_NUMBER.fullmatch(values[0]):
            raise exceptions.ValidationError(
                {self.page_query_param: [_("A page number is a whole number from 1.")]}
            )
        return values[0]

    def get_schema_operation_parameters(self, view):
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            if parameter["name"] == self.page_query_param:
                parameter["schema"]["minimum"] = 1
        return parameters
