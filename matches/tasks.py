"""Celery finds each app's ``tasks`` module; each game's tasks are imported here."""

from matches.spazzumazz.tasks import (  # noqa: F401
    rebuild_spazzumazz_stats,
    update_spazzumazz_stats,
)
