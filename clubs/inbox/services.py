"""The inbox's one door: :func:`sync` (what waits on a thing now), :func:`mark_read`, and
the reads the pages and the API share."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.core.cache import cache
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from clubs.inbox.models import Kind, Notification


@dataclass(frozen=True)
class Waiting:
    """An action that waits for ``user_id`` on the thing: its kind, link and sentence's names."""

    user_id: int
    kind: str
    url: str
    data: dict = field(default_factory=dict, hash=False, compare=False)


def _count_key(user_id: int) -> str:
    return f"inbox:unread:{user_id}"


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
            Notification.objects.create(
                user_id=user_id,
                club_id=club_id,
                kind=kind,
                key=key,
                url=w.url,
                data=w.data,
                created=now,
            )
            touched.add(user_id)
        elif row.done_at is not None or row.url != w.url or row.data != w.data:
            reopened = row.done_at is not None
            row.url, row.data, row.done_at = w.url, w.data, None
            if reopened:  # waiting again (a new report after a withdrawal): new, unread
                row.created, row.read_at = now, None
            row.save(update_fields=["url", "data", "done_at", "created", "read_at"])
            touched.add(user_id)
    for user_id in touched:
        cache.delete(_count_key(user_id))


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
        cache.delete(_count_key(notification.user_id))
    return notification


def mark_all_read(*, user) -> int:
    marked = (
        Notification.objects.waiting()
        .filter(user=user, read_at__isnull=True)
        .update(read_at=timezone.now())
    )
    cache.delete(_count_key(user.pk))
    return marked


SENTENCES = {
    Kind.CONFIRM_RESULT: lambda d: _("Confirm the result of %(what)s, reported by %(who)s.") % d,
    Kind.DECIDE_DISPUTE: lambda d: _("Decide the dispute on %(what)s.") % d,
    Kind.MATCH_READY: lambda d: _("Your match against %(opponent)s is ready: %(what)s.") % d,
    Kind.CHECK_IN: lambda d: _("Check-in is open for %(what)s.") % d,
    Kind.CONFIRM_PAYMENT: lambda d: _("Confirm that %(who)s paid you %(amount)s.") % d,
    Kind.INVITATION: lambda d: _("You are invited to %(what)s.") % d,
}


def sentence(notification: Notification) -> str:
    """The notification in words, in the current language."""
    try:
        return SENTENCES[notification.kind](notification.data)
    except (KeyError, TypeError):  # names missing from an older row: the kind alone
        return str(Kind(notification.kind).label)
