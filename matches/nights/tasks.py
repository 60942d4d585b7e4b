"""The club nights' task: what waits in people's inboxes (queued after each write)."""

from __future__ import annotations

from celery import shared_task
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from clubs.inbox.models import Kind
from clubs.inbox.services import Waiting, sync
from clubs.models import Membership
from matches.nights.models import Answer, ClubNight, NightAnswer

KINDS = {Kind.NIGHT_RSVP, Kind.OFF_WAITING_LIST}


def key_of(night: ClubNight) -> str:
    return f"matches.clubnight:{night.pk}"


def waiting_on(night: ClubNight) -> list[Waiting]:
    """Until the night starts: each member who has not answered is asked; whoever moved in
    from the waiting list is told. Nothing once it has started or is cancelled."""
    if night.cancelled_at is not None or night.starts_at <= timezone.now():
        return []
    url = night.get_absolute_url()
    when = timezone.localtime(night.starts_at).strftime("%d/%m %H:%M")
    with translation.override(night.club.language):
        what = {"when": when, "what": _("the club night of %(when)s") % {"when": when}}
    answered = NightAnswer.objects.filter(night=night).values("player__user_id")
    asked = (
        Membership.objects.filter(club_id=night.club_id, user__is_active=True)
        .exclude(user_id__in=answered.filter(player__user__isnull=False))
        .values_list("user_id", flat=True)
    )
    promoted = NightAnswer.objects.filter(
        night=night,
        answer=Answer.YES,
        waiting=False,
        promoted_at__isnull=False,
        player__user__isnull=False,
    ).values_list("player__user_id", flat=True)
    return [Waiting(user, Kind.NIGHT_RSVP, url, what) for user in asked] + [
        Waiting(user, Kind.OFF_WAITING_LIST, url, what) for user in promoted
    ]


@shared_task(acks_late=True)
def sync_night(night_id: int) -> str:
    night = ClubNight.objects.select_related("club").filter(pk=night_id).first()
    if night is None:
        return "gone"
    waiting = waiting_on(night)
    sync(key=key_of(night), club_id=night.club_id, kinds=KINDS, waiting=waiting)
    return f"{len(waiting)} waiting"
