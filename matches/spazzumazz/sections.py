"""Spazz'u'mazz on the club's page: its section (the game's name, since when, and who held
it before) and its tab. Each is ``(request, access) -> dict | None``, registered in
``settings.CLUB_PAGE_SECTIONS`` / ``settings.CLUB_TABS``."""

from django.urls import reverse

from matches.spazzumazz import boards


def club_section(request, access) -> dict | None:
    club = access.club
    name = boards.game_name(club)
    if name is None and not club.spazzumazz_games.exists():
        return None
    return {
        "title": "Spazz'u'mazz",
        "template": "matches/spazzumazz/club_section.html",
        "context": {
            "club": club,
            "access": access,
            "game_name": name,
            "game_title": boards.game_title(name["name"]) if name else "",
            "holders": [t for t in boards.title_history(club, limit=6) if t.until],
        },
    }


def club_tab(request, access) -> dict:
    return {"label": "Spazz'u'mazz", "url": reverse("spazzumazz:games", args=[access.club.slug])}
