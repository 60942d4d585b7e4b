"""An invitation in the inbox of the person it was mailed to, when they have an account."""

from __future__ import annotations

from celery import shared_task
from django.contrib.auth import get_user_model

from clubs.inbox.models import Kind
from clubs.inbox.services import Waiting, sync_on
from clubs.models import Invitation


@shared_task(name="clubs.inbox.invitation", acks_late=True)
def invitation_inbox(invitation_id: int) -> str:
    """An invitation mailed to someone who already has an account waits in their inbox too
    (one tap to the link), until it is used, revoked or expired; never for its sender."""

    invitation = Invitation.objects.select_related("club").filter(pk=invitation_id).first()
    if invitation is None:
        return "gone"
    waiting = []
    if invitation.email and invitation.is_usable():
        members = invitation.club.memberships.values_list("user_id", flat=True)
        people = (
            get_user_model()
            .objects.filter(email__iexact=invitation.email, is_active=True)
            .exclude(pk__in=members)
            .exclude(pk=invitation.created_by_id)
        )
        waiting = [
            Waiting(
                user.pk,
                Kind.INVITATION,
                invitation.get_absolute_url(),
                {"what": invitation.club.name},
            )
            for user in people
        ]
    return sync_on(invitation, kind=Kind.INVITATION, waiting=waiting)
