"""Celery looks for an app's tasks in ``<app>.tasks``: the ``matches`` app's live in its
folders, each module named here so that a worker knows them all."""

from matches.boards import live as boards_live
from matches.boards import tasks as boards_tasks
from matches.results import inbox as results_inbox
from matches.singapore import tasks as singapore_tasks
from matches.spazzumazz import tasks as spazzumazz_tasks
from matches.sputo import tasks as sputo_tasks

__all__ = [
    "boards_live",
    "boards_tasks",
    "results_inbox",
    "singapore_tasks",
    "spazzumazz_tasks",
    "sputo_tasks",
]
