"""Sending a delivery, retrying it, and pausing a URL that keeps failing.

- An attempt *claims* its delivery first (moving ``next_attempt_at`` past the attempt, with
  one conditional update): the task run twice by the outbox, or a sweep and the first send
  at once, make one request, not two. The request is made outside any transaction.
- A failed attempt is tried again after :func:`wait_after` (30 s, doubling, at most an
  hour), for :data:`RETRY_FOR` from the event; then the delivery has failed.
- A delivery that failed after :data:`RETRY_FOR` of attempts, with nothing delivered to its
  URL all that time (``Webhook.failing_since``), pauses the webhook: its waiting deliveries
  fail, and the club's admins are told (an e-mail through the outbox).
- Each function that depends on "now" takes ``at=``.
"""

from __future__ import annotations

from datetime import timedelta

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from clubs.webhooks import sending
from clubs.webhooks.models import Delivery, DeliveryStatus, PausedBecause, Webhook
from clubs.webhooks.notices import tell_admins_webhook_paused

RETRY_FOR = timedelta(days=1)
FIRST_WAIT = timedelta(seconds=30)
LONGEST_WAIT = timedelta(hours=1)
# An attempt under way holds its delivery this long: a worker that died mid-request leaves
# it to the sweep after that.
LEASE = timedelta(minutes=2)


def wait_after(attempts: int) -> timedelta:
    """How long after its ``attempts``-th failed attempt a delivery is tried again."""
    return min(FIRST_WAIT * 2 ** max(attempts - 1, 0), LONGEST_WAIT)


def _claim(delivery_id: int, now) -> bool:
    claimed = (
        Delivery.objects.due(at=now)
        .filter(pk=delivery_id)
        .update(next_attempt_at=now + LEASE, attempts=F("attempts") + 1, last_attempt_at=now)
    )
    return claimed == 1


def headers(delivery: Delivery, payload: bytes) -> dict[str, str]:
    return {
        "X-Circolo-Signature": sending.signature(delivery.webhook.secret, payload),
        "X-Circolo-Event": delivery.event,
        "X-Circolo-Delivery": str(delivery.uid),
    }


def attempt(delivery_id: int, *, at=None) -> str:
    """Send a delivery if it is due (and its webhook not paused); record how it went."""
    now = at or timezone.now()
    if not _claim(delivery_id, now):
        return "not due"
    delivery = Delivery.objects.select_related("webhook").filter(pk=delivery_id).first()
    if delivery is None:
        return "gone"  # its webhook was deleted meanwhile
    payload = sending.body_bytes(delivery.body)
    answer = sending.post(delivery.webhook.url, payload, headers(delivery, payload))
    if answer.ok:
        Delivery.objects.filter(pk=delivery.pk, status=DeliveryStatus.PENDING).update(
            status=DeliveryStatus.DELIVERED,
            delivered_at=now,
            next_attempt_at=None,
            response_code=answer.status,
            error="",
        )
        Webhook.objects.filter(pk=delivery.webhook_id, failing_since__isnull=False).update(
            failing_since=None
        )
        return "delivered"
    return _failed(delivery, answer, now)


@transaction.atomic
def _failed(delivery: Delivery, answer: sending.Answer, now) -> str:
    give_up = now - delivery.created_at >= RETRY_FOR
    Delivery.objects.filter(pk=delivery.pk, status=DeliveryStatus.PENDING).update(
        status=DeliveryStatus.FAILED if give_up else DeliveryStatus.PENDING,
        next_attempt_at=None if give_up else now + wait_after(delivery.attempts),
        response_code=answer.status,
        error=answer.error[:300],
    )
    webhooks = Webhook.objects.filter(pk=delivery.webhook_id)
    webhooks.filter(failing_since__isnull=True).update(failing_since=now)
    if not give_up:
        return "will retry"
    failing_for_a_day = webhooks.filter(
        paused_at__isnull=True, failing_since__lte=now - RETRY_FOR
    ).update(paused_at=now, paused_because=PausedBecause.FAILING)
    if not failing_for_a_day:
        return "failed"
    Delivery.objects.filter(webhook_id=delivery.webhook_id, status=DeliveryStatus.PENDING).update(
        status=DeliveryStatus.FAILED, next_attempt_at=None
    )
    tell_admins_webhook_paused.delay_on_commit(delivery.webhook_id)
    return "failed; paused"


def due(*, at=None, limit: int = 200) -> list[int]:
    """The deliveries due by ``at`` (the oldest first), up to ``limit``."""
    now = at or timezone.now()
    return list(
        Delivery.objects.due(at=now)
        .order_by("next_attempt_at", "pk")
        .values_list("pk", flat=True)[:limit]
    )


def send_due(*, at=None, limit: int = 200) -> dict[str, int]:
    """Attempt every delivery due by ``at``, here and now (the tests' clock, the in-process
    default's sweep); returns the count of each result."""
    counts: dict[str, int] = {}
    for delivery_id in due(at=at, limit=limit):
        result = attempt(delivery_id, at=at)
        counts[result] = counts.get(result, 0) + 1
    return counts


def purge(*, older_than: timedelta, at=None) -> int:
    """Delete the deliveries done (delivered or failed) more than ``older_than`` ago: the
    log keeps the recent ones."""
    now = at or timezone.now()
    deleted, _ = (
        Delivery.objects.exclude(status=DeliveryStatus.PENDING)
        .filter(created_at__lt=now - older_than)
        .delete()
    )
    return deleted
