"""The site's URLconf plus a bare view: the yardstick of ``benchmarks/pages_bench.py``.

The bare view goes through the same middleware as every page (sessions, locale, CSRF,
authentication, messages, axes) and does nothing else; a page's distance from it is the
page's own cost.
"""

from django.http import HttpResponse
from django.urls import path

from circolo.urls import urlpatterns as site_urlpatterns


def bare(request):
    return HttpResponse(b"bare", content_type="text/plain")


urlpatterns = [path("bench/bare/", bare, name="bench-bare"), *site_urlpatterns]
