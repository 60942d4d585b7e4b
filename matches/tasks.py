"""Celery finds tasks in ``<app>.tasks``: each game's tasks module is imported here."""

from matches.singapore import tasks as singapore_tasks  # noqa: F401
