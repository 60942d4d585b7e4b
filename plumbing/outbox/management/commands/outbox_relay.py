"""``manage.py outbox_relay``: send the outbox's messages that are due now, as beat's
``outbox.relay`` task does every ``OUTBOX_RELAY_SECONDS``; ``--all`` sends every waiting
one, also those not due yet and those given up on. Prints what it did and what waits."""

from celery import current_app
from django.core.management.base import BaseCommand, CommandError
from django.db.models import Min
from django.utils import timezone

from plumbing.outbox.models import Message
from plumbing.outbox.relay import sweep


class Command(BaseCommand):
    help = "Send the task outbox's messages that are due (--all: every one not run yet)."

    def add_arguments(self, parser):
        parser.add_argument(
            "--all",
            action="store_true",
            help="also the messages not due yet and those given up on (their attempts restart)",
        )

    def handle(self, *args, all: bool = False, **options):
        if all:
            Message.objects.waiting().update(due_at=timezone.now(), attempts=0)
        counts = sweep(current_app, limit=100_000)
        waiting = Message.objects.waiting().aggregate(oldest=Min("created_at"))
        self.stdout.write(
            f"sent {counts['sent']}, failed {counts['failed']}; "
            f"waiting {Message.objects.waiting().count()}, "
            f"given up {Message.objects.given_up().count()}"
            + (f", oldest from {waiting['oldest'].isoformat()}" if waiting["oldest"] else "")
        )
        if counts["failed"]:
            raise CommandError(f"{counts['failed']} not sent or failed: see their last_error")
