"""Site-wide pages that belong to no app."""

from django.shortcuts import redirect
from django.templatetags.static import static
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_safe


@require_safe
@cache_control(public=True, max_age=24 * 60 * 60)
def favicon(request):
    """Browsers ask for ``/favicon.ico`` on their own: send them to the site's SVG icon.

    Not a permanent redirect: with ``STATIC_MANIFEST`` the icon's name carries a hash that
    changes when the file does.
    """
    return redirect(static("circolo/favicon.svg"))
