"""Telling a club's admins that one of their webhooks was paused (an e-mail, after commit)."""

from celery import shared_task
from django.conf import settings
from django.core.mail import send_mass_mail
from django.db import transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation

from clubs.mail import render_subject
from clubs.models import Membership, Role
from clubs.webhooks.models import PausedBecause, Webhook


@shared_task(acks_late=True, autoretry_for=(OSError,), retry_backoff=True, max_retries=5)
def tell_admins_webhook_paused(webhook_id: int) -> str:
    """Mail each admin of the club (in the club's language) that a webhook failing for a day
    was paused. Safe to run twice: ``admins_told_at`` makes the second run a no-op."""
    with transaction.atomic():
        webhook = (
            Webhook.objects.select_for_update()
            .select_related("club")
            .filter(pk=webhook_id, paused_because=PausedBecause.FAILING)
            .first()
        )
        if webhook is None or (
            webhook.admins_told_at is not None and webhook.admins_told_at >= webhook.paused_at
        ):
            return "nothing to send"
        club = webhook.club
        emails = list(
            Membership.objects.filter(club=club, role=Role.ADMIN)
            .exclude(user__email="")
            .values_list("user__email", flat=True)
        )
        path = reverse("clubs:settings", args=[club.slug]) + "#webhooks"
        with translation.override(club.language):
            context = {
                "club": club,
                "webhook": webhook,
                "link": settings.SITE_URL.rstrip("/") + path,
            }
            subject = render_subject("webhooks/paused_email_subject.txt", context)
            body = render_to_string("webhooks/paused_email.txt", context)
        send_mass_mail([(subject, body, None, [email]) for email in emails])
        webhook.admins_told_at = timezone.now()
        webhook.save(update_fields=["admins_told_at"])
    return f"told {len(emails)}"
