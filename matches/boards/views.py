"""The pages people open on Saturday, for every game: the club's leaderboards, a player's
page and the end-of-evening report. Each game fills them through ``matches/boards.py``'s
providers; a game without a provider, or without data, shows no section.

The leaderboards and the player page are cached per club (the key holds the club's board
version, bumped by the games' tasks when a result changes their rows); what is cached is
the games' sections, never anything of the person looking but whether they see money
(``ClubAccess.sees_money``): the sections with money and without are two entries, and the
ones without are all the public ever gets.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import date, timedelta

from django.core.cache import cache
from django.db.models import F
from django.db.models.functions import TruncDate
from django.http import Http404, QueryDict
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.utils import timezone, translation
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _

from clubs.access import club_page
from clubs.models import Player
from matches import boards
from matches.results.models import GameRecord
from plumbing.public_pages import member_page, public_page

CACHE_SECONDS = 24 * 60 * 60
BOARD_ROWS = 50  # rows of a game's leaderboard before "show all"


def _season(request, club):
    raw = request.GET.get("season", "")
    seasons = list(club.seasons.all())
    if raw.isdigit():
        for season in seasons:
            if season.pk == int(raw):
                return season, seasons
    return None, seasons


def _int(request, name: str, default: int | None, *, most: int = 10**6) -> int | None:
    raw = request.GET.get(name, "")
    return min(int(raw), most) if raw.isdigit() and len(raw) < 8 else default


def _params(**values) -> QueryDict:
    """The query string the cached fragments link with (only what is in their cache key)."""
    params = QueryDict(mutable=True)
    for name, value in values.items():
        if value:
            params[name] = getattr(value, "pk", value)
    return params


def _key(page: str, club, *shown, money: bool) -> str:
    """The cache key of a page's sections: the club's board version and the language, what
    the page shows, and whether money is seen (with and without are two entries)."""
    parts = (page, club.pk, boards.version(club.pk), translation.get_language(), *shown)
    return ":".join(str(part) for part in (*parts, "money" if money else "no-money"))


def _cached(key: str, build) -> str:
    """HTML our own templates rendered (and escaped), from the cache or built now."""
    found = cache.get(key)
    if found is None:
        found = str(build())
        cache.set(key, found, CACHE_SECONDS)
    return mark_safe(found)  # noqa: S308 - rendered by our templates, escaped there


def _money_columns(game: str) -> set[str]:
    return {c.key for c in boards.leaderboard_columns(game) if c.kind == "money"}


def _board_section(game, provider, club, season, shown, money: bool, chosen: dict):
    """One game's section of the leaderboards page (None: the game has no board), its rows
    sorted and cut by the database (the page costs the rows it shows)."""
    if not money and shown.sort in _money_columns(game):
        shown = replace(shown, sort=None)  # not a column this reader sees: the board's order
    board = provider(club, season=season, shown=shown, **chosen)
    if board is None:
        return None
    if not money:
        board = boards.without_money(board)
    rows, total = board.rows, board.total
    if total is None:  # a provider that returned every row: sorted and cut here
        everything = board.sorted_rows(shown.sort, descending=shown.descending)
        rows, total = everything[: shown.limit], len(everything)
    current = shown.sort if shown.sort in {c.key for c in board.columns if c.sortable} else None
    return {
        "board": board,
        "rows": rows,
        "hidden": total - len(rows),
        "sorted_by": current or board.default_sort,
        "descending": (shown.descending if current else board.descending),
        "provisional": any(row.get("provisional") for row in rows),
    }


@public_page(boards.BOARDS)
@member_page(boards.BOARDS)
@club_page()
def leaderboards(request, access):
    """Every game's leaderboard: per season or all time, sortable, a minimum of games (by
    default each game's house rule: the provider's own default)."""
    club = access.club
    season, seasons = _season(request, club)
    min_games = _int(request, "min_games", None, most=10_000)
    chosen = {} if min_games is None else {"min_games": min_games}
    sort = request.GET.get("sort", "")  # "<game>.<column>"
    descending = request.GET.get("dir") != "asc"
    everyone = request.GET.get("all", "")[:20]  # the game whose every row is shown
    money = access.sees_money()
    key = _key(
        "boards:leaderboards",
        club,
        season.pk if season else "all",
        "house" if min_games is None else min_games,
        sort[:60],
        descending,
        everyone,
        money=money,
    )

    def build() -> str:
        sorted_game, _dot, column = sort.partition(".")
        sections = []
        for game, provider in boards.leaderboard_providers().items():
            mine = sorted_game == game
            shown = boards.Shown(
                sort=column if mine else None,
                descending=descending if mine else None,
                limit=None if everyone == game else BOARD_ROWS,
            )
            section = _board_section(game, provider, club, season, shown, money, chosen)
            if section is not None:
                sections.append({**section, "house_minimum": min_games is None})
        return render_to_string(
            "matches/leaderboard_sections.html",
            {
                "club": club,
                "sections": sections,
                "season": season,
                "min_games": min_games,
                "params": _params(
                    season=season,
                    min_games=min_games,
                    sort=sort[:60],
                    dir="desc" if descending else "asc",
                ),
            },
        )

    return render(
        request,
        "matches/leaderboards.html",
        {
            "club": club,
            "access": access,
            "season": season,
            "seasons": seasons,
            "min_games": min_games,
            "sections_html": _cached(key, build),
        },
    )


@public_page(boards.BOARDS)
@member_page(boards.BOARDS)
@club_page()
def player_page(request, access, player_id: int):
    """One player's page: every game's section (history, statistics, charts)."""
    club = access.club
    player = get_object_or_404(Player, club=club, pk=player_id)
    if player.merged_into_id is not None:
        return redirect("boards:player", slug=club.slug, player_id=player.merged_into_id)
    season, seasons = _season(request, club)
    only = request.GET.get("game", "")
    page = _int(request, "page", 1)
    money = access.sees_money(player)
    key = _key(
        "boards:player",
        club,
        player.pk,
        season.pk if season else "all",
        only[:20],
        page,
        money=money,
    )

    def build() -> str:
        sections = []
        for provider in boards.player_section_providers():
            section = provider(player, season=season, page=page if only else 1)
            if section is None or (only and section.game != only):
                continue
            sections.append(
                render_to_string(
                    section.template,
                    {
                        **section.context,
                        "section": section,
                        "club": club,
                        "player": player,
                        "season": season,
                        "money": money,
                    },
                )
            )
        return "".join(sections)

    return render(
        request,
        "matches/player.html",
        {
            "club": club,
            "access": access,
            "player": player,
            "season": season,
            "seasons": seasons,
            "only": only,
            "sections_html": _cached(key, build),
        },
    )


def _nights(club, *, limit: int = 30) -> list[date]:
    """The club nights with results in force, latest first (any game's records)."""
    shift = timedelta(hours=boards.NIGHT_STARTS_AT.hour, minutes=boards.NIGHT_STARTS_AT.minute)
    return list(
        GameRecord.objects.filter(club=club)
        .in_force()
        .annotate(night=TruncDate(F("played_at") - shift, tzinfo=timezone.get_current_timezone()))
        .values_list("night", flat=True)
        .distinct()
        .order_by("-night")[:limit]
    )


def night_sections(club, day: date) -> list:
    """Every game's section of the club night ``day`` (none: nothing was played)."""
    return [
        section
        for provider in boards.club_night_providers()
        if (section := provider(club, day=day)) is not None
    ]


def render_section(section, *, text: bool = False, money: bool, **context) -> str:
    """A report section's HTML (or its plain text, for the e-mail); ``money``: whether the
    reader sees the club's money (``ClubAccess.sees_money``), for the section to show it."""
    template = section.text_template if text else section.template
    return render_to_string(
        template, {**section.context, "section": section, "money": money, **context}
    )


@club_page()
def nights(request, access):
    club = access.club
    subscribed = (
        request.user.is_authenticated
        and club.memberships.filter(user=request.user, night_report=True).exists()
    )
    return render(
        request,
        "matches/nights.html",
        {"club": club, "access": access, "nights": _nights(club), "subscribed": subscribed},
    )


# The nights a page can show: the years of the API's date-times (plumbing.strict).
FIRST_NIGHT, LAST_NIGHT = date(1900, 1, 1), date(9899, 12, 31)


@club_page()
def night(request, access, day: str):
    club = access.club
    try:
        when = date.fromisoformat(day)
    except ValueError as error:
        raise Http404(_("No such club night.")) from error
    if not FIRST_NIGHT <= when <= LAST_NIGHT:  # its hours would not fit the calendar
        raise Http404(_("No such club night."))
    money = access.sees_money()
    sections = [
        (section, render_section(section, club=club, day=when, money=money))
        for section in night_sections(club, when)
    ]
    return render(
        request,
        "matches/night.html",
        {"club": club, "access": access, "day": when, "sections": sections},
    )
