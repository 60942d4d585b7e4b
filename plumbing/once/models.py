from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from plumbing.once import KEY_LENGTH


class Submission(models.Model):
    """A write sent with a key (a form's one-time token, an API client's
    ``Idempotency-Key``), written in the write's own transaction: the same key sent again
    finds it and answers ``result``, what the first sending gave (see the app's docstring)."""

    # What kind of write: "form", "ledger.payment", "spazzumazz.game", ...
    scope = models.CharField(_("kind of write"), max_length=60)
    # Whose key: a key is the sender's own (none for a form sent while logged out).
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("user"),
    )
    key = models.CharField(_("key"), max_length=KEY_LENGTH)
    # A hash of the request the key came with: the same key with another request is refused.
    fingerprint = models.CharField(_("request hash"), max_length=64, blank=True)
    # What the first sending gave: the address it went to (a form), an object's id (the API).
    result = models.CharField(_("result"), max_length=1000, blank=True)
    created_at = models.DateTimeField(_("sent"), default=timezone.now, db_index=True)

    class Meta:
        verbose_name = _("write sent once")
        verbose_name_plural = _("writes sent once")
        constraints = [
            models.UniqueConstraint(
                fields=["scope", "user", "key"],
                condition=Q(user__isnull=False),
                name="once_key_per_user",
            ),
            models.UniqueConstraint(
                fields=["scope", "key"],
                condition=Q(user__isnull=True),
                name="once_key_logged_out",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.scope}:{self.key}"
