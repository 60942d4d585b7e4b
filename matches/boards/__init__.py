"""What each game contributes to the pages people open on Saturday: the club's leaderboards,
each player's page, and the end-of-evening report.

Each game provides functions with these signatures and declares them in its ``Game``
(``matches/<game>/game.py``, read through ``matches.games.all()``), so that the pages
(``matches/boards/views.py``) show every game without naming one. A provider returning None
(no data) shows no section. The three signatures are stable:

``Game.leaderboard``
    ``leaderboard(club, *, season=None, min_games=None, shown=None) -> Leaderboard | None``.
    ``season`` is one of the club's ``Season`` objects, or None for all time. The provider applies
    ``min_games`` itself (rows with fewer games in ``min_games_key`` left out; None, the
    page's default: the game's house rule, Spazz'u'mazz's ``idiot_min_games``, 0 for a game
    without one), says in ``Leaderboard.min_games`` which minimum it applied, and returns
    None when no row is left: the section is not shown. It reads precomputed rows in a
    constant number of queries. Without ``shown`` it returns every row, which the API sorts
    (``Leaderboard.sorted_rows``) by any sortable column asked for; the page passes
    ``shown=Shown(sort, descending, limit)`` and the provider sorts and cuts in the
    database (:func:`top`), so that the page costs the rows it shows whatever the number of
    players: ``Leaderboard.total`` then says how many rows there are in all (a provider
    that leaves ``total`` None has returned every row, which the page sorts and cuts).
    Served too as ``GET /api/v1/clubs/{slug}/leaderboards/{game}/``. The game declares the
    board's columns as ``Game.columns`` (the API documents their keys as the values of
    ``ordering``: :func:`leaderboard_columns`).

``Game.player_section``
    ``player_section(player, *, season=None, page=1) -> PlayerSection | None``: the game's
    history (paginated: ``page`` is the history's page, asked for by a link
    ``?game=<game>&page=<n>`` which shows that game's section alone), statistics and charts
    of one player. ``PlayerSection.template`` is rendered with its ``context`` plus
    ``section``, ``club``, ``player``, ``season`` and ``money``: whether the reader sees
    this player's money (``ClubAccess.sees_money``); without it the template shows no money
    figure and no running balance. Charts: ``matches.boards.charts.line_chart``,
    drawn by including ``matches/chart.html`` with ``chart=...``.

``Game.club_night_section``
    ``club_night_section(club, *, day) -> ReportSection | None``: what the game did on one
    club night (the games and the idiots, the Singapore sheets' totals, a tournament's
    standings), for the end-of-evening page and e-mail. A night runs from 06:00 of ``day``
    to 06:00 the next morning: :func:`night_bounds` gives the times. ``template`` (HTML, in
    the page and the HTML e-mail) and ``text_template`` (the e-mail's text part) are
    rendered with ``context`` plus ``section``, ``club``, ``day`` and ``money`` (whether
    the reader sees the club's money: else no money and no balances).

Money on a leaderboard is its ``kind="money"`` columns: :func:`without_money` takes them
away for a reader who may not see it (the page and the API alike).

And two duties of every game's tasks, for the pages' cache and rebuilds:

- after changing its precomputed rows (after commit), call :func:`bump` with the club's id:
  the cached leaderboards and player pages of the club are then out of date;
- ``Game.rebuild``: ``rebuild(club_id) -> str`` rebuilds the game's derived rows from
  scratch (``manage.py recompute_stats``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import date, datetime, timedelta
from datetime import time as time_of_day
from decimal import Decimal
from typing import Literal

from django.db.models import Count, F, Window
from django.utils import timezone

import plumbing.public_pages as public_pages
from matches import games

Kind = Literal["int", "decimal", "money", "rate", "rating", "text", "date"]


@dataclass(frozen=True)
class Column:
    key: str
    label: str  # translated (gettext_lazy)
    kind: Kind = "int"
    sortable: bool = True
    help: str = ""


@dataclass
class Leaderboard:
    game: str
    title: str
    columns: list[Column]
    # One dict per player: "player" (id), "name", "provisional" (bool, optional), and a value
    # for each column key (int, Decimal, float for rates and ratings, str, date).
    rows: list[dict]
    default_sort: str
    descending: bool = True
    min_games_key: str = "games"  # the column the minimum-games filter applies to
    unit: str = ""  # the currency of "money" columns, if any
    note: str = ""  # one sentence shown above the table (translated), if any
    min_games: int = 0  # the minimum of games the provider applied
    # With ``shown``: the rows are sorted and cut (``top``), and ``total`` counts them all.
    total: int | None = None

    def sorted_rows(self, key: str | None = None, *, descending: bool | None = None) -> list[dict]:
        key = key if key in {c.key for c in self.columns if c.sortable} else self.default_sort
        reverse = self.descending if descending is None else descending

        def value(row):
            v = row.get(key)
            if v is None:
                return (1, 0)
            return (0, v if not isinstance(v, str) else v.lower())

        present = [r for r in self.rows if r.get(key) is not None]
        missing = [r for r in self.rows if r.get(key) is None]
        return sorted(present, key=value, reverse=reverse) + missing


@dataclass(frozen=True)
class Shown:
    """What a page shows of a board: sorted by the column ``sort`` (the board's default if
    it is not one of its sortable columns), highest first unless ``descending`` is False
    (None: the board's own direction), the first ``limit`` rows (None: all)."""

    sort: str | None = None
    descending: bool | None = None
    limit: int | None = None


def top(rows, shown: Shown | None, *, columns: list[Column], default_sort: str, descending=True):
    """``rows`` (a queryset of dicts, in the provider's own order, with a field for each
    sortable column) sorted and cut by the database as ``shown`` says, and how many rows
    there are in all (None without ``shown``: the rows as they are, every one). Empty
    values come last either way, as ``Leaderboard.sorted_rows`` puts them."""
    if shown is None:
        return list(rows), None
    key = shown.sort if shown.sort in {c.key for c in columns if c.sortable} else default_sort
    reverse = descending if shown.descending is None else shown.descending
    order = F(key).desc(nulls_last=True) if reverse else F(key).asc(nulls_last=True)
    # How many rows in all, counted by the database over the whole result before the cut.
    ordered = rows.annotate(rows_in_all=Window(Count("*"))).order_by(order, *rows.query.order_by)
    found = list(ordered if shown.limit is None else ordered[: shown.limit])
    return found, (found[0]["rows_in_all"] if found else 0)


@dataclass
class PlayerSection:
    game: str
    title: str
    template: str
    context: dict = field(default_factory=dict)


@dataclass
class ReportSection:
    game: str
    title: str
    template: str  # HTML, included in the page and the HTML e-mail
    text_template: str  # plain text, for the e-mail's text part
    context: dict = field(default_factory=dict)


def without_money(board: Leaderboard) -> Leaderboard:
    """The board as someone who may not see the club's money sees it
    (``ClubAccess.sees_money``): its money columns gone, from the rows too, so that no
    figure, nor an order sorted by one, is left of them."""
    money = {column.key for column in board.columns if column.kind == "money"}
    if not money:
        return board
    columns = [column for column in board.columns if column.key not in money]
    default_sort = board.default_sort
    if default_sort in money:
        default_sort = next((c.key for c in columns if c.sortable), "")
    return replace(
        board,
        columns=columns,
        rows=[{k: v for k, v in row.items() if k not in money} for row in board.rows],
        default_sort=default_sort,
        unit="",
    )


def leaderboard_columns(game: str) -> list[Column]:
    """The columns of ``game``'s leaderboard, declared in its ``Game`` (the API documents them
    as the values of ``ordering``)."""
    try:
        return list(games.by_name(game).columns)
    except LookupError:
        return []


def leaderboard_providers() -> dict:
    return {game.name: game.leaderboard for game in games.all()}


def player_section_providers() -> list:
    return [game.player_section for game in games.all()]


def club_night_providers() -> list:
    return [game.club_night_section for game in games.all()]


# --- Club nights ------------------------------------------------------------------------------
#
# A club night runs from 06:00 of its day (local time) to 06:00 the next morning, so that the
# games played after midnight belong to the evening they started in.

NIGHT_STARTS_AT = time_of_day(6, 0)


def night_bounds(day: date) -> tuple[datetime, datetime]:
    """The aware datetimes ``[start, end)`` of the club night of ``day``."""
    start = timezone.make_aware(datetime.combine(day, NIGHT_STARTS_AT))
    end = timezone.make_aware(datetime.combine(day + timedelta(days=1), NIGHT_STARTS_AT))
    return start, end


def night_of(moment: datetime) -> date:
    """The club night a moment belongs to."""
    local = timezone.localtime(moment)
    return (local - timedelta(hours=NIGHT_STARTS_AT.hour, minutes=NIGHT_STARTS_AT.minute)).date()


# --- The pages' cache -------------------------------------------------------------------------
#
# Each game's pages are kept under the game's area of the club (``plumbing.public_pages``:
# the game's name) and all the boards under ``BOARDS``; the game's tasks move both
# (``bump(club_id, game)``, after commit) once they have changed their precomputed rows.

BOARDS = "boards"  # the area of every game's boards: the leaderboards, the player pages


def version(club_id: int) -> int:
    """The version of the club's boards (part of the cache key of their fragments)."""
    return public_pages.version(club_id, BOARDS)


def bump(club_id: int, game: str) -> None:
    """A game changed the club's precomputed rows: its pages and the boards are out of date."""
    public_pages.changed(club_id, game, BOARDS)


def players_changed(*, club_id: int) -> None:
    """The clubs' ``players_changed`` hook (``plumbing.parts``): a player renamed, added,
    merged or removed shows on the games' own caches too (the fragments of the boards, the
    Spazz'u'mazz section), which are keyed on the games' areas (called after commit)."""
    public_pages.changed(club_id, BOARDS, *(game.name for game in games.all()))


def as_json(value):
    """A leaderboard value for the API (Decimals as strings, as DRF writes them)."""
    if isinstance(value, Decimal):
        return str(value)
    return value
