"""The webhooks' Celery tasks: each takes ids, is safe to run twice (an attempt claims its
delivery first) and is queued through the outbox."""

from __future__ import annotations

import time

from celery import shared_task
from django.conf import settings

from clubs.webhooks import delivery

SWEEP_BATCH = 10  # deliveries per task the sweep queues

_next_in_process_sweep = 0.0  # on the monotonic clock


@shared_task(bind=True, name="webhooks.deliver", acks_late=True)
def deliver_webhooks(self, delivery_ids: list[int]) -> dict[str, int]:
    """Send these deliveries (queued after the commit of the write whose events they are,
    and by the sweep for the retries that are due)."""
    counts: dict[str, int] = {}
    for delivery_id in delivery_ids:
        result = delivery.attempt(delivery_id)
        counts[result] = counts.get(result, 0) + 1
    if self.app.conf.task_always_eager:
        _sweep_now_and_then()
    return counts


@shared_task(name="webhooks.sweep", acks_late=True)
def send_due_webhooks() -> int:
    """Beat, every ``WEBHOOK_SWEEP_SECONDS``: queue the retries that are due, a few
    deliveries per task (slow receivers do not hold one task for long)."""
    ids = delivery.due()
    for start in range(0, len(ids), SWEEP_BATCH):
        deliver_webhooks.delay_on_commit(ids[start : start + SWEEP_BATCH])
    return len(ids)


def _sweep_now_and_then() -> None:
    """In-process tasks (the zero-setup default) have no beat: the retries that are due are
    sent when the next event is, at most once every ``WEBHOOK_SWEEP_SECONDS``."""
    global _next_in_process_sweep
    now = time.monotonic()
    if now < _next_in_process_sweep:
        return
    _next_in_process_sweep = now + settings.WEBHOOK_SWEEP_SECONDS
    # A few: this runs in the request that sent the event, and a receiver that does not
    # answer costs its timeouts.
    delivery.send_due(limit=5)
