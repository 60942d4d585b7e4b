"""Singapore on the club page: a section (the tables playing now, who is next) and a tab
(every table), for the protocol of ``clubs/club_page.py`` (``CLUB_PAGE_SECTIONS`` /
``CLUB_TABS`` in the settings). Tables are for the club's members: others see neither."""

from __future__ import annotations

from django.urls import reverse
from django.utils.translation import gettext as _

from clubs.club_page import Section, Tab, kept_under
from matches.singapore import turns


@kept_under("singapore")
def club_section(request, access) -> Section | None:
    if not access.is_member:
        return None
    club = access.club
    tables = list(club.table_sessions.open().order_by("-date", "-pk")[:5])
    url = reverse("singapore:tables", args=[club.slug])
    if not tables:
        return Section(
            slug="tables", title=_("Singapore tables"), empty=_("No table is open."), order=30
        )
    states = turns.table_states(tables)
    rows = []
    for table in tables:
        state = states[table.pk]
        names = {s.player_id: s.player.display_name for s in state.seats}
        rows.append(
            {
                "table": table,
                "url": reverse("singapore:table", args=[club.slug, table.pk]),
                "playing": [s.player.display_name for s in state.seats if s.plays],
                "next": [names[pk] for pk in state.next] if state.next else None,
            }
        )
    return Section(
        slug="tables",
        title=_("Singapore tables"),
        template="matches/singapore/_club_section.html",
        context={"tables": rows, "url": url},
        order=30,
    )


def club_tab(request, access) -> Tab | None:
    if not access.is_member:
        return None
    return Tab(
        label=_("Singapore"), url=reverse("singapore:tables", args=[access.club.slug]), order=40
    )
