"""The next club night on the club page, with the member's answer buttons (the protocol:
``clubs.club_page``): about the user asking, so never kept; three queries."""

from __future__ import annotations

from django.utils import timezone
from django.utils.translation import gettext as _

from clubs.access import ClubAccess
from clubs.club_page import Section, own_part
from matches.nights import reads, services
from matches.nights.models import Answer, ClubNight


@own_part
def next_night(request, access: ClubAccess) -> Section | None:
    found = (
        ClubNight.objects.filter(
            club=access.club,
            cancelled_at__isnull=True,
            starts_at__gte=timezone.now() - services.NIGHT_LENGTH,
        )
        .select_related("club")
        .order_by("starts_at")
        .first()
    )
    if found is None or services.is_over(found):
        return None
    view = reads.view_of(found, user=request.user, member=access.is_member)
    return Section(
        slug="next-night",
        title=_("Next club night"),
        template="matches/nights/section.html",
        context={
            "view": view,
            "answers": Answer.choices,
            "next": request.path,
            "position": len(view.waiting) + 1,
        },
        order=5,
    )
