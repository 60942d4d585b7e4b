from celery import shared_task


@shared_task(bind=True, name="outbox.relay", acks_late=True)
def relay(self) -> dict[str, int]:
    """Beat, every ``OUTBOX_RELAY_SECONDS``: send the outbox's messages that are due."""
    from plumbing.outbox.relay import sweep  # here: tasks load before the models are ready

    return sweep(self.app)
