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
    OFF_WAITING_LIST = "off_waiting_list", _("A place freed up for you")
    NIGHT_RSVP = "night_rsvp", _("A club night: will you come?")


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
    mailed_at = models.DateTimeField(_("sent by e-mail"), null=True, blank=True)

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


class Choice(models.Model):
    """How a person wants to hear of what waits for them in one club: on the phones where
    they allowed it (Web Push), and by e-mail, at most one digest an hour. Without a row:
    push on, e-mail off."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", verbose_name=_("user")
    )
    club = models.ForeignKey(
        "clubs.Club", on_delete=models.CASCADE, related_name="+", verbose_name=_("club")
    )
    push = models.BooleanField(_("on my phones"), default=True)
    email = models.BooleanField(_("by e-mail (at most one an hour)"), default=False)

    class Meta:
        verbose_name = _("notification choice")
        verbose_name_plural = _("notification choices")
        constraints = [models.UniqueConstraint(fields=["user", "club"], name="one_choice_each")]

    def __str__(self) -> str:
        return f"{self.user} · {self.club}"


class PushSubscription(models.Model):
    """A phone (a browser) that allowed notifications: where its push service takes them,
    and the keys that encrypt them for it alone."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="push_subscriptions",
        verbose_name=_("user"),
    )
    endpoint = models.URLField(_("push service address"), max_length=800, unique=True)
    p256dh = models.CharField(max_length=200)
    auth = models.CharField(max_length=100)
    device = models.CharField(_("device"), max_length=200, blank=True)
    created = models.DateTimeField(_("created"), auto_now_add=True)
    last_sent = models.DateTimeField(_("last sent"), null=True, blank=True)

    class Meta:
        verbose_name = _("phone for notifications")
        verbose_name_plural = _("phones for notifications")

    def __str__(self) -> str:
        return f"{self.user} · {self.device or self.endpoint[:40]}"
