"""Request parsers for the API. Kept apart from circolo.api: settings import this module,
and DRF's views must not be imported while the settings load."""

from django.utils.translation import gettext_lazy as _
from rest_framework import exceptions, parsers


class JSONParser(parsers.JSONParser):
    """DRF's JSON parser, plus absurdly nested JSON as a 400 rather than a RecursionError."""

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError as error:
            raise exceptions.ParseError(_("JSON parse error: nested too deeply.")) from error
