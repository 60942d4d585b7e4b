"""Small server-rendered SVG line charts (the player page's rating, idiot rate and running
balance), drawn by the template ``matches/chart.html``: a ``viewBox`` that scales to any
width (390 px phones included), a title and a description for screen readers, and the same
figures as a table under a disclosure, as the text alternative.

A provider builds one with :func:`line_chart` (a player's figure day by day:
:func:`player_chart`) and puts it in its section's context; the section's template includes
``matches/chart.html`` with ``chart=...``. A rating's first, provisional points
(``provisional=n``) are drawn dashed and marked in the text alternative.

A chart draws at most ``MAX_POINTS`` of a line's points, evenly spaced, and lists the last
``ROWS`` as its text alternative, so a long history is read thinned by the database
(:func:`thinned`): only the points the chart shows, by their place in the line (a window
function), however many games the player has behind them; a rating's line is
:func:`rating_series`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from django.db.models import QuerySet, Window
from django.db.models.functions import RowNumber
from django.utils import formats, timezone
from django.utils.translation import gettext as _

from matches.boards.models import RatingChange

WIDTH, HEIGHT = 320, 140
LEFT, RIGHT, TOP, BOTTOM = 34, 6, 8, 18
MAX_POINTS = 120


@dataclass(frozen=True)
class Chart:
    id: str
    title: str
    description: str
    path: str  # the line's SVG path
    area: str  # the same line closed down to the zero line (or the bottom)
    zero_y: float | None  # where 0 is, if it is in range
    y_labels: list[tuple[float, str]]  # (y position, label)
    x_labels: list[tuple[float, str]]
    last: tuple[float, float] | None  # the last point, marked
    rows: list[tuple[str, str]]  # the text alternative: (x label, value)
    width: int = WIDTH
    height: int = HEIGHT
    # The provisional start of the line, drawn dashed (``path`` is then the rest), and the
    # sentence under the chart that says so.
    provisional_path: str = ""
    legend: str = ""


ROWS = 60  # the last points, as a table under the chart (for screen readers)


def _thin(count: int, limit: int = MAX_POINTS) -> list[int]:
    """The indices of at most ``limit`` of ``count`` points, evenly spaced, always keeping
    the first and the last."""
    if count <= limit:
        return list(range(count))
    step = (count - 1) / (limit - 1)
    return [round(i * step) for i in range(limit)]


def wanted(count: int) -> list[int]:
    """The places (0-based) of a line of ``count`` points that a chart of it reads: the
    points it draws and the last ``ROWS``, its text alternative."""
    return sorted(set(_thin(count)) | set(range(max(0, count - ROWS), count)))


@dataclass(frozen=True)
class Series:
    """A line of ``count`` points of which only some are at hand: ``points`` maps a point's
    place (0-based) to its (x, value); it holds at least :func:`wanted` of ``count``."""

    count: int
    points: dict[int, tuple[object, float]]

    @classmethod
    def whole(cls, points: list[tuple[object, float]]) -> Series:
        return cls(len(points), dict(enumerate(points)))


def thinned(
    rows: QuerySet,
    order: list[str],
    point: Callable[[dict], tuple[object, float]],
    *fields: str,
    count: int | None = None,
    **expressions,
) -> Series:
    """The :class:`Series` of ``rows`` in ``order``, read thinned: only the :func:`wanted`
    places (``ROW_NUMBER()`` over ``order``, which must be a total order), in one query.
    Each row is read with its ``fields`` and ``expressions`` (window sums included);
    ``point`` makes a row's dict into its (x, value), and finds its place in the line
    (1-based) as ``row["nth"]``.

    ``count``, how many rows there are, comes from a derived row where one keeps it (a
    rating's games); without it, or if the rows read say it is wrong (one more row is asked
    for, past the end: it must not be there, and the last must), the rows are counted."""
    if count is None:
        count = rows.count()
    picked = _picked(rows, order, count, fields, expressions)
    if len(picked) != len(wanted(count)) or (picked and picked[-1]["nth"] != count):
        count = rows.count()  # the count given was wrong: read again, by the real one
        picked = _picked(rows, order, count, fields, expressions)
    return Series(count, {row["nth"] - 1: point(row) for row in picked if row["nth"] <= count})


def _picked(rows: QuerySet, order: list[str], count: int, fields, expressions) -> list[dict]:
    """The rows at the :func:`wanted` places of ``count``, and the one past the end if
    there is one (then ``count`` was wrong)."""
    if count < 2:
        return []
    places = [i + 1 for i in wanted(count)] + [count + 1]
    return list(
        rows.annotate(nth=Window(RowNumber(), order_by=order), **expressions)
        .filter(nth__in=places)
        .values("nth", *fields, *expressions)
        .order_by("nth")
    )


def rating_series(player, game: str, rating) -> Series:
    """``player``'s rating after each rated result of ``game``, thinned (:func:`thinned`):
    (when, the conservative rating); as many as ``rating`` (its ``PlayerRating``, or None)
    has games, one change each."""
    return thinned(
        RatingChange.objects.filter(player=player, game=game),
        ["sequence"],
        lambda row: (row["at"], row["display"]),
        "at",
        "display",
        count=rating.games if rating is not None else 0,
    )


def _path(coords: list[tuple[float, float]]) -> str:
    return "M" + " L".join(f"{cx},{cy}" for cx, cy in coords)


def _fmt(value: float, digits: int) -> str:
    return formats.number_format(value, digits)


def line_chart(
    chart_id: str,
    points: list[tuple[str, float]] | Series,
    *,
    title: str,
    description: str,
    digits: int = 1,
    percent: bool = False,
    y_range: tuple[float, float] | None = None,
    provisional: int = 0,
    legend: str = "",
    label_of=None,
) -> Chart | None:
    """A chart of ``points`` ((x label, value), in order, or a :class:`Series` of them);
    None for fewer than two points.

    ``percent`` shows values (fractions) as percentages; ``y_range`` fixes the y axis;
    the first ``provisional`` points are provisional (a rating with few games behind it):
    the line is dashed up to the first firm point and the figures say "provisional";
    ``legend`` is a sentence under the chart (what the dashes mean). ``label_of``: how an x
    of ``points`` is written, called only for the points shown (a long history's charts
    write a few hundred labels, not one per game).
    """
    series = points if isinstance(points, Series) else Series.whole(points)
    count = series.count
    if count < 2:
        return None
    write = label_of or str
    indices = _thin(count)
    shown = [(write(series.points[i][0]), series.points[i][1]) for i in indices]
    values = [v for _label, v in shown]
    low, high = y_range if y_range else (min(values), max(values))
    if high - low < 1e-9:
        low, high = low - 1, high + 1
    inner_w, inner_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(i: int) -> float:
        return LEFT + inner_w * i / (len(shown) - 1)

    def y(v: float) -> float:
        return TOP + inner_h * (high - v) / (high - low)

    def label(v: float) -> str:
        return f"{_fmt(v * 100, 0)}%" if percent else _fmt(v, digits)

    coords = [(round(x(i), 1), round(y(v), 1)) for i, v in enumerate(values)]
    path = whole = _path(coords)
    # Dashed from the first point to the first firm one; solid from there on.
    firm = sum(1 for i in indices if i < provisional)
    provisional_path = ""
    if firm > 0:
        provisional_path = _path(coords[: firm + 1])
        path = _path(coords[firm:]) if firm < len(coords) - 1 else ""
    zero_y = round(y(0), 1) if low <= 0 <= high else None
    base = zero_y if zero_y is not None else TOP + inner_h
    area = f"{whole} L{coords[-1][0]},{base} L{coords[0][0]},{base} Z"
    middle = (low + high) / 2
    y_labels = [(round(y(v), 1), label(v)) for v in (high, middle, low)]
    x_labels = [(LEFT, shown[0][0]), (WIDTH - RIGHT, shown[-1][0])]
    marker = _("provisional")
    rows = [
        (write(x), f"{label(v)} ({marker})" if i < provisional else label(v))
        for i in range(max(0, count - ROWS), count)
        for x, v in [series.points[i]]
    ]
    return Chart(
        id=chart_id,
        title=title,
        description=description,
        path=path,
        area=area,
        zero_y=zero_y,
        y_labels=y_labels,
        x_labels=x_labels,
        last=coords[-1],
        rows=rows,
        provisional_path=provisional_path,
        legend=legend,
    )


def player_chart(
    player,
    what: str,
    dated: list[tuple[datetime, float]] | Series,
    *,
    description,
    facts=None,
    **options,
) -> Chart | None:
    """:func:`line_chart` of ``player``'s ``what`` (``"sputo-rating"``) over time, ``dated``
    ((when, value), in order, or a :class:`Series` of them), each point labelled with its
    day. ``description`` comes from ``ngettext_lazy(..., "n")``: it is told the player's
    ``name``, the number of points ``n`` and any other ``facts``."""
    count = dated.count if isinstance(dated, Series) else len(dated)
    about = {"name": player.display_name, "n": count, **(facts or {})}
    return line_chart(
        f"{what}-{player.pk}", dated, description=description % about, label_of=_day, **options
    )


def _day(at: datetime) -> str:
    """The day of ``at``, short, in the local time zone (when ``at`` has one)."""
    if timezone.is_aware(at):
        at = timezone.localtime(at)
    return formats.date_format(at, "SHORT_DATE_FORMAT")
