"""``manage.py outbox_worker``: run the task outbox's messages and the beat schedule in this
process, where there is no broker (``make run`` starts it beside the server; see
:mod:`plumbing.outbox.worker`). With a broker, Celery's workers run the tasks: it says so
and ends."""

import signal
import threading

from celery import current_app
from django.conf import settings
from django.core.management.base import BaseCommand

from plumbing.outbox.worker import work


class Command(BaseCommand):
    help = "Run the task outbox's messages in this process (no broker: make run's worker)."

    def add_arguments(self, parser):
        parser.add_argument(
            "--parent",
            type=int,
            help="stop when the process of this pid (the server that started it) is gone",
        )

    def handle(self, *args, parent: int | None = None, **options):
        if not current_app.conf.task_always_eager:
            self.stdout.write("A broker is set: Celery's workers run the tasks. Nothing to do.")
            return
        stop = threading.Event()
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, lambda *_: stop.set())
        if not settings.OUTBOX_WORKER:
            self.stderr.write(
                "OUTBOX_WORKER is off: the server runs each write's tasks itself too."
            )
        work(current_app, stop=stop, parent=parent)
