"""The inbox's rows (app ``clubs``; imported by ``clubs/models.py``)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class Kind(models.TextChoices):
    CONFIRM_RESULT = "confirm_result", _("A result to confirm")
    DECIDE_DISPUTE = "decide_dispute", _("A dispute to decide")
    MATCH_READY = "match_ready", _("Your match is ready")
    CHECK_IN = "check_in", _("Check-in is open")
    CONFIRM_PAYMENT = "confirm_payment", _("A payment to confirm")
    INVITATION = "invitation", _("An invitation")


class NotificationQuerySet(models.QuerySet):
    def waiting(self):
        """What still waits (its action not yet done by anyone)."""
        return self.filter(done_at__isnull=True)


class Notification(models.Model):
    """One action waiting for one person: ``key`` names the thing it is about (one row per
    person, kind and thing); ``data`` holds the names its sentence shows."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="notifications",
        verbose_name=_("user"),
    )
    club = models.ForeignKey(
        "clubs.Club",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("club"),
    )
    kind = models.CharField(_("kind"), max_length=32, choices=Kind.choices)
    key = models.CharField(_("about"), max_length=120)
    url = models.CharField(_("link"), max_length=300)
    data = models.JSONField(_("details"), default=dict, blank=True)
    created = models.DateTimeField(_("created"))
    read_at = models.DateTimeField(_("read"), null=True, blank=True)
    done_at = models.DateTimeField(_("done"), null=True, blank=True)

    objects = NotificationQuerySet.as_manager()

    class Meta:
        ordering = ["-created", "-pk"]
        verbose_name = _("notification")
        verbose_name_plural = _("notifications")
        constraints = [
            models.UniqueConstraint(fields=["user", "kind", "key"], name="one_notification_each")
        ]
        indexes = [models.Index(fields=["user", "done_at", "read_at"])]

    def __str__(self) -> str:
        return f"{self.user} · {self.kind} · {self.key}"

    @property
    def read(self) -> bool:
        return self.read_at is not None
