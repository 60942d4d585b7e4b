"""The club page's sections and the club's navigation tabs: where the game features plug in.

``clubs`` knows no game: it may not import ``matches`` or ``ledger``. A feature adds a
section to the club page, or a tab to the navigation every club page shows, by lending a
small *provider* function from its app's config (``plumbing.parts``)::

    class MatchesConfig(AppConfig):
        def ready(self):
            self.club_sections = (sputo_sections.club_section, board_sections.recent_games)
            self.club_tabs = (sputo_sections.club_tab, board_sections.leaderboards_tab)

Sections
--------
A section provider is ``provider(request, access) -> Section | None``:

- ``request`` is the page's ``HttpRequest``; ``access`` the :class:`clubs.access.ClubAccess`
  of the club page (``access.club``, ``access.role``, ``access.is_member``,
  ``access.is_scorer``, ``access.is_admin``). The page has already checked that the user
  may see the club; a provider decides what *its* section shows to this role (return
  ``None`` for a role that must not see it).
- It returns ``None`` to show nothing, or a :class:`Section`: a ``title``, a ``template``
  rendered with the page's context plus ``context`` (``club``, ``access``, ``request``,
  ``user`` and ``section`` are always there), an ``order`` (smaller first; ties keep the
  order of the apps) and a ``slug`` (the element's id is ``section-<slug>``).
- **Nothing yet.** A feature with nothing to show for this club (no tournament planned, no
  table running) either returns ``None`` (the section is hidden), or a section without a
  ``template`` and with an ``empty`` line, such as "No tournaments yet.", shown in place of
  the content, in one small list after the sections that have content. Say what is true:
  never a sample or a fake row.
- **Queries.** A provider runs a constant number of queries, whatever the size of the
  club (one query for the rows, ``select_related``/``prefetch_related`` for what they
  show, aggregates for counts; never a query per row, in the provider or its template).
  ``tests/test_club_page.py`` counts the club page's queries with a small and a big club.
- **Kept or live.** What a provider shows must be the same for every user of one role
  (the club's tables, its tournaments): the sections are rendered once per club state and
  role, and served to the next member from the cache without running the providers. A
  provider names the areas of the club it shows with :func:`kept_under` (the club's own
  area always: its people, roles, seasons); the sections of the same areas are kept
  together (``plumbing.public_pages.shared``) until a write changes one of them, so a hand
  at a table builds the tables' section again, not the tournaments'. A provider that names
  none is kept under every change. A provider about the user asking (my next match) is
  marked with :func:`own_part`: it runs on every request, with one or two indexed queries.
- A provider that raises breaks the club page: let it fail loudly in tests rather than
  hide a section silently.

Tabs
----
A tab provider is ``provider(request, access) -> Tab | None``: a ``label``, the ``url`` it
opens, an ``order`` (the overview is 0, members 10, settings 90: a game tab takes a number
between), and ``exact`` (the tab is the current one only on exactly its ``url``; otherwise
on every page under it). Return ``None`` for a role that may not open the page. Tabs run
no queries (everything needed is on ``access``).

Every page of a club shows the tabs with ``{% load clubs %}{% club_header access %}``
(``access`` in the template's context): a game feature's own pages do the same.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _

import plumbing.public_pages as public_pages
from clubs.access import ClubAccess
from plumbing.parts import parts


@dataclass(frozen=True)
class Section:
    """One section of the club page (see the module's docstring)."""

    slug: str
    title: str
    template: str = ""
    context: dict = field(default_factory=dict)
    order: int = 100
    empty: str = ""


@dataclass(frozen=True)
class Tab:
    """One tab of a club's navigation (see the module's docstring)."""

    label: str
    url: str
    order: int = 100
    exact: bool = False

    def is_current(self, path: str) -> bool:
        return path == self.url or (not self.exact and path.startswith(self.url))


@dataclass(frozen=True)
class RenderedSection:
    section: Section
    html: SafeString

    @property
    def slug(self) -> str:
        return self.section.slug

    @property
    def title(self) -> str:
        return self.section.title


def providers(name: str) -> list:
    """The apps' provider functions of ``club_sections`` or ``club_tabs``."""
    return parts(name)


def own_part(provider):
    """Mark a section provider as about the user asking: it runs on every request, its
    section is never kept (see the module)."""
    provider.own_part = True
    return provider


def kept_under(*areas: str):
    """Name the areas of the club a section provider shows (``plumbing.public_pages``): its
    section is kept until one of them changes (see the module)."""

    def mark(provider):
        provider.areas = areas
        return provider

    return mark


def _collect(name: str, request, access: ClubAccess, *, key=lambda item: item.order) -> list:
    found = [provider(request, access) for provider in providers(name)]
    return sorted((item for item in found if item is not None), key=key)


def _render(request, access: ClubAccess, chosen) -> list[tuple[int, RenderedSection]]:
    """Each chosen provider's section (by its place among the providers), rendered; the kept
    copy drops the section's context (rows it was rendered from)."""
    rendered = []
    for index, provider in chosen:
        section = provider(request, access)
        if section is None:
            continue
        html = SafeString("")
        if section.template:
            context = {"club": access.club, "access": access, "section": section}
            html = render_to_string(section.template, {**context, **section.context}, request)
        rendered.append((index, RenderedSection(section=replace(section, context={}), html=html)))
    return rendered


def sections(request, access: ClubAccess) -> list[RenderedSection]:
    """The club page's sections for this user, each rendered: those with something to show
    by their order, then those with nothing yet (their ``empty`` line), by their order.
    What every user of this role sees is kept (see the module); the own parts are live."""
    every = list(enumerate(providers("club_sections")))
    own = [item for item in every if getattr(item[1], "own_part", False)]
    common = [item for item in every if not getattr(item[1], "own_part", False)]
    today = timezone.localdate()
    by_areas: dict[tuple[str, ...], list] = {}
    for item in common:
        by_areas.setdefault(getattr(item[1], "areas", (public_pages.ANYTHING,)), []).append(item)
    found = _render(request, access, own)
    for areas, chosen in by_areas.items():
        found += public_pages.shared(
            access.club,
            ("club-page-sections", areas, access.role, today.isoformat()),
            lambda chosen=chosen: _render(request, access, chosen),
            areas=areas,
        )
    found.sort(key=lambda item: (not item[1].section.template, item[1].section.order, item[0]))
    return [rendered for _index, rendered in found]


def tabs(request, access: ClubAccess) -> list[Tab]:
    """The club's tabs this user may open, in order."""
    return _collect("club_tabs", request, access)


# --- The tabs of the clubs' own pages ---------------------------------------------------------


def overview_tab(request, access: ClubAccess) -> Tab:
    return Tab(label=_("Overview"), url=access.club.get_absolute_url(), order=0, exact=True)


def members_tab(request, access: ClubAccess) -> Tab | None:
    if not access.is_member:
        return None
    return Tab(label=_("Members"), url=reverse("clubs:members", args=[access.club.slug]), order=10)


def settings_tab(request, access: ClubAccess) -> Tab | None:
    if not access.is_admin:
        return None
    return Tab(
        label=_("Settings"), url=reverse("clubs:settings", args=[access.club.slug]), order=90
    )


# --- The sections of the clubs' own data ------------------------------------------------------


@kept_under()  # the club's own area alone
def seasons(request, access: ClubAccess) -> Section:
    """The club's latest seasons, the running one marked (one query)."""
    today = timezone.localdate()
    latest = access.club.seasons.all()[:6]
    return Section(
        slug="seasons",
        title=_("Seasons"),
        template="clubs/sections/seasons.html",
        context={"seasons": [(season, season.contains(today)) for season in latest]},
        order=80,
    )


def tonight_at_my_clubs(user) -> list:
    """The home page's "tonight at your clubs" for a signed-in person (the games' floor
    lends it: ``home_tonight``): nothing for a visitor."""
    if not user.is_authenticated:
        return []
    return [night for provider in parts("home_tonight") for night in provider(user)]
