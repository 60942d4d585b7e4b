from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

TASK_ID_PREFIX = "outbox-"


class MessageQuerySet(models.QuerySet):
    def waiting(self) -> "MessageQuerySet":
        """Not run yet (as far as we know)."""
        return self.filter(done_at__isnull=True)

    def due(self, *, at) -> "MessageQuerySet":
        """Waiting, due by ``at``, and not given up on."""
        return self.waiting().filter(due_at__lte=at, attempts__lt=settings.OUTBOX_MAX_ATTEMPTS)

    def given_up(self) -> "MessageQuerySet":
        """Sent ``OUTBOX_MAX_ATTEMPTS`` times by the sweep and never run."""
        return self.waiting().filter(attempts__gte=settings.OUTBOX_MAX_ATTEMPTS)


class Message(models.Model):
    """A task queued by a write, written in the write's transaction (see the app's
    docstring). Its Celery task id is ``outbox-<pk>``, so a worker that ran it can say so."""

    task = models.CharField(_("task"), max_length=200)
    args = models.JSONField(_("arguments"), default=list, blank=True)
    kwargs = models.JSONField(_("keyword arguments"), default=dict, blank=True)
    created_at = models.DateTimeField(_("created"), default=timezone.now)
    # When the sweep sends it (again) if no worker has run it by then.
    due_at = models.DateTimeField(_("due"))
    # How many times the sweep has sent it (the send right after the commit not counted).
    attempts = models.PositiveSmallIntegerField(_("attempts"), default=0)
    done_at = models.DateTimeField(_("done"), null=True, blank=True)
    last_error = models.TextField(_("last error"), blank=True)

    objects = MessageQuerySet.as_manager()

    class Meta:
        verbose_name = _("outbox message")
        verbose_name_plural = _("outbox messages")
        indexes = [
            # The sweep's query: the waiting ones by due time (a small part of the table).
            models.Index(
                fields=["due_at"], condition=Q(done_at__isnull=True), name="outbox_waiting_due"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.task_id} {self.task}"

    @property
    def task_id(self) -> str:
        return f"{TASK_ID_PREFIX}{self.pk}"

    @staticmethod
    def pk_from_task_id(task_id: str | None) -> int | None:
        """The message's pk from a Celery task id; None for a task not sent by the outbox."""
        if not task_id or not task_id.startswith(TASK_ID_PREFIX):
            return None
        number = task_id.removeprefix(TASK_ID_PREFIX)
        return int(number) if number.isdigit() else None
