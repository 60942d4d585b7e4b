"""The transactional outbox: every task a write queues is a row written in the write's own
transaction, sent to Celery once it commits, and sent again until a worker has run it.

- :meth:`outbox.task.OutboxTask.delay_on_commit` (Celery's ``task_cls``, set in
  ``circolo/celery.py``) writes a :class:`outbox.models.Message` in the current transaction
  and sends it right after the commit (:func:`outbox.relay.send`). The call sites keep
  Celery's own ``task.delay_on_commit(...)``: no floor imports this app.
- A message is *done* when a worker has run its task (``on_success``). One that is not done
  by its ``due_at`` (the broker was down, the message was lost with a restarted Redis, the
  task failed) is sent again by :func:`outbox.relay.sweep`, which beat runs every
  ``OUTBOX_RELAY_SECONDS`` (``outbox.relay`` task), with the wait doubling each time, until
  ``OUTBOX_MAX_ATTEMPTS`` sends.
- Tasks are idempotent (they rebuild derived rows, or stamp what they mailed), so a message
  sent twice is harmless: the outbox delivers at least once, never less.

This app imports Django and Celery only, never a floor of the project (rules, clubs,
ledger, matches) nor ``circolo``.
"""
