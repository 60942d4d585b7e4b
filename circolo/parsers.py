"""Request parsers for the API. Kept apart from circolo.api: settings import this module,
and DRF's views must not be imported while the settings load.

Form and multipart bodies are handed to the serializers as plain dicts, exactly like a JSON
object: DRF reads a ``QueryDict`` as an HTML form, where a missing checkbox means ``false``
and a blank optional field means "not sent" -- so a form POST of a club without
``is_public`` made a private club, and a blank currency silently became the default. As a
plain dict, what is missing takes the model's default and what is blank is checked, the
same as in JSON. A key given twice becomes a list (which a scalar field refuses).
"""

import io

from django.utils.http import parse_header_parameters
from django.utils.translation import gettext_lazy as _
from rest_framework import exceptions, parsers


class JSONParser(parsers.JSONParser):
    """DRF's JSON parser, plus absurdly nested JSON as a 400 rather than a RecursionError."""

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError as error:
            raise exceptions.ParseError(_("JSON parse error: nested too deeply.")) from error


def as_plain_dict(query_dict) -> dict:
    return {key: values[0] if len(values) == 1 else values for key, values in query_dict.lists()}


class FormParser(parsers.FormParser):
    """``application/x-www-form-urlencoded``, read like a JSON object of strings."""

    def parse(self, stream, media_type=None, parser_context=None):
        return as_plain_dict(super().parse(stream, media_type, parser_context))


class MultiPartParser(parsers.MultiPartParser):
    """``multipart/form-data``, read like a JSON object of strings (files stay files).

    A part without its ``Content-Disposition`` header is malformed: a 400, where Django's
    parser would skip it and a PATCH would quietly change nothing.
    """

    def parse(self, stream, media_type=None, parser_context=None):
        raw = stream.read() if stream is not None else b""
        _type, params = parse_header_parameters(media_type or "")
        boundary = params.get("boundary", "").encode("ascii", "replace")
        if boundary and raw:
            for part in raw.split(b"--" + boundary)[1:]:
                if part.startswith(b"--"):
                    break  # the closing delimiter
                head, blank, _body = part.partition(b"\r\n\r\n")
                if not blank or b"content-disposition" not in head.lower():
                    raise exceptions.ParseError(
                        _("Multipart form parse error: a part has no name.")
                    )
        parsed = super().parse(io.BytesIO(raw), media_type, parser_context)
        # Files as plain values too: DRF merges them into ``request.data`` with a dict's
        # update, which would read a MultiValueDict's lists.
        return parsers.DataAndFiles(as_plain_dict(parsed.data), as_plain_dict(parsed.files))
