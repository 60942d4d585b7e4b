"""Template helpers of the boards' pages: a leaderboard cell by its column's kind, and the
query string of a sorting link."""

from decimal import Decimal

from django import template
from django.utils import formats
from django.utils.html import format_html
from django.utils.translation import gettext

register = template.Library()


@register.simple_tag
def cell(row: dict, column, unit: str = "") -> str:
    value = row.get(column.key)
    if value is None:
        return "–"
    kind = column.kind
    if kind == "rate":
        return f"{formats.number_format(float(value) * 100, 0)}%"
    if kind == "rating":
        shown = formats.number_format(float(value), 1)
        if row.get("provisional"):
            return format_html(
                '{}<abbr title="{}">?</abbr>', shown, gettext("provisional: few games yet")
            )
        return shown
    if kind in ("decimal", "money"):
        shown = formats.number_format(Decimal(value), 2, use_l10n=True)
        return f"{shown} {unit}".strip() if kind == "money" else shown
    if kind == "date":
        return formats.date_format(value, "SHORT_DATE_FORMAT")
    if kind == "int":
        return formats.number_format(value, 0, force_grouping=True)
    return str(value)


@register.simple_tag(takes_context=True)
def sort_query(context, game: str, column: str) -> str:
    """The query string that sorts ``game``'s board by ``column`` (reversing it if it is
    already sorted that way), keeping the season and the minimum of games."""
    section = context["section"]
    params = context["params"].copy()
    params.pop("all", None)
    same = section["sorted_by"] == column
    params["sort"] = f"{game}.{column}"
    params["dir"] = "asc" if same and section["descending"] else "desc"
    return params.urlencode()


@register.simple_tag(takes_context=True)
def show_all_query(context, game: str) -> str:
    """The query string that shows every row of ``game``'s board, as it is sorted now."""
    params = context["params"].copy()
    params["all"] = game
    return params.urlencode()
