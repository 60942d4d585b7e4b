"""The write sent once (see the app's docstring): :func:`sent_once` for any key;
:func:`once_per_form` (a view decorator) and :func:`form_sent_once` for a form's token;
:func:`api_key`, :func:`fingerprint` and :func:`api_sent_once` for an API's
``Idempotency-Key``."""

from __future__ import annotations

import functools
import hashlib
import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.http import HttpResponseRedirect
from django.utils import timezone
from django.utils.translation import gettext as _

from plumbing.once import KEY_LENGTH
from plumbing.once.models import Submission

HEADER = "Idempotency-Key"
KEY_REUSED = "key_reused"  # the error code of a key sent again with another request: a 422
FORM_FIELD = "once"  # the form's hidden field holding its token
FORM_SCOPE = "form"
TOKEN = re.compile(r"[A-Za-z0-9_-]{16,64}")
# A form's fields that say nothing about what it writes, or that must not be hashed.
UNHASHED = {"csrfmiddlewaretoken", FORM_FIELD}
REDIRECTS = (301, 302, 303, 307, 308)


class Sent:
    """What :func:`sent_once` gives the write: ``before`` is the result the first sending
    kept (a URL, an id) when this is the same key again (then write nothing); otherwise the
    write runs and tells :meth:`keep` what to answer when the key comes again."""

    def __init__(self, before: str = "") -> None:
        self.before = before
        self.result = ""

    def keep(self, result: str) -> None:
        self.result = str(result)


def key_reused() -> ValidationError:
    return ValidationError(
        {
            HEADER: ValidationError(
                _("This %(header)s was already used for another request.") % {"header": HEADER},
                code=KEY_REUSED,
            )
        }
    )


def check_key(key: str) -> str:
    """The key as it is, or a 400 naming the header when it is too long."""
    key = str(key or "")
    if len(key) > KEY_LENGTH:
        raise ValidationError(
            {
                HEADER: _("An %(header)s has at most %(n)s characters.")
                % {"header": HEADER, "n": KEY_LENGTH}
            }
        )
    return key


def api_key(request) -> str:
    """The request's ``Idempotency-Key`` ('' without one), whole; a 400 if too long."""
    return check_key(request.headers.get(HEADER, ""))


def _plain(data):
    """A request's data as plain JSON: a form's fields as lists of their values."""
    if hasattr(data, "getlist"):
        return {name: data.getlist(name) for name in data}
    return data


def fingerprint(data, *, leave_out=frozenset()) -> str:
    """A hash of a request's body (parsed): the same fields and values, the same hash."""
    data = _plain(data)
    if isinstance(data, dict):
        data = {k: v for k, v in data.items() if k not in leave_out}
    text = json.dumps(data, sort_keys=True, default=str, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


@contextmanager
def sent_once(*, scope: str, user, key: str, fingerprint: str = "") -> Iterator[Sent]:
    """Run the ``with`` block's write once per ``scope``, ``user`` and ``key``, in one
    transaction with the row that remembers it. Without a key the write just runs. The same
    key with another ``fingerprint`` is a 422 (``KEY_REUSED``) naming the header."""
    if not key:
        yield Sent()
        return
    owner = user if user is not None and user.is_authenticated else None
    with transaction.atomic():
        try:
            # A key being written by another request: this waits for its commit.
            with transaction.atomic():
                row = Submission.objects.create(
                    scope=scope, user=owner, key=check_key(key), fingerprint=fingerprint
                )
        except IntegrityError:
            row = Submission.objects.get(scope=scope, user=owner, key=key)
        else:
            sent = Sent()
            yield sent
            if sent.result:
                row.result = sent.result
                row.save(update_fields=["result"])
            else:  # nothing written to remember (a preview, a refusal shown as a message)
                row.delete()
            return
    if fingerprint and row.fingerprint and row.fingerprint != fingerprint:
        raise key_reused()
    yield Sent(before=row.result)


@contextmanager
def api_sent_once(request, *, scope: str, key: str) -> Iterator[Sent]:
    """:func:`sent_once` for an API write: ``key`` is the request's :func:`api_key` (read
    before its body is checked), the fingerprint a hash of its body."""
    with sent_once(
        scope=scope, user=request.user, key=key, fingerprint=fingerprint(request.data)
    ) as sent:
        yield sent


def form_key(request) -> str:
    """The form's token with a hash of what it sends ('' when it has no token): a double
    tap sends the same; the form changed and sent again is another write."""
    token = request.POST.get(FORM_FIELD, "")
    if not TOKEN.fullmatch(token):
        return ""
    leave_out = UNHASHED | {name for name in request.POST if "password" in name}
    body = fingerprint(request.POST, leave_out=frozenset(leave_out))
    path = hashlib.sha256(request.path.encode()).hexdigest()[:16]
    return f"{token}:{path}:{body}"


@contextmanager
def form_sent_once(request) -> Iterator[Sent]:
    """:func:`sent_once` for a form's token: ``sent.before`` is where the first submit went
    (redirect there); after the write, ``sent.keep(url)``."""
    with sent_once(scope=FORM_SCOPE, user=request.user, key=form_key(request)) as sent:
        yield sent


def purge(*, older_than: timedelta, at=None) -> int:
    """Drop the rows sent more than ``older_than`` ago; how many."""
    at = at or timezone.now()
    deleted, _by_model = Submission.objects.filter(created_at__lt=at - older_than).delete()
    return deleted


def once_per_form(view):
    """A write form's view, run once per form token (:func:`form_sent_once`): the second
    submit of the same form writes nothing and goes where the first went (with a word
    saying so). What the first submit answered with a redirect is remembered; a page shown
    again (a form's errors, a preview) is not, and that same form may be sent again."""

    @functools.wraps(view)
    def wrapped(request, *args, **kwargs):
        if request.method != "POST" or not form_key(request):
            return view(request, *args, **kwargs)
        with form_sent_once(request) as sent:
            if sent.before:
                messages.info(request, _("This form was already sent: nothing more recorded."))
                return HttpResponseRedirect(sent.before)
            response = view(request, *args, **kwargs)
            if response.status_code in REDIRECTS and response.get("Location"):
                sent.keep(response["Location"])
            return response

    return wrapped
