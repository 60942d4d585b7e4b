"""Settings for ``benchmarks/pages_bench.py`` only: the site's own settings, environment and
all, with a URLconf that adds the bare view the pages are measured against. The site itself
never serves it (``circolo.settings`` keeps ``circolo.urls``)."""

from circolo.settings import *  # noqa: F403

ROOT_URLCONF = "benchmarks.urls"

# The benchmarks' own commands (``manage.py bench_data``) are found with these settings only.
INSTALLED_APPS = [*INSTALLED_APPS, "benchmarks"]  # noqa: F405
