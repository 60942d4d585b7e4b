"""What every API request gets, whichever view answers it (or none does)."""

import time

from django.conf import settings
from django.http import Http404, JsonResponse
from django.shortcuts import render
from django.template.defaultfilters import filesizeformat
from django.utils.translation import gettext as _

import plumbing.public_pages as public_pages

API_PREFIX = "/api/"


def _printable(name: str) -> str:
    return name.replace("\x00", "\\0")


class ApiRequestMiddleware:
    """For every request under ``/api/``:

    - a NUL character in a query parameter (its name or a value) is a 400 naming the
      parameter, before any view sees it (the databases cannot store one, and no filter or
      search means one); one in the path is a 404;
    - an error that no API view answered is JSON like every other API error: a URL that
      matches no API route is a JSON 404 (an unknown game in ``house-rules/<game>/``, an id
      with a slash in it), never Django's HTML page, and django-axes' lockout of the token
      endpoint a JSON 429. The missing-slash redirect of ``CommonMiddleware`` (listed
      before this) still happens.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if not request.path.startswith(API_PREFIX):
            return self.get_response(request)
        if "\x00" in request.path:  # names nothing, and no database may be asked for it
            return JsonResponse({"detail": _("Not found.")}, status=404)
        for name, values in request.GET.lists():
            if "\x00" in name or any("\x00" in value for value in values):
                return JsonResponse(
                    {_printable(name): [_("Null characters are not allowed.")]}, status=400
                )
        response = self.get_response(request)
        # Django's debug page of a 5xx stays HTML under DEBUG (the programmer's traceback).
        if (
            response.status_code >= 400
            and not (settings.DEBUG and response.status_code >= 500)
            and not response.get("Content-Type", "").startswith("application/json")
        ):
            return JsonResponse({"detail": self.detail(response)}, status=response.status_code)
        return response

    @staticmethod
    def detail(response) -> str:
        if response.status_code == 404:
            return _("Not found.")
        if response.status_code == 429:
            return _("Too many failed logins: try again later.")
        return response.reason_phrase


def _content_length(request) -> int:
    try:
        return max(0, int(request.META.get("CONTENT_LENGTH") or 0))
    except ValueError:
        return 0


def body_limit(request) -> int:
    """The largest body ``request`` may have: ``UPLOAD_MAX_BYTES`` for a multipart form
    (files), ``DATA_UPLOAD_MAX_MEMORY_SIZE`` for any other body (read whole into memory)."""
    if request.content_type == "multipart/form-data":
        return settings.UPLOAD_MAX_BYTES
    return settings.DATA_UPLOAD_MAX_MEMORY_SIZE


class BoundedRequestMiddleware:
    """For every request, before anything reads its body or asks the database about it:

    - a body larger than its limit (:func:`body_limit`, by its ``Content-Length``; the
      server reads no more than that) is a 413 naming the limit (JSON under ``/api/``);
    - on pages, a NUL character in the path is a 404 and one in a query parameter a 400
      (PostgreSQL cannot store or compare one; ``ApiRequestMiddleware`` answers the API's).

    Its checks run before any middleware's ``process_view`` (where the CSRF check reads a
    form), so it may sit after the authentication, which the error pages' layout needs.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        api = request.path.startswith(API_PREFIX)
        limit = body_limit(request)
        if _content_length(request) > limit:
            message = _("The request is too large: at most %(limit)s.") % {
                "limit": filesizeformat(limit)
            }
            if api:
                return JsonResponse({"detail": message}, status=413)
            return render(request, "400.html", {"code": 413, "message": message}, status=413)
        if not api:
            if "\x00" in request.path:
                raise Http404(_("Not found."))
            if any(
                "\x00" in name or any("\x00" in value for value in values)
                for name, values in request.GET.lists()
            ):
                message = _("The address holds a character that is not allowed (NUL).")
                return render(request, "400.html", {"code": 400, "message": message}, status=400)
        return self.get_response(request)


class WritesForgetOwnPages:
    """After a write request (any method but GET, HEAD, OPTIONS, TRACE), this process forgets
    the pages it keeps in memory for the session that sent it (``plumbing.public_pages``:
    a second at most), so that whoever wrote sees their write on the next page at once;
    and the answer names the write in a cookie (``public_pages.WROTE_COOKIE``), which the
    pages a process keeps for a session are kept under, so that the server's other
    processes, which kept theirs before the write, miss them too. What the write changed for
    everyone else moves with the versions the services bump (``public_pages.changed``),
    never with the URL: nothing here touches the shared cache."""

    SAFE = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if request.method not in self.SAFE:
            session = request.COOKIES.get(settings.SESSION_COOKIE_NAME)
            if session:
                public_pages.forget_session(session)
                response.set_cookie(
                    public_pages.WROTE_COOKIE,
                    str(time.time_ns()),
                    max_age=public_pages.WROTE_SECONDS,
                    secure=settings.SESSION_COOKIE_SECURE,
                    httponly=True,
                    samesite="Lax",
                )
        return response
