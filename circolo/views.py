"""Site-wide pages that belong to no app."""

from django.http import JsonResponse
from django.shortcuts import redirect
from django.templatetags.static import static
from django.utils.translation import gettext as _
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_safe
from django.views.defaults import server_error as page_server_error

from circolo.middleware import API_PREFIX


@require_safe
@cache_control(public=True, max_age=24 * 60 * 60)
def favicon(request):
    """Browsers ask for ``/favicon.ico`` on their own: send them to the site's SVG icon.

    Not a permanent redirect: with ``STATIC_MANIFEST`` the icon's name carries a hash that
    changes when the file does.
    """
    return redirect(static("circolo/favicon.svg"))


def server_error(request):
    """A 500 (``handler500``): the API's one error body under ``/api/``, the site's page
    elsewhere."""
    if request.path.startswith(API_PREFIX):
        return JsonResponse(
            {"detail": _("Server error: the request could not be completed.")}, status=500
        )
    return page_server_error(request)
