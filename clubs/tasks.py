from celery import shared_task
from django.conf import settings
from django.core.mail import send_mail
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from clubs.inbox import invitations as inbox_invitations
from clubs.inbox import tasks as inbox_tasks
from clubs.links import CONFIRMATION_MAX_AGE, confirmation_token
from clubs.mail import render_mail
from clubs.models import EmailConfirmation, Invitation

__all__ = [
    "inbox_invitations",
    "inbox_tasks",
]  # the inbox's tasks, where a worker looks for the app's


def _locked(model, pk: int, related: str):
    """The row to mail about, locked until the transaction ends (a second run waits, then
    finds it sent); None once it is gone."""
    return model.objects.select_for_update().select_related(related).filter(pk=pk).first()


@shared_task(acks_late=True, autoretry_for=(OSError,), retry_backoff=True, max_retries=5)
def send_invitation_email(invitation_id: int) -> str:
    """Mail an invitation's link, in the club's language. Safe to run twice: the row lock
    and ``emailed_at`` make a second run (a redelivery after a worker crash) a no-op."""
    with transaction.atomic():
        invitation = _locked(Invitation, invitation_id, "club")
        if invitation is None or invitation.emailed_at or not invitation.email:
            return "nothing to send"
        context = {
            "invitation": invitation,
            "link": settings.SITE_URL.rstrip("/") + invitation.get_absolute_url(),
        }
        subject, body = render_mail(
            "clubs/invitation_email", context, language=invitation.club.language
        )
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
        confirmation = _locked(EmailConfirmation, confirmation_id, "user")
        if (
            confirmation is None
            or not confirmation.is_pending
            or (confirmation.sent_at and confirmation.sent_at >= confirmation.requested_at)
        ):
            return "nothing to send"
        path = reverse("clubs:confirm_email", args=[confirmation_token(confirmation)])
        context = {
            "user": confirmation.user,
            "link": settings.SITE_URL.rstrip("/") + path,
            "days": CONFIRMATION_MAX_AGE.days,
        }
        language = confirmation.language
        subject, body = render_mail("accounts/confirm_email", context, language=language)
        send_mail(subject, body, None, [confirmation.email])
        confirmation.sent_at = timezone.now()
        confirmation.save(update_fields=["sent_at"])
    return "sent"
