"""Spazz'u'mazz on the pages people open on Saturday (``matches/boards.py``'s protocol):
the leaderboard, the player page's section, the club night's section; and the reads the
API shares with them (the idiot statistics and the game's name). All read precomputed rows
(``matches/spazzumazz/stats.py``) in a constant number of queries."""

from __future__ import annotations

from django.core.paginator import Paginator
from django.db.models import (
    Case,
    Count,
    F,
    OuterRef,
    Prefetch,
    RowRange,
    Subquery,
    Sum,
    When,
    Window,
)
from django.utils import formats
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext_lazy

from clubs.models import Club, Player, Season
from matches.boards import (
    Column,
    Leaderboard,
    PlayerSection,
    ReportSection,
    Shown,
    night_bounds,
    night_of,
    top,
)
from matches.boards.charts import player_chart, rating_series, thinned
from matches.boards.models import PlayerRating
from matches.spazzumazz.models import (
    SpazzumazzGame,
    SpazzumazzHeadToHead,
    SpazzumazzPlace,
    SpazzumazzStats,
    SpazzumazzTitle,
)
from matches.spazzumazz.stats import GAME, PROVISIONAL_GAMES, idiot_min_games

HISTORY_PAGE = 15


# --- The reads the API shares ------------------------------------------------------------------


def game_name(club: Club, season: Season | None = None) -> dict | None:
    """Who the club's game is named after now: ``{"player", "name", "since"}`` or None."""
    title = (
        SpazzumazzTitle.objects.filter(club=club, season=season, until__isnull=True)
        .select_related("player")
        .first()
    )
    if title is None:
        return None
    return {
        "player": title.player_id,
        "name": title.player.display_name,
        "since": night_of(title.since),  # the club night it changed hands
    }


def title_history(club: Club, season: Season | None = None, *, limit: int = 10) -> list:
    return list(
        SpazzumazzTitle.objects.filter(club=club, season=season)
        .select_related("player")
        .order_by("-since")[:limit]
    )


FIGURES = ("games", "idiot", "idiot_rate", "average_place", "current_streak", "longest_streak")


def _stats(club: Club, season: Season | None, min_games: int):
    """The scope's statistics rows, the highest idiot rate first (a queryset of dicts)."""
    return (
        SpazzumazzStats.objects.filter(club=club, season=season, games__gte=max(min_games, 1))
        .order_by("-idiot_rate", "-games", "player__display_name")
        .values("player", "player__display_name", *FIGURES)
    )


def _row(values: dict) -> dict:
    return {
        "player": values["player"],
        "name": values["player__display_name"],
        **{name: values[name] for name in FIGURES},
    }


def idiot_stats(club: Club, season: Season | None = None, *, min_games: int = 0) -> list[dict]:
    """Every player's idiot statistics in the scope, the highest idiot rate first."""
    # Rows, not model objects: a club of a thousand players builds its board in a few ms.
    return [_row(values) for values in _stats(club, season, min_games)]


def game_title(name: str) -> str:
    """The club's game, named after a player: "Gioco di Pino" / "Pino's game"."""
    return _("%(name)s's game") % {"name": name}


# --- The leaderboard ---------------------------------------------------------------------------

COLUMNS = [
    Column("idiot_rate", gettext_lazy("Idiot rate"), "rate"),
    Column("games", gettext_lazy("Games"), "int"),
    Column("idiot", gettext_lazy("Idiot"), "int", help=gettext_lazy("Times the idiot")),
    Column(
        "average_place",
        gettext_lazy("Avg. place"),
        "rate",
        help=gettext_lazy("0%: always out first; 100%: always the idiot"),
    ),
    Column(
        "longest_streak", gettext_lazy("Streak"), "int", help=gettext_lazy("Longest idiot streak")
    ),
    Column(
        "rating",
        gettext_lazy("Rating"),
        "rating",
        help=gettext_lazy("OpenSkill rating: mu - 3 sigma"),
    ),
]


