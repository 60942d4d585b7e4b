"""A double tap or a retry records once.

Every write a person or a client may send twice carries a key, and the write remembers it in
its own database transaction (a :class:`~plumbing.once.models.Submission` row):

- **Forms**: each write form carries a one-time token (``{% once_token %}``, from
  ``plumbing.once.templatetags.once``). Its view runs the write inside
  :func:`plumbing.once.sent.form_sent_once`: the second submit of the same form (same token,
  same fields) records nothing and goes where the first one went. A form changed and sent
  again with its old token (the browser's Back button) is another write.
- **The API**: a write that takes an ``Idempotency-Key`` header runs inside
  :func:`plumbing.once.sent.sent_once` with the whole key (at most 255 characters, longer is
  a 400 naming the header) and a hash of the request's body: the same key and body answer
  what the first request recorded (a 200), the same key with another body is a 422 naming
  the key, never the earlier result.

Two requests racing with one key: the second one's row waits on the first one's unique key
until that commits, then finds it; if the first one rolled back, the second one writes.

Rows older than ``ONCE_KEEP_DAYS`` are dropped by the daily housekeeping
(``circolo.tasks.housekeeping``).
"""

KEY_LENGTH = 255  # the longest key kept (whole); longer is refused
