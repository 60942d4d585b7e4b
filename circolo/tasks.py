from celery import shared_task


@shared_task(name="circolo.ping", acks_late=True)
def ping() -> str:
    """A no-op that proves a worker is consuming the broker (health checks and tests)."""
    return "pong"
