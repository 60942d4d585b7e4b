"""Settings of the load benchmarks: the site's own, plus a bare view on the same server."""

from circolo.settings import *  # noqa: F403

ROOT_URLCONF = "benchmarks.bench_urls"
DEBUG = False
