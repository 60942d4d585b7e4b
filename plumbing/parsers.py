"""Request parsers for the API. Kept apart from plumbing.api: settings import this module,
and DRF's views must not be imported while the settings load.

Form and multipart bodies are handed to the serializers as plain dicts, exactly like a JSON
object: DRF reads a ``QueryDict`` as an HTML form, where a missing checkbox means ``false``
and a blank optional field means "not sent" -- so a form POST of a club without
``is_public`` made a private club, and a blank currency silently became the default. As a
plain dict, what is missing takes the model's default and what is blank is checked, the
same as in JSON. A key given twice becomes a list (which a scalar field refuses).
"""

import shutil
import tempfile

from django.conf import settings
from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent
from django.template.defaultfilters import filesizeformat
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
    parser would skip it and a PATCH would quietly change nothing. The body is copied to a
    file that stays in memory while it is small and goes to disk beyond
    ``FILE_UPLOAD_MAX_MEMORY_SIZE`` (the middleware has bounded its size already), read once
    for the parts' headers, then parsed by Django (which streams the files to disk too).
    """

    def parse(self, stream, media_type=None, parser_context=None):
        _type, params = parse_header_parameters(media_type or "")
        boundary = params.get("boundary", "").encode("ascii", "replace")
        with tempfile.SpooledTemporaryFile(max_size=settings.FILE_UPLOAD_MAX_MEMORY_SIZE) as body:
            if stream is not None:
                shutil.copyfileobj(stream, body, CHUNK)
            body.seek(0)
            if boundary and not _every_part_is_named(body, boundary):
                raise exceptions.ParseError(_("Multipart form parse error: a part has no name."))
            body.seek(0)
            try:
                parsed = super().parse(body, media_type, parser_context)
            except RequestDataTooBig:
                raise exceptions.ParseError(
                    _("The form's fields are too long: at most %(limit)s in all.")
                    % {"limit": filesizeformat(settings.DATA_UPLOAD_MAX_MEMORY_SIZE)}
                ) from None
            except (TooManyFieldsSent, TooManyFilesSent):
                raise exceptions.ParseError(_("The form has too many fields.")) from None
        # Files as plain values too: DRF merges them into ``request.data`` with a dict's
        # update, which would read a MultiValueDict's lists.
        return parsers.DataAndFiles(as_plain_dict(parsed.data), as_plain_dict(parsed.files))


CHUNK = 64 * 1024


def _every_part_is_named(body, boundary: bytes) -> bool:
    """Whether every part of a multipart ``body`` has a ``Content-Disposition`` header,
    reading it line by line (a line longer than ``CHUNK`` comes in pieces: no delimiter)."""
    delimiter = b"--" + boundary
    at_line_start, in_headers, named = True, False, False
    while piece := body.readline(CHUNK):
        starts_line, at_line_start = at_line_start, piece.endswith(b"\n")
        if not starts_line:
            continue
        line = piece.rstrip(b"\r\n")
        if in_headers:
            if not line:  # the blank line after a part's headers
                if not named:
                    return False
                in_headers = False
            elif line.lower().startswith(b"content-disposition:"):
                named = True
        elif line == delimiter + b"--":
            break  # the closing delimiter
        elif line.rstrip(b" \t") == delimiter:
            in_headers, named = True, False
    return not in_headers or named
