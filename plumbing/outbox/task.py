"""The project's Celery task class (``task_cls`` in ``circolo/celery.py``): Celery's Django
task, whose ``delay_on_commit`` goes through the outbox instead of ``on_commit`` alone.

Imports nothing of Django's models at import time: Celery loads it while Django starts.
"""

from celery.contrib.django.task import DjangoTask


class OutboxTask(DjangoTask):
    def delay_on_commit(self, *args, **kwargs) -> None:
        """Queue the task in the current transaction: it is sent once the transaction
        commits, and again until a worker has run it (nothing is sent on a rollback)."""
        from plumbing.outbox import relay  # here: the relay imports models, not ready yet

        relay.enqueue(self, args, kwargs)

    def apply_async_on_commit(self, args=None, kwargs=None, **options) -> None:
        if options:
            raise TypeError(f"the outbox keeps no sending options: {sorted(options)}")
        from plumbing.outbox import relay  # here: the relay imports models, not ready yet

        relay.enqueue(self, args or (), kwargs or {})

    def on_success(self, retval, task_id, args, kwargs) -> None:
        from plumbing.outbox import relay  # here: the relay imports models, not ready yet

        relay.mark_done(task_id)

    def on_failure(self, exc, task_id, args, kwargs, einfo) -> None:
        from plumbing.outbox import relay  # here: the relay imports models, not ready yet

        relay.mark_failed(task_id, exc)
