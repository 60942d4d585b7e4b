"""The inbox's one door: :func:`sync` (what waits on a thing now), :func:`mark_read`, and
the reads the pages and the API share."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from django.conf import settings
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from clubs.inbox.models import Choice, Notification, PushSubscription
from clubs.inbox.tasks import deliver
from clubs.inbox.words import sentence
from clubs.webhooks.addresses import Refused, public_addresses

__all__ = ["Waiting", "sentence", "sync"]


@dataclass(frozen=True)
class Waiting:
    """An action that waits for ``user_id`` on the thing: its kind, link and sentence's names."""

    user_id: int
    kind: str
    url: str
    data: dict = field(default_factory=dict, hash=False, compare=False)
    #: The names in ``data`` whose change is news that calls the person again (pushed, and
    #: unread once more): a ready match given its table ("Table 3: you against Bruno").
    calls_again_on: tuple[str, ...] = field(default=(), hash=False, compare=False)


def _count_key(user_id: int) -> str:
    return f"inbox:unread:{user_id}"


def version_key(user_id: int) -> str:
    """``MEMBER_PAGE_VERSIONS``: the cache key of a version that moves whenever what waits
    for the user changes (a page kept for them shows the bell and "waiting for you")."""
    return f"inbox:version:{user_id}"


def _changed(user_id: int) -> None:
    cache.delete(_count_key(user_id))
    cache.set(version_key(user_id), time.time_ns(), timeout=None)


@transaction.atomic
def sync(*, key: str, club_id: int | None, kinds: set[str], waiting: list[Waiting]) -> None:
    """What waits on the thing ``key`` now, among ``kinds``: each of ``waiting`` is opened
    (created, or opened again with its link and names brought up to date), every other
    row of these kinds on ``key`` that was still open is done. Safe to run twice."""
    now = timezone.now()
    wanted = {(w.user_id, w.kind): w for w in waiting}
    touched: set[int] = set()
    existing = {
        (n.user_id, n.kind): n
        for n in Notification.objects.select_for_update().filter(key=key, kind__in=kinds)
    }
    for (user_id, kind), row in existing.items():
        if (user_id, kind) not in wanted and row.done_at is None:
            row.done_at = now
            row.save(update_fields=["done_at"])
            touched.add(user_id)
    for (user_id, kind), w in wanted.items():
        row = existing.get((user_id, kind))
        if row is None:
            row = Notification.objects.create(
                user_id=user_id,
                club_id=club_id,
                kind=kind,
                key=key,
                url=w.url,
                data=w.data,
                created=now,
            )
            deliver.delay_on_commit(notification_id=row.pk)
            touched.add(user_id)
        elif row.done_at is not None or row.url != w.url or row.data != w.data:
            reopened = row.done_at is not None or any(
                w.data.get(name) is not None and row.data.get(name) != w.data.get(name)
                for name in w.calls_again_on
            )
            row.url, row.data, row.done_at = w.url, w.data, None
            if reopened:  # waiting again (a new report after a withdrawal), or news: unread
                row.created, row.read_at = now, None
            row.save(update_fields=["url", "data", "done_at", "created", "read_at"])
            if reopened:
                deliver.delay_on_commit(notification_id=row.pk)
            touched.add(user_id)
    for user_id in touched:
        _changed(user_id)


def sync_on(thing, *, kind: str, waiting: list[Waiting]) -> str:
    """``sync`` for one kind of notification waiting on one row of a club's (keyed by its
    model and id); what a task answers: how many wait."""
    sync(
        key=f"{thing._meta.label_lower}:{thing.pk}",
        club_id=thing.club_id,
        kinds={kind},
        waiting=waiting,
    )
    return f"{len(waiting)} waiting"


def waiting_for(user, *, club=None):
    """The user's open notifications, unread first, newest first."""
    rows = Notification.objects.waiting().filter(user=user).select_related("club")
    if club is not None:
        rows = rows.filter(club=club)
    return rows.order_by("read_at", "-created", "-pk")


def unread_count(user) -> int:
    """The bell's number: from the cache (cleared by every change), else one query."""
    if not user.is_authenticated:
        return 0
    key = _count_key(user.pk)
    found = cache.get(key)
    if found is None:
        found = Notification.objects.waiting().filter(user=user, read_at__isnull=True).count()
        cache.set(key, found, timeout=60 * 60)
    return found


def mark_read(*, notification: Notification) -> Notification:
    if notification.read_at is None:
        notification.read_at = timezone.now()
        notification.save(update_fields=["read_at"])
        _changed(notification.user_id)
    return notification


def mark_all_read(*, user) -> int:
    marked = (
        Notification.objects.waiting()
        .filter(user=user, read_at__isnull=True)
        .update(read_at=timezone.now())
    )
    _changed(user.pk)
    return marked


# --- How people hear of it ----------------------------------------------------------------


def choices_of(user) -> list[dict]:
    """Each of the user's clubs with how they hear of what waits there (push on, e-mail
    off without a row of their own)."""
    mine = {c.club_id: c for c in Choice.objects.filter(user=user)}
    rows = []
    for membership in user.memberships.select_related("club").order_by("club__name"):
        choice = mine.get(membership.club_id)
        rows.append(
            {
                "club": membership.club,
                "push": choice.push if choice else True,
                "email": choice.email if choice else False,
            }
        )
    return rows


@transaction.atomic
def save_choices(*, user, push: set[int], email: set[int]) -> None:
    """The profile's form: for each of the user's clubs, push on for ``push``, e-mail for
    ``email`` (ids of other clubs are ignored)."""
    for club_id in user.memberships.values_list("club_id", flat=True):
        Choice.objects.update_or_create(
            user=user,
            club_id=club_id,
            defaults={"push": club_id in push, "email": club_id in email},
        )


def _public_https(endpoint: str) -> bool:
    """A push service's address: HTTPS at public addresses only, the webhooks' own check
    (``PUSH_ALLOW_PRIVATE``: http too, and any address)."""
    allow = settings.PUSH_ALLOW_PRIVATE
    if not allow and urlsplit(endpoint).scheme != "https":
        return False
    try:
        public_addresses(endpoint, allow_private=allow)
    except Refused:
        return False
    return True


def subscribe(*, user, endpoint: str, p256dh: str, auth: str, device: str = "") -> PushSubscription:
    """A phone allowed notifications (its browser's subscription): kept for ``user``, the
    one holder of that address (a phone handed to someone else changes hands)."""
    problems = {}
    if not isinstance(endpoint, str) or len(endpoint) > 800 or not _public_https(endpoint):
        problems["endpoint"] = _("A push service's HTTPS address is needed.")
    for name, value, size in (("p256dh", p256dh, 200), ("auth", auth, 100)):
        if not isinstance(value, str) or not value or len(value) > size:
            problems[name] = _("This key is missing or too long.")
    if problems:
        raise ValidationError(problems)
    subscription, _created = PushSubscription.objects.update_or_create(
        endpoint=endpoint,
        defaults={"user": user, "p256dh": p256dh, "auth": auth, "device": device[:200]},
    )
    return subscription


def unsubscribe(*, user, endpoint: str) -> int:
    deleted, _rows = PushSubscription.objects.filter(user=user, endpoint=endpoint).delete()
    return deleted
