"""What every API request gets, whichever view answers it (or none does)."""

from django.http import JsonResponse
from django.utils.translation import gettext as _

API_PREFIX = "/api/"


def _printable(name: str) -> str:
    return name.replace("\x00", "\\0")


class ApiRequestMiddleware:
    """For every request under ``/api/``:

    - a NUL character in a query parameter (its name or a value) is a 400 naming the
      parameter, before any view sees it (the databases cannot store one, and no filter or
      search means one); one in the path is a 404;
    - a client error that no API view answered is JSON like every other API error: a URL that
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
        if 400 <= response.status_code < 500 and not response.get("Content-Type", "").startswith(
            "application/json"
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
