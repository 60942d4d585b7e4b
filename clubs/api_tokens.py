"""The API tokens' rows (app ``clubs``; imported by ``clubs/models.py``): one per device,
expiring, and dead with the password they were issued under (``clubs/tokens.py``)."""

from __future__ import annotations

import hashlib

from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from knox.models import AbstractAuthToken, AuthTokenManager


def password_stamp(user) -> str:
    """A fingerprint of the user's password as it is now: a token issued under another
    password is dead (``clubs.tokens``). The password column is a salted hash already; this
    hash of it tells nothing more."""
    return hashlib.sha256(user.password.encode()).hexdigest()


class ApiTokenQuerySet(models.QuerySet):
    def unexpired(self, *, at=None):
        return self.filter(Q(expiry__isnull=True) | Q(expiry__gt=at or timezone.now()))


class ApiToken(AbstractAuthToken):
    """An API token of one device (django-rest-knox keeps only its hash): it expires, and
    it dies with the password it was issued under (see ``clubs.tokens``)."""

    device = models.CharField(_("device"), max_length=200, blank=True)
    last_used = models.DateTimeField(_("last used"), null=True, blank=True)
    password_stamp = models.CharField(max_length=64, editable=False)

    objects = AuthTokenManager.from_queryset(ApiTokenQuerySet)()

    class Meta:
        verbose_name = _("API token")
        verbose_name_plural = _("API tokens")

    def __str__(self) -> str:
        return f"{self.user} · {self.device or self.token_key}"

    def is_live(self, *, at=None) -> bool:
        at = at or timezone.now()
        return (self.expiry is None or self.expiry > at) and (
            self.password_stamp == password_stamp(self.user)
        )
