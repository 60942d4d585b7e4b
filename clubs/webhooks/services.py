"""The webhooks' writes, for the pages and the API alike, and :func:`emit`, the one door
through which the floors above (``ledger``, ``matches``) announce an event."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable

from django.conf import settings
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.core.serializers.json import DjangoJSONEncoder
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from clubs.models import Club
from clubs.webhooks.addresses import check_url
from clubs.webhooks.models import Delivery, Event, PausedBecause, Webhook
from clubs.webhooks.tasks import deliver_webhooks

MAX_WEBHOOKS_PER_CLUB = 10
#: How long the cache keeps what a club listens to (every change moves its version anyway).
LISTENED_FOR = 3600


def clean_events(events) -> list[str]:
    """The events asked for, each once, in the catalogue's order; ``ValidationError``
    naming ``events`` for none or an unknown one."""
    if isinstance(events, str) or not isinstance(events, Iterable):
        raise ValidationError({"events": _("Give a list of events.")})
    asked = [str(e) for e in events]
    unknown = sorted(set(asked) - set(Event.values))
    if unknown:
        raise ValidationError(
            {"events": _("Unknown events: %(events)s.") % {"events": ", ".join(unknown)}}
        )
    if not asked:
        raise ValidationError({"events": _("Choose at least one event.")})
    return [e for e in Event.values if e in asked]


def create_webhook(*, club: Club, url: str, events, by=None) -> Webhook:
    """Register ``url`` for ``events`` of ``club`` (its secret is made here). The URL must be
    one a delivery may go to (``clubs.webhooks.addresses``): a 400 naming ``url`` if not."""
    events = clean_events(events)
    # Resolved before the transaction: on SQLite a transaction holds the write lock, and a
    # slow name server must not hold every other writer.
    url = check_url(url)
    with transaction.atomic():
        Club.objects.select_for_update().filter(pk=club.pk).first()  # the count stays true
        if Webhook.objects.filter(club=club).count() >= MAX_WEBHOOKS_PER_CLUB:
            raise ValidationError(
                {"url": _("A club has at most %(n)s webhooks.") % {"n": MAX_WEBHOOKS_PER_CLUB}}
            )
        webhook = Webhook.objects.create(
            club=club, url=url, events=events, created_by=by if getattr(by, "pk", None) else None
        )
        webhooks_changed(club.pk)
        return webhook


def pause_webhook(*, webhook: Webhook, at=None) -> Webhook:
    """Stop sending to it (what is waiting waits); an admin's pause."""
    Webhook.objects.filter(pk=webhook.pk, paused_at__isnull=True).update(
        paused_at=at or timezone.now(), paused_because=PausedBecause.ADMIN
    )
    webhooks_changed(webhook.club_id)
    webhook.refresh_from_db()
    return webhook


def resume_webhook(*, webhook: Webhook) -> Webhook:
    """Send to it again: new events, and the deliveries still waiting."""
    Webhook.objects.filter(pk=webhook.pk).update(
        paused_at=None, paused_because="", failing_since=None
    )
    webhooks_changed(webhook.club_id)
    webhook.refresh_from_db()
    return webhook


def delete_webhook(*, webhook: Webhook) -> None:
    """Forget it and its delivery log."""
    webhook.delete()
    webhooks_changed(webhook.club_id)


def _plain(data: dict) -> dict:
    """``data`` as JSON has it (dates and decimals as text): what is stored is what is sent."""
    return json.loads(json.dumps(data, cls=DjangoJSONEncoder))


def _version_key(club_id: int) -> str:
    return f"webhooks:version:{club_id}"


def webhooks_changed(club_id: int) -> None:
    """A webhook of the club was made, paused, resumed or deleted: what the cache holds of
    what the club listens to is forgotten now (this transaction's own reads) and again
    after the commit (a read that began before it cannot put the old list back: it keeps
    it under a version nobody asks for any more)."""

    def forget():
        cache.set(_version_key(club_id), uuid.uuid4().hex, None)

    forget()
    transaction.on_commit(forget)


def listened(club_id: int) -> frozenset[str]:
    """The events that the club's running webhooks ask for: from the cache (no query on a
    club night's writes), else from the database (one query), kept under the version
    :func:`webhooks_changed` moves. A webhook paused for failing (``.delivery``) may still
    be listed a while: :func:`emit_many` reads the running ones before it writes."""
    version = cache.get(_version_key(club_id))
    if version is None:
        cache.add(_version_key(club_id), uuid.uuid4().hex, None)
        version = cache.get(_version_key(club_id))
    key = f"webhooks:events:{club_id}:{version}"
    found = cache.get(key) if version is not None else None
    if found is None:
        rows = Webhook.objects.active().filter(club_id=club_id).values_list("events", flat=True)
        found = sorted({event for events in rows for event in events})
        if version is not None:
            cache.set(key, found, LISTENED_FOR)
    return frozenset(found)


def listens(*, club_id: int, event: str) -> bool:
    """Whether a webhook of the club (not paused) asks for ``event``: a caller whose data
    costs queries to gather asks first (:func:`listened`: no query when cached)."""
    Event(event)
    return event in listened(club_id)


def absolute(path: str | None) -> str | None:
    """A page's address on the site, as a delivery carries it (``SITE_URL``)."""
    return settings.SITE_URL.rstrip("/") + path if path else None


def player_data(player) -> dict | None:
    """A player as a delivery names them."""
    return {"id": player.pk, "name": player.display_name} if player is not None else None


def emit(*, club_id: int, event: str, data: dict, at=None) -> int:
    """Announce ``event`` (an :class:`Event` value) of a club with its ``data`` (JSON-able):
    see :func:`emit_many`."""
    return emit_many(club_id=club_id, events=[(event, data)], at=at)


def emit_many(*, club_id: int, events: Iterable[tuple[str, dict]], at=None) -> int:
    """Announce events of a club, in the caller's transaction: a delivery for each webhook
    of the club that asked for the event (and is not paused), written now and sent once the
    transaction commits (nothing is sent if it rolls back). One query when nobody listens;
    a constant number whatever the number of events. Returns the deliveries written."""
    events = list(events)
    for name, _data in events:
        Event(name)  # an unknown event is a mistake in the caller: ValueError
    heard = listened(club_id)
    if not any(name in heard for name, _data in events):
        return 0
    hooks = list(Webhook.objects.active().filter(club_id=club_id).select_related("club"))
    now = at or timezone.now()
    deliveries = []
    for name, data in events:
        listening = [hook for hook in hooks if name in hook.events]
        if not listening:
            continue
        plain = _plain(data)
        for hook in listening:
            uid = uuid.uuid4()
            body = {
                "id": str(uid),
                "event": name,
                "created": now.isoformat().replace("+00:00", "Z"),
                "club": hook.club.slug,
                "data": plain,
            }
            deliveries.append(
                Delivery(
                    uid=uid,
                    webhook=hook,
                    event=name,
                    body=body,
                    created_at=now,
                    next_attempt_at=now,
                )
            )
    if not deliveries:
        return 0
    Delivery.objects.bulk_create(deliveries)
    deliver_webhooks.delay_on_commit([d.pk for d in deliveries])
    return len(deliveries)
