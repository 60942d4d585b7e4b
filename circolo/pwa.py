"""The site as an app a phone installs: its manifest, its service worker and the page the
worker shows when a page was never opened online.

The worker (``circolo/templates/pwa/sw.js``) keeps a copy of every page opened online, so that
tonight's tables, tournaments and the Spazz'u'mazz entry are there in a basement without
signal; ``circolo/static/circolo/offline.js`` keeps what is entered there on the phone and sends
it when the network returns. The worker is served from the site's root (its scope is the whole
site) and is a template because it names the static files by their hashed names.
"""

from __future__ import annotations

import hashlib
import json

from django.conf import settings
from django.http import HttpResponse, JsonResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.templatetags.static import static
from django.urls import reverse
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_safe

THEME = "#0b6e4f"
# What the worker keeps from the first visit on: the look of every page and the offline page.
SHELL = ("circolo/site.css", "circolo/site.js", "circolo/offline.js", "circolo/favicon.svg")


@require_safe
@cache_control(public=True, max_age=60 * 60)
def manifest(request) -> JsonResponse:
    """``/manifest.webmanifest``, in the language of the request (Italian or English)."""
    body = {
        "name": _("Circolo: the card club"),
        "short_name": "Circolo",
        "description": _("Tournaments, tables and debts of your card club."),
        "lang": get_language(),
        "start_url": "/",
        "scope": "/",
        "display": "standalone",
        "background_color": "#ffffff",
        "theme_color": THEME,
        "icons": [
            {"src": static("circolo/icon-192.png"), "sizes": "192x192", "type": "image/png"},
            {"src": static("circolo/icon-512.png"), "sizes": "512x512", "type": "image/png"},
            {
                "src": static("circolo/icon-512.png"),
                "sizes": "512x512",
                "type": "image/png",
                "purpose": "maskable",
            },
            {"src": static("circolo/favicon.svg"), "sizes": "any", "type": "image/svg+xml"},
        ],
    }
    response = JsonResponse(body, content_type="application/manifest+json")
    response["Vary"] = "Accept-Language, Cookie"
    return response


@require_safe
@cache_control(no_cache=True)
def service_worker(request) -> HttpResponse:
    """``/sw.js``: never cached by the browser's HTTP cache, so a new version is found at once;
    its cache's name changes whenever its text (and so a static file's name) does."""
    shell = [static(name) for name in SHELL] + [static("circolo/icon-192.png")]
    context = {
        "shell": json.dumps(shell),
        "offline": json.dumps(reverse("offline")),
        "static_prefix": json.dumps(settings.STATIC_URL),
    }
    text = render_to_string("pwa/sw.js", context)
    version = hashlib.sha256(text.encode()).hexdigest()[:12]
    response = HttpResponse(
        text.replace("__VERSION__", version), content_type="application/javascript"
    )
    response["Service-Worker-Allowed"] = "/"
    return response


@require_safe
def offline(request):
    """What the worker shows for a page never opened online while the network is gone."""
    return render(request, "pwa/offline.html")
