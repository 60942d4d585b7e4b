"""The games' Celery tasks: each game's own module, imported here so that Celery's
autodiscovery (``<app>.tasks``) registers them."""

from matches.singapore import tasks as singapore_tasks  # noqa: F401
from matches.sputo.tasks import update_sputo_ratings  # noqa: F401
