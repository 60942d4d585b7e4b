"""Singapore's providers for ``matches.boards``: the club's leaderboard section, the player
page's section and the club night's section. Each reads precomputed rows
(``SingaporeStats``) or one night's sheets, in a constant number of queries."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from django.core.paginator import Paginator
from django.db.models import Max, Q, Sum
from django.utils.translation import gettext, ngettext_lazy
from django.utils.translation import gettext_lazy as _

from matches.boards import Column, Leaderboard, PlayerSection, ReportSection, Shown, top
from matches.boards.charts import player_chart
from matches.singapore.models import Hand, SingaporeStats, TableSession
from matches.singapore.sheet import build_sheet

SUMMED = [
    "hands_played",
    "hands_won",
    "net_points",
    "net_money",
    "won_simple",
    "won_double",
    "won_quintuple",
    "won_quadruple",
    "won_triple",
    "quotas_won",
    "quotas_lost",
]


COLUMNS = [
    Column("hands_played", _("Hands"), help=_("Hands dealt or played as the opponent")),
    Column("hands_won", _("Won")),
    Column("net_points", _("Net points")),
    Column("net_money", _("Net money"), kind="money"),
    Column("won_simple", _("Simple"), help=_("Closings ×1")),
    Column("won_double", _("Double"), help=_("Closings ×2")),
    Column("won_quintuple", _("Quintuple"), help=_("Ten-card sequences, ×5")),
    Column("biggest_hand", _("Biggest hand"), help=_("Most points a quota in one hand")),
    Column("quotas_won", _("Quotas won")),
    Column("quotas_lost", _("Quotas lost")),
]


def totals(club, *, season=None):
    """Each player's figures in ``season`` (all seasons: None), one query."""
    rows = SingaporeStats.objects.filter(club=club)
    if season is not None:
        rows = rows.filter(season=season)
    return (
        rows.values("player", "player__display_name")
        .annotate(**{name: Sum(name) for name in SUMMED}, biggest_hand=Max("biggest_hand"))
        .order_by("-net_points", "player__display_name")
    )


def leaderboard(
    club, *, season=None, min_games: int | None = None, shown: Shown | None = None
) -> Leaderboard | None:
    """``LEADERBOARDS["singapore"]``: one query. ``min_games`` counts hands (no house rule
    sets one: None is 0)."""
    min_games = min_games or 0
    found, total = top(
        totals(club, season=season).filter(hands_played__gte=min_games),
        shown,
        columns=COLUMNS,
        default_sort="net_points",
    )
    rows = [
        {
            "player": row["player"],
            "name": row["player__display_name"],
            **{name: row[name] for name in SUMMED if name != "net_money"},
            "net_money": Decimal(row["net_money"] or 0).quantize(Decimal("0.01")),
            "biggest_hand": row["biggest_hand"],
        }
        for row in found
    ]
    if not rows:
        return None
    return Leaderboard(
        game="singapore",
        title=str(_("Singapore")),
        columns=COLUMNS,
        rows=rows,
        default_sort="net_points",
        min_games=min_games,
        min_games_key="hands_played",
        unit=club.currency,
        total=total,
    )


def player_section(player, *, season=None, page: int = 1) -> PlayerSection | None:
    rows = SingaporeStats.objects.filter(club_id=player.club_id, player=player)
    if season is not None:
        rows = rows.filter(season=season)
    rows = list(rows.select_related("season").order_by("season__start"))
    if not rows:
        return None
    figures = {name: sum(getattr(r, name) for r in rows) for name in SUMMED}
    figures["biggest_hand"] = max(r.biggest_hand for r in rows)
    history = []
    for row in rows:  # each season's running balance, one after the other
        offset = history[-1][1] if history else 0
        history += [[when, offset + balance] for when, balance in row.history]
    hands = (
        Hand.objects.filter(Q(dealer=player) | Q(opponent=player), club_id=player.club_id)
        .select_related("session", "dealer", "opponent")
        .order_by("-played_at", "-pk")
    )
    if season is not None:
        hands = hands.filter(season=season)
    paginator = Paginator(hands, 20)
    return PlayerSection(
        game="singapore",
        title=str(_("Singapore")),
        template="matches/singapore/player_section.html",
        context={
            "figures": figures,
            "currency": rows[0].currency,
            "history": history,
            "chart": _chart(player, history),
            "page": paginator.get_page(page),
        },
    )


def _chart(player, history: list):
    """The running balance, hand by hand (``matches.boards.charts``: SVG, a text alternative)."""

    return player_chart(
        player,
        "singapore-balance",
        [(datetime.fromisoformat(when), float(balance)) for when, balance in history],
        title=gettext("Singapore running balance"),
        description=ngettext_lazy(
            "%(name)s's running balance in points after each hand, %(n)s hand.",
            "%(name)s's running balance in points after each hand, %(n)s hands.",
            "n",
        ),
        digits=0,
    )


def club_night_section(club, *, day) -> ReportSection | None:
    sessions = list(
        TableSession.objects.filter(club=club, date=day).select_related("club").order_by("pk")
    )
    sheets = [build_sheet(s) for s in sessions]
    sheets = [s for s in sheets if s.hands_counted]
    if not sheets:
        return None
    return ReportSection(
        game="singapore",
        title=str(_("Singapore")),
        template="matches/singapore/club_night.html",
        text_template="matches/singapore/club_night.txt",
        context={"sheets": sheets},
    )
