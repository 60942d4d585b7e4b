"""The site's URLs plus ``/bench/bare/``: a view that does nothing, behind the same
middleware, the yardstick of the load benchmarks."""

from django.http import HttpResponse
from django.urls import path

from circolo.urls import urlpatterns as site


def bare(request):
    return HttpResponse("ok", content_type="text/plain")


urlpatterns = [path("bench/bare/", bare, name="bench-bare"), *site]
