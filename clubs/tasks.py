from celery import shared_task
from django.conf import settings
from django.core.mail import send_mail
from django.db import transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation

from clubs.inbox import tasks as inbox_tasks
from clubs.links import CONFIRMATION_MAX_AGE, confirmation_token
from clubs.mail import render_subject
from clubs.models import EmailConfirmation, Invitation

__all__ = ["inbox_tasks"]  # the inbox's tasks, where a worker looks for the app's


@shared_task(acks_late=True, autoretry_for=(OSError,), retry_backoff=True, max_retries=5)
def send_invitation_email(invitation_id: int) -> str:
    """Mail an invitation's link, in the club's language. Safe to run twice: the row lock
    and ``emailed_at`` make a second run (a redelivery after a worker crash) a no-op."""
    with transaction.atomic():
        invitation = (
            Invitation.objects.select_for_update()
            .select_related("club")
            .filter(pk=invitation_id)
            .first()
        )
        if invitation is None or invitation.emailed_at or not invitation.email:
            return "nothing to send"
        with translation.override(invitation.club.language):
            context = {
                "invitation": invitation,
                "link": settings.SITE_URL.rstrip("/") + invitation.get_absolute_url(),
            }
            subject = render_subject("clubs/invitation_email_subject.txt", context)
            body = render_to_string("clubs/invitation_email.txt", context)
        send_mail(subject, body, None, [invitation.email])
        invitation.emailed_at = timezone.now()
        invitation.save(update_fields=["emailed_at"])
    return "sent"


@shared_task(acks_late=True, autoretry_for=(OSError,), retry_backoff=True, max_retries=5)
def send_confirmation_email(confirmation_id: int) -> str:
    """Mail a sign-up's confirmation link, in the language the person signed up in.

    Safe to run twice: a link asked for (``requested_at``) is sent once (``sent_at``); a
    confirmed address gets nothing more.
    """
    with transaction.atomic():
        confirmation = (
            EmailConfirmation.objects.select_for_update()
            .select_related("user")
            .filter(pk=confirmation_id)
            .first()
        )
        if (
            confirmation is None
            or not confirmation.is_pending
            or (confirmation.sent_at and confirmation.sent_at >= confirmation.requested_at)
        ):
            return "nothing to send"
        path = reverse("clubs:confirm_email", args=[confirmation_token(confirmation)])
        with translation.override(confirmation.language):
            context = {
                "user": confirmation.user,
                "link": settings.SITE_URL.rstrip("/") + path,
                "days": CONFIRMATION_MAX_AGE.days,
            }
            subject = render_subject("accounts/confirm_email_subject.txt", context)
            body = render_to_string("accounts/confirm_email.txt", context)
        send_mail(subject, body, None, [confirmation.email])
        confirmation.sent_at = timezone.now()
        confirmation.save(update_fields=["sent_at"])
    return "sent"
