"""The Celery app. Tasks are discovered per app (``<app>/tasks.py``).

Tasks use Celery's Django task class, so ``task.delay_on_commit(...)`` queues a task only
once the surrounding transaction commits (a worker never sees a row that isn't there yet).
Without ``REDIS_URL`` the settings make every task run in-process (eager).
"""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "circolo.settings")

app = Celery("circolo", task_cls="celery.contrib.django.task:DjangoTask")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
