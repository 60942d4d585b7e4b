"""The Celery app. Tasks are discovered per app (``<app>/tasks.py``).

Tasks use the outbox's task class (``plumbing.outbox.task.OutboxTask``, Celery's Django task class
with the outbox behind it): ``task.delay_on_commit(...)`` writes the task in the current
transaction and sends it once the transaction commits, and again until a worker has run it
(see ``plumbing/outbox/``). Without ``REDIS_URL`` the settings make every task run in-process
(eager).
"""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "circolo.settings")

app = Celery("circolo", task_cls="plumbing.outbox.task:OutboxTask")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
