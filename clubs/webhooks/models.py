"""A club's webhooks and the log of what was sent to each."""

from __future__ import annotations

import secrets
import uuid

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from clubs.models import Club, ClubOwnedQuerySet, Role


class Event(models.TextChoices):
    """What a webhook can be told about (the body's ``event``)."""

    RESULT_CONFIRMED = "result.confirmed", _("A result is confirmed")
    RESULT_CORRECTED = "result.corrected", _("A result is corrected")
    MATCH_READY = "match.ready", _("A tournament match is ready to play")
    HAND_RECORDED = "hand.recorded", _("A Singapore hand is recorded")
    TOURNAMENT_FINISHED = "tournament.finished", _("A tournament is finished")
    PAYMENT_CONFIRMED = "payment.confirmed", _("A payment is confirmed")
    GAME_NAME_CHANGED = "game_name.changed", _("The game's name changes hands")


class PausedBecause(models.TextChoices):
    ADMIN = "admin", _("paused by an admin")
    FAILING = "failing", _("paused after failing for a day")


def new_secret() -> str:
    return secrets.token_urlsafe(32)


class WebhookQuerySet(ClubOwnedQuerySet):
    seen_from = Role.ADMIN  # a webhook (its secret above all) is a matter for the admins

    def active(self):
        return self.filter(paused_at__isnull=True)


class Webhook(models.Model):
    """A URL a club's admin registered, told about ``events`` (a list of :class:`Event`
    values), each delivery signed with ``secret``."""

    club = models.ForeignKey(
        Club, on_delete=models.CASCADE, related_name="webhooks", verbose_name=_("club")
    )
    url = models.CharField(
        _("URL"),
        max_length=500,
        help_text=_("An http:// or https:// address that receives the events as JSON."),
    )
    events = models.JSONField(_("events"), default=list)
    secret = models.CharField(_("secret"), max_length=64, default=new_secret, editable=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("created by"),
    )
    created_at = models.DateTimeField(_("created"), default=timezone.now)
    paused_at = models.DateTimeField(_("paused"), null=True, blank=True)
    paused_because = models.CharField(
        _("paused because"), max_length=10, choices=PausedBecause.choices, blank=True
    )
    # The first failed attempt since the last delivered one: a day of failures pauses it.
    failing_since = models.DateTimeField(_("failing since"), null=True, blank=True)
    # When the admins were told of the last pause for failures (a task run twice mails once).
    admins_told_at = models.DateTimeField(_("admins told"), null=True, blank=True)

    objects = WebhookQuerySet.as_manager()

    class Meta:
        ordering = ["club", "created_at", "pk"]
        verbose_name = _("webhook")
        verbose_name_plural = _("webhooks")

    def __str__(self) -> str:
        return self.url

    @property
    def is_paused(self) -> bool:
        return self.paused_at is not None

    def event_labels(self) -> list[str]:
        return [str(Event(e).label) for e in self.events if e in Event.values]


class DeliveryStatus(models.TextChoices):
    PENDING = "pending", _("waiting")
    DELIVERED = "delivered", _("delivered")
    FAILED = "failed", _("failed")


class DeliveryQuerySet(ClubOwnedQuerySet):
    club_path = "webhook__club"
    seen_from = Role.ADMIN

    def due(self, *, at):
        """Waiting, due by ``at``, for a webhook that is not paused."""
        return self.filter(
            status=DeliveryStatus.PENDING,
            next_attempt_at__lte=at,
            webhook__paused_at__isnull=True,
        )


class Delivery(models.Model):
    """One event for one webhook: the body sent (the same at every attempt, so the same
    signature), and how its attempts went."""

    uid = models.UUIDField(_("delivery id"), default=uuid.uuid4, unique=True, editable=False)
    webhook = models.ForeignKey(
        Webhook, on_delete=models.CASCADE, related_name="deliveries", verbose_name=_("webhook")
    )
    event = models.CharField(_("event"), max_length=40, choices=Event.choices)
    body = models.JSONField(_("body"))
    created_at = models.DateTimeField(_("created"), default=timezone.now)
    status = models.CharField(
        _("status"), max_length=10, choices=DeliveryStatus.choices, default=DeliveryStatus.PENDING
    )
    attempts = models.PositiveSmallIntegerField(_("attempts"), default=0)
    next_attempt_at = models.DateTimeField(_("next attempt"), null=True, blank=True)
    last_attempt_at = models.DateTimeField(_("last attempt"), null=True, blank=True)
    response_code = models.PositiveSmallIntegerField(_("response code"), null=True, blank=True)
    error = models.CharField(_("error"), max_length=300, blank=True)
    delivered_at = models.DateTimeField(_("delivered"), null=True, blank=True)

    objects = DeliveryQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-pk"]
        verbose_name = _("webhook delivery")
        verbose_name_plural = _("webhook deliveries")
        indexes = [
            # The retry sweep's query: the waiting ones by due time (a small part of the log).
            models.Index(
                fields=["next_attempt_at"],
                condition=Q(status="pending"),
                name="webhook_delivery_due",
            ),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(status="pending", next_attempt_at__isnull=False)
                | (~Q(status="pending") & Q(next_attempt_at__isnull=True)),
                name="webhook_delivery_due_iff_pending",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.event} -> {self.webhook_id} ({self.status})"
