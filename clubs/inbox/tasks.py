"""Telling people what waits for them beyond the site: Web Push to the phones that allowed
it (:func:`deliver`, once per new notification, through the outbox) and an e-mail digest at
most once an hour for those who chose it (:func:`send_digests`, beat).

Web Push needs the site's VAPID keys (``VAPID_PUBLIC_KEY``, ``VAPID_PRIVATE_KEY``,
``VAPID_SUBJECT``; ``manage.py vapid_keys`` makes a pair): without them nothing is pushed and
the inbox works as before. Push services are reached over HTTPS only, and never at the
server's own private addresses unless ``PUSH_ALLOW_PRIVATE`` (tests, a club's own network).
"""

from __future__ import annotations

import json
import logging

from celery import shared_task
from django.conf import settings
from django.core.mail import send_mail
from django.template.loader import render_to_string
from django.utils import timezone, translation
from pywebpush import WebPushException, webpush

from clubs.inbox.models import Choice, Notification, PushSubscription
from clubs.inbox.words import sentence

log = logging.getLogger(__name__)
DIGEST_EVERY = timezone.timedelta(hours=1)


def _choice(user_id: int, club_id: int | None) -> Choice:
    found = Choice.objects.filter(user_id=user_id, club_id=club_id).first()
    return found or Choice(user_id=user_id, club_id=club_id or 0)


def push_enabled() -> bool:
    return bool(settings.VAPID_PRIVATE_KEY and settings.VAPID_PUBLIC_KEY)


def _language(notification: Notification) -> str:
    club = notification.club
    return club.language if club is not None else settings.LANGUAGE_CODE


@shared_task(name="clubs.inbox.deliver", acks_late=True)
def deliver(notification_id: int) -> str:
    """Push a new notification to its person's phones (idempotent enough: a notification
    read or done meanwhile is not pushed; a phone gone from its push service is forgotten)."""
    notification = Notification.objects.select_related("club").filter(pk=notification_id).first()
    if notification is None or notification.done_at or notification.read_at:
        return "nothing to push"
    if not push_enabled() or not _choice(notification.user_id, notification.club_id).push:
        return "push off"
    with translation.override(_language(notification)):
        body = json.dumps(
            {
                "title": str(notification.club or "Circolo"),
                "body": sentence(notification),
                "url": notification.url,
                "tag": f"{notification.kind}:{notification.key}",
            }
        )
    sent = 0
    for subscription in PushSubscription.objects.filter(user_id=notification.user_id):
        try:
            webpush(
                subscription_info={
                    "endpoint": subscription.endpoint,
                    "keys": {"p256dh": subscription.p256dh, "auth": subscription.auth},
                },
                data=body,
                vapid_private_key=settings.VAPID_PRIVATE_KEY,
                vapid_claims={"sub": settings.VAPID_SUBJECT},
                timeout=10,
            )
        except WebPushException as error:
            status = getattr(error.response, "status_code", None)
            if status in (404, 410):  # the phone unsubscribed: forget it
                subscription.delete()
            else:
                log.warning("push to %s failed: %s", subscription.pk, error)
            continue
        subscription.last_sent = timezone.now()
        subscription.save(update_fields=["last_sent"])
        sent += 1
    return f"pushed to {sent}"


@shared_task(name="clubs.inbox.send_digests", acks_late=True)
def send_digests(*, at=None) -> int:
    """Hourly (beat): one e-mail per person who chose e-mail in a club, listing what waits
    for them there, unread and not mailed yet; nothing more for an hour after."""
    now = at or timezone.now()
    sent = 0
    for choice in Choice.objects.filter(email=True).select_related("user", "club"):
        user = choice.user
        if not user.email:
            continue
        rows = list(
            Notification.objects.waiting().filter(
                user=user, club=choice.club, read_at__isnull=True, mailed_at__isnull=True
            )
        )
        last = (
            Notification.objects.filter(user=user, club=choice.club, mailed_at__isnull=False)
            .order_by("-mailed_at")
            .values_list("mailed_at", flat=True)
            .first()
        )
        if not rows or (last is not None and now - last < DIGEST_EVERY):
            continue
        with translation.override(choice.club.language):
            context = {
                "club": choice.club,
                "items": [sentence(n) for n in rows],
                "site": settings.SITE_URL.rstrip("/"),
            }
            subject = render_to_string("clubs/inbox_digest_subject.txt", context).strip()
            text = render_to_string("clubs/inbox_digest.txt", context)
        send_mail(subject, text, None, [user.email])
        Notification.objects.filter(pk__in=[n.pk for n in rows]).update(mailed_at=now)
        sent += 1
    return sent
