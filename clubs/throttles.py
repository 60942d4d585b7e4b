"""Rate limits on what sends mail: password resets, sign-ups, confirmation links, invitations.

Each request that may send one counts (django-ratelimit, in the cache) against its client's
address (``MAIL_RATE_PER_ADDRESS``) and against the e-mail address it would write to
(``MAIL_RATE_PER_RECIPIENT``), in a group of its own (a reset does not use up the sign-ups).
Over either limit, nothing is sent: a page answers 429 (the API: a JSON 429), saying when to
try again. The counts live in the cache: shared by every process on Redis and on `make
run`'s cache of files (where two requests counted at the same instant may count once); with
the local-memory cache (no `CACHE_DIR`, as under `runserver`) each process counts for itself.
"""

import logging
from functools import wraps

from django.conf import settings
from django.shortcuts import render
from django_ratelimit.core import get_usage

from clubs.lockout import client_address

logger = logging.getLogger(__name__)

PASSWORD_RESET = "password-reset"
SIGN_UP = "sign-up"
CONFIRMATION = "confirmation"
INVITATION = "invitation"


def over_limit(request, *, group: str, recipient: str = "") -> int | None:
    """Count this request against its address and its ``recipient`` (if any) in ``group``:
    ``None`` while both are within their limits, else the seconds until it may be tried
    again."""
    keys = [("address", client_address(request), settings.MAIL_RATE_PER_ADDRESS)]
    recipient = recipient.strip().lower()
    if recipient:
        keys.append(("recipient", recipient, settings.MAIL_RATE_PER_RECIPIENT))
    wait = None
    for kind, value, rate in keys:
        try:
            usage = get_usage(
                request,
                group=f"{group}:{kind}",
                key=lambda _group, _request, value=value: value,
                rate=rate,
                increment=True,
            )
        except Exception:  # the cache is down: let the mail go rather than fail the request
            logger.warning("Rate limit %s not counted: the cache is unavailable", group)
            continue
        if usage and usage["should_limit"]:
            wait = max(wait or 0, usage["time_left"], 1)
    return wait


def too_many(request, wait: int):
    """The page of a request over its limit: a 429 that says when to try again."""
    minutes = max(1, round(wait / 60))
    response = render(request, "429.html", {"minutes": minutes}, status=429)
    response["Retry-After"] = str(wait)
    return response


def limit_mails(group: str, *, recipient_field: str = "email", when=None):
    """A page's POSTs count against the limits of ``group`` (the recipient: the field
    ``recipient_field``; ``when(request)`` says which POSTs count, all by default)."""

    def decorator(view):
        @wraps(view)
        def limited(request, *args, **kwargs):
            if request.method == "POST" and (when is None or when(request)):
                recipient = request.POST.get(recipient_field, "")
                wait = over_limit(request, group=group, recipient=recipient)
                if wait is not None:
                    return too_many(request, wait)
            return view(request, *args, **kwargs)

        return limited

    return decorator