def leaderboard(
    club: Club,
    *,
    season: Season | None = None,
    min_games: int | None = None,
    shown: Shown | None = None,
):
    """``LEADERBOARDS["spazzumazz"]``: two queries (the rows, the game's name), one more
    for the house rule's minimum (``idiot_min_games``, when ``min_games`` is None). The
    ratings come with the statistics' rows, so that the database sorts by any column."""
    if min_games is None:
        min_games = idiot_min_games(club)
    ratings = PlayerRating.objects.filter(club=club, game=GAME, player=OuterRef("player"))
    found, total = top(
        _stats(club, season, min_games).annotate(
            rating=Subquery(ratings.values("display")[:1]),
            provisional=Subquery(ratings.values("provisional")[:1]),
        ),
        shown,
        columns=COLUMNS,
        default_sort="idiot_rate",
    )
    if not found:
        return None
    rows = []
    for values in found:
        row = _row(values)
        rating = values["rating"]
        row["rating"] = round(rating, 1) if rating is not None else None
        row["provisional"] = values["provisional"] is not False
        rows.append(row)
    name = game_name(club, season)
    return Leaderboard(
        game=GAME,
        title="Spazz'u'mazz",
        columns=COLUMNS,
        rows=rows,
        default_sort="idiot_rate",
        min_games=min_games,
        total=total,
        note=(
            _("The game is called %(title)s since %(since)s.")
            % {
                "title": game_title(name["name"]),
                "since": formats.date_format(name["since"], "SHORT_DATE_FORMAT"),
            }
            if name
            else ""
        ),
    )


# --- The player page ---------------------------------------------------------------------------


def _history(player: Player, season: Season | None, page: int):
    """A page of the player's games with a result, each with its players in finishing order."""
    # In the order of the places' own index (player, time, game): a page read, not sorted.
    places = (
        SpazzumazzPlace.objects.filter(player=player, place__isnull=False)
        .select_related("game")
        .order_by("-played_at", "-game_id")
    )
    if season is not None:
        places = places.filter(game__season=season)
    paginator = Paginator(places, HISTORY_PAGE)
    current = paginator.get_page(page)
    games = SpazzumazzGame.objects.filter(pk__in=[p.game_id for p in current]).prefetch_related(
        Prefetch(
            "places",
            queryset=SpazzumazzPlace.objects.filter(place__isnull=False)
            .select_related("player")
            .order_by("place"),
        )
    )
    by_id = {g.pk: g for g in games}
    rows = []
    for place in current:
        game = by_id[place.game_id]
        order = list(game.places.all())
        rows.append(
            {
                "game": game,
                "place": place.place,
                "size": len(order),
                "idiot": place.place == len(order),
                "order": [p.player for p in order],
            }
        )
    return current, rows


def _charts(player: Player, rating: PlayerRating | None, overall: SpazzumazzStats):
    """The rating and the idiot rate after each game, read thinned (``thinned``: the points
    the charts show, not the player's every game). The rate comes from the same places as
    the statistics, with the running count of idiots summed by the database; how many
    points each line has, the rating's games and the statistics' games say."""
    changes = rating_series(player, GAME, rating)
    in_order = ["played_at", "game_id"]  # the places' own index's order
    rate_points = thinned(
        SpazzumazzPlace.objects.filter(player=player, place__isnull=False),
        in_order,
        lambda row: (row["played_at"], row["idiots"] / row["nth"]),
        "played_at",
        count=overall.games,
        idiots=Window(
            Sum(Case(When(place=F("size"), then=1), default=0)),
            order_by=in_order,
            frame=RowRange(start=None, end=0),
        ),
    )

    rating = player_chart(
        player,
        "spazzumazz-rating",
        changes,
        title=_("Spazz'u'mazz rating over time"),
        description=ngettext_lazy(
            "%(name)s's conservative OpenSkill rating after each game, %(n)s game.",
            "%(name)s's conservative OpenSkill rating after each game, %(n)s games.",
            "n",
        ),
        provisional=PROVISIONAL_GAMES - 1,
        legend=_("Dashed: provisional (fewer than %(n)s games).") % {"n": PROVISIONAL_GAMES},
    )
    idiot_rate = player_chart(
        player,
        "spazzumazz-idiot-rate",
        rate_points,
        title=_("Idiot rate over time"),
        description=ngettext_lazy(
            "%(name)s's idiot rate after each game, %(n)s game.",
            "%(name)s's idiot rate after each game, %(n)s games.",
            "n",
        ),
        percent=True,
        y_range=(0.0, 1.0),
    )
    return [c for c in (rating, idiot_rate) if c is not None]


