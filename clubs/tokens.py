"""API tokens: one per device, each with an expiry, revoked by a new password.

``POST /api/v1/auth/token/`` issues one (``issue_token``); clients send it as
``Authorization: Token <token>``. django-rest-knox keeps only a hash of each. A token is
dead when it expires (``API_TOKEN_DAYS``, docs/operations.md), when it is revoked (the
profile page lists a person's tokens, revokes one or all: "log out everywhere"), and when
the password it was issued under is changed or reset -- whichever way: the password page,
a reset link, the admin, ``manage.py changepassword``.
"""

import re
from datetime import timedelta

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from knox.auth import TokenAuthentication as KnoxTokenAuthentication
from knox.settings import CONSTANTS, knox_settings
from rest_framework import exceptions

from clubs.models import ApiToken, password_stamp

DEVICE_MAX_LENGTH = ApiToken._meta.get_field("device").max_length
# How stale ``last_used`` may get: at most one write a minute for each token in use.
LAST_USED_EVERY = timedelta(minutes=1)
# What a token may look like (knox's are hexadecimal): anything else is refused before the
# database is asked (a NUL, say, which PostgreSQL cannot compare).
TOKEN_SHAPE = re.compile(rf"[0-9a-f]{{{CONSTANTS.TOKEN_KEY_LENGTH},{CONSTANTS.DIGEST_LENGTH}}}")
DIGEST_SHAPE = re.compile(rf"[0-9a-f]{{{CONSTANTS.DIGEST_LENGTH}}}")


def issue_token(*, user, device: str = "") -> tuple[ApiToken, str]:
    """A new token for ``user`` on ``device`` (a name, or the client's user agent): the row,
    and the token itself, which is shown once and stored only as a hash."""
    with transaction.atomic():
        return ApiToken.objects.create(
            user=user,
            expiry=knox_settings.TOKEN_TTL,
            device=" ".join(device.split())[:DEVICE_MAX_LENGTH],
            password_stamp=password_stamp(user),
        )


def live_tokens(user, *, at=None) -> list[ApiToken]:
    """The user's tokens that still work, the last used first."""
    at = at or timezone.now()
    tokens = ApiToken.objects.filter(user=user).unexpired(at=at).select_related("user")
    return sorted(
        (token for token in tokens if token.is_live(at=at)),
        key=lambda token: token.last_used or token.created,
        reverse=True,
    )


def revoke_tokens(*, user, digest: str | None = None) -> int:
    """Revoke one of the user's tokens (by its ``digest``), or all of them; how many."""
    tokens = ApiToken.objects.filter(user=user)
    if digest is not None:
        if not DIGEST_SHAPE.fullmatch(digest):  # names none (and may hold a NUL)
            return 0
        tokens = tokens.filter(digest=digest)
    deleted, _per_model = tokens.delete()
    return deleted


def purge_dead_tokens(*, at=None) -> int:
    """Delete the tokens that expired or whose password changed (housekeeping)."""
    at = at or timezone.now()
    expired, _per_model = ApiToken.objects.exclude(
        pk__in=ApiToken.objects.unexpired(at=at).values("pk")
    ).delete()
    stale = [
        token.pk
        for token in ApiToken.objects.select_related("user").only(
            "digest", "password_stamp", "user__password"
        )
        if token.password_stamp != password_stamp(token.user)
    ]
    deleted, _per_model = ApiToken.objects.filter(pk__in=stale).delete()
    return expired + deleted


class TokenAuthentication(KnoxTokenAuthentication):
    """knox's authentication (``Authorization: Token <token>``), plus: a token issued
    under another password is refused (and deleted), a malformed one is refused before the
    database is asked, and each token's last use is kept (to the minute)."""

    def authenticate_credentials(self, token: bytes):
        try:
            text = token.decode("ascii")
        except UnicodeDecodeError:
            text = ""
        if not TOKEN_SHAPE.fullmatch(text):
            raise exceptions.AuthenticationFailed(_("Invalid token."))
        return super().authenticate_credentials(token)

    def validate_user(self, auth_token: ApiToken):
        user, auth_token = super().validate_user(auth_token)
        if auth_token.password_stamp != password_stamp(user):
            auth_token.delete()
            raise exceptions.AuthenticationFailed(
                _("The password changed since this token was issued: ask for a new one.")
            )
        now = timezone.now()
        if auth_token.last_used is None or now - auth_token.last_used >= LAST_USED_EVERY:
            ApiToken.objects.filter(pk=auth_token.pk).update(last_used=now)
            auth_token.last_used = now
        return user, auth_token
