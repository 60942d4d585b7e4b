from datetime import timedelta

from axes.handlers.proxy import AxesProxyHandler
from celery import shared_task
from django.conf import settings
from django.contrib.sessions.models import Session
from django.utils import timezone


@shared_task(name="circolo.ping", acks_late=True)
def ping() -> str:
    """A no-op that proves a worker is consuming the broker (health checks and tests)."""
    return "pong"


@shared_task(name="circolo.housekeeping", acks_late=True)
def housekeeping(
    log_age_days: int = 30, outbox_age_days: int = 7, webhook_log_days: int = 30
) -> dict[str, int]:
    """Daily (beat): drop expired sessions, dead API tokens (expired, or issued under an
    old password), login logs older than ``log_age_days``, the outbox's messages run
    more than ``outbox_age_days`` ago, the forms' one-time tokens and the API's idempotency
    keys older than ``ONCE_KEEP_DAYS``, and the webhook deliveries done more than
    ``webhook_log_days`` ago.

    Idempotent: running it twice deletes nothing more the second time.
    """

    # Here, not at the top: tasks load while Django starts, before these modules' models.
    from clubs.tokens import purge_dead_tokens
    from clubs.webhooks.delivery import purge as purge_deliveries
    from plumbing.once.sent import purge as purge_once
    from plumbing.outbox.relay import purge

    sessions, _ = Session.objects.filter(expire_date__lt=timezone.now()).delete()
    logs = AxesProxyHandler.reset_logs(age_days=log_age_days)
    outbox = purge(older_than=timedelta(days=outbox_age_days))
    once = purge_once(older_than=timedelta(days=settings.ONCE_KEEP_DAYS))
    return {
        "sessions": sessions,
        "api_tokens": purge_dead_tokens(),
        "login_logs": logs,
        "outbox_messages": outbox,
        "writes_sent_once": once,
        "webhook_deliveries": purge_deliveries(older_than=timedelta(days=webhook_log_days)),
    }