def player_section(player: Player, *, season: Season | None = None, page: int = 1):
    """``PLAYER_SECTIONS``: statistics, rating, head to head, charts and history."""
    scoped = {
        s.season_id: s
        for s in SpazzumazzStats.objects.filter(player=player).filter(
            season__in=[season] if season is not None else []
        )
        | SpazzumazzStats.objects.filter(player=player, season__isnull=True)
    }
    overall = scoped.get(None)
    if overall is None:
        return None
    rating = PlayerRating.objects.filter(player=player, game=GAME).first()
    head_to_head = (
        SpazzumazzHeadToHead.objects.filter(player=player, season=season)
        .select_related("opponent")
        .order_by("-games", "opponent__display_name")[:12]
    )
    current, history = _history(player, season, page)
    return PlayerSection(
        game=GAME,
        title="Spazz'u'mazz",
        template="matches/spazzumazz/player_section.html",
        context={
            "overall": overall,
            "in_season": scoped.get(season.pk) if season is not None else None,
            "season": season,
            "rating": rating,
            "head_to_head": [
                {
                    "opponent": h.opponent,
                    "games": h.games,
                    "behind": h.behind,
                    "ahead": h.games - h.behind,
                }
                for h in head_to_head
            ],
            "charts": _charts(player, rating, overall),
            "history": history,
            "page": current,
            "titles": list(
                SpazzumazzTitle.objects.filter(player=player, season__isnull=True).order_by(
                    "-since"
                )[:5]
            ),
        },
    )


# --- The club night ----------------------------------------------------------------------------


def games_of_night(club: Club, day):
    """The night's games with a result, each with its places in finishing order (two
    queries): the night's report and the tonight screen."""
    start, end = night_bounds(day)
    return (
        SpazzumazzGame.objects.filter(
            club=club, played_at__gte=start, played_at__lt=end, places__place__isnull=False
        )
        .distinct()
        .prefetch_related(
            Prefetch(
                "places",
                queryset=SpazzumazzPlace.objects.select_related("player").order_by("place"),
            )
        )
    )


def night_rows(games) -> tuple[list[dict], list[tuple[str, int]]]:
    """Each game's row (its finishing order and its idiot), and how often each player was
    the idiot (by name, the most often first); the games' places prefetched."""
    idiots: dict[str, int] = {}
    rows = []
    for game in games:
        order = [place.player for place in game.places.all()]
        idiots[order[-1].display_name] = idiots.get(order[-1].display_name, 0) + 1
        rows.append({"game": game, "order": order, "idiot": order[-1]})
    return rows, sorted(idiots.items(), key=lambda item: (-item[1], item[0]))


def night_tally(club: Club, day) -> list[tuple[str, int]]:
    """How often each player was the night's idiot (by name, the most often first), as
    :func:`night_rows` counts it, counted by the database (one query, however many games
    the night had): the idiot is the last of a game's finishing order, whose place is the
    game's size."""
    start, end = night_bounds(day)
    counted = (
        SpazzumazzPlace.objects.filter(
            game__club=club,
            game__played_at__gte=start,
            game__played_at__lt=end,
            place=F("game__size"),
        )
        .values("player__display_name")
        .annotate(n=Count("pk"))
        .values_list("player__display_name", "n")
    )
    idiots: dict[str, int] = {}
    for name, n in counted:  # two players of one name are one, as in night_rows
        idiots[name] = idiots.get(name, 0) + n
    return sorted(idiots.items(), key=lambda item: (-item[1], item[0]))


def club_night_section(club: Club, *, day):
    """``CLUB_NIGHT_SECTIONS``: the night's games and who was the idiot."""
    games = list(games_of_night(club, day).order_by("played_at", "pk"))
    if not games:
        return None
    rows, tally = night_rows(games)
    return ReportSection(
        game=GAME,
        title="Spazz'u'mazz",
        template="matches/spazzumazz/night_section.html",
        text_template="matches/spazzumazz/night_section.txt",
        context={"games": rows, "idiots": tally, "name": game_name(club)},
    )
