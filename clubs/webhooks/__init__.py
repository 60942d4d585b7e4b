"""Webhooks: a club's admins register URLs that the site POSTs to when something happens in
the club (a result confirmed, a match ready, a payment confirmed...).

- :mod:`.models`: a :class:`~.models.Webhook` (a URL, its events, its secret) and the
  :class:`~.models.Delivery` log (one row per event sent to a URL, with its attempts).
- :mod:`.services`: registering, pausing, resuming, deleting, and :func:`.services.emit`,
  which the floors above call with plain data (a club id, an event name, a JSON-able
  payload), in the transaction of the write that caused the event: the deliveries are
  written in it and sent once it commits, through the outbox
  (``deliver_webhooks.delay_on_commit``).
- :mod:`.delivery`: one attempt at a delivery (signed, sent, recorded), the retries with
  exponential backoff for :data:`.delivery.RETRY_FOR`, and the pause of a URL that failed
  that long (its admins told by e-mail, :mod:`.notices`).
- :mod:`.addresses`: where a delivery may go: http(s) only, and never to a loopback,
  private, link-local, multicast or reserved address, checked at registration and again at
  each delivery against the very address connected to (DNS rebinding), unless
  ``WEBHOOK_ALLOW_PRIVATE``.

This package sits on the ``clubs`` floor: ``ledger`` and ``matches`` call
:func:`.services.emit`; it imports neither.
"""
