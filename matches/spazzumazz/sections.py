"""Spazz'u'mazz on the club's page (the protocol: ``clubs/club_page.py``): its section (the
game's name, since when, and who held it before) and its tab, registered in
``settings.CLUB_PAGE_SECTIONS`` / ``settings.CLUB_TABS``. The section's figures are cached
with the club's board version, like the leaderboards: no query once cached."""

from django.core.cache import cache
from django.urls import reverse
from django.utils.translation import gettext as _

from clubs.club_page import Section, Tab, kept_under
from matches import boards as pages
from matches.spazzumazz import boards


def _earlier_holders(titles, *, most: int = 3) -> list[dict]:
    """The last few who held the title before, newest first, each with the club nights of
    their tenure (one night when it came and went within it); one holder's tenures in a
    row read as one."""
    holders: list[dict] = []
    for t in titles:
        if t.until is None:
            continue
        name = t.player.display_name
        if holders and holders[-1]["name"] == name:
            holders[-1]["since"] = pages.night_of(t.since)
            continue
        if len(holders) == most:
            break
        holders.append(
            {"name": name, "since": pages.night_of(t.since), "until": pages.night_of(t.until)}
        )
    return holders


def _figures(club) -> dict:
    key = f"spazzumazz:club-section:{club.pk}:{pages.version(club.pk)}"
    found = cache.get(key)
    if found is None:
        name = boards.game_name(club)
        found = {
            "game_name": name,
            "holders": _earlier_holders(boards.title_history(club, limit=30)),
            "played": name is not None or club.spazzumazz_games.exists(),
        }
        cache.set(key, found, 24 * 60 * 60)
    return found


@kept_under("spazzumazz", "boards")
def club_section(request, access) -> Section | None:
    """The game's name, since when, and who held it before; before the first game, a line
    saying there is none yet."""
    figures = _figures(access.club)
    if not figures["played"]:
        return Section(
            slug="spazzumazz", title="Spazz'u'mazz", empty=_("No Spazz'u'mazz games yet."), order=50
        )
    name = figures["game_name"]
    return Section(
        slug="spazzumazz",
        title="Spazz'u'mazz",
        template="matches/spazzumazz/club_section.html",
        context={**figures, "game_title": boards.game_title(name["name"]) if name else ""},
        order=50,
    )


def club_tab(request, access) -> Tab:
    return Tab(
        label="Spazz'u'mazz", url=reverse("spazzumazz:games", args=[access.club.slug]), order=45
    )
