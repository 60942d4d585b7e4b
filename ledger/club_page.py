"""The ledger's tab in the club's navigation (see ``clubs/club_page.py``)."""

from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from clubs.access import ClubAccess
from clubs.club_page import Tab


def ledger_tab(request, access: ClubAccess) -> Tab | None:
    if not access.is_member:
        return None
    return Tab(label=_("Ledger"), url=reverse("ledger:club", args=[access.club.slug]), order=75)
