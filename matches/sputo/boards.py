"""Sputo on the pages people open on Saturday (``matches/boards.py``'s protocol): the
leaderboard (the Glicko-2 rating, matches won and lost, tournaments won), a player's section
(the tournaments entered with their matches, the statistics, the rating chart) and a club
night's section (the night's tournaments, their standings and their matches).

Besides its ratings, Sputo keeps no precomputed rows: these read the tournaments and their
matches as they are, each in a constant number of queries whatever the history's length (a
tournament has one match fewer than its entrants, plus a third-place match). What counts:

- a match is *won or lost* when it was decided by playing: played, a retirement during it,
  or awarded by an admin; a walkover, a bye or a double forfeit counts for neither (as in
  tennis); its *games* are those of the played matches and retirements;
- a *place* is a finished tournament's standing (:func:`matches.sputo.bracket.standings`):
  1st and 2nd from the final, 3rd and 4th from the third-place match, then by the round
  reached, ties sharing a place;
- a club night's tournaments are those with a result given that night (a bye or an empty
  seat's walkover is the bracket's own, not a result).

The pages' cache: the rating task bumps the boards after it changes the ratings, and the
services bump them after a draw, a result or a cancellation (what these pages show beside
the ratings).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.contrib.contenttypes.models import ContentType
from django.core.paginator import Paginator
from django.db.models import Count, F, Min, OuterRef, Q, Subquery
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext_lazy, pgettext_lazy

from clubs.models import Club, Player, Season
from matches.boards import (
    Column,
    Leaderboard,
    PlayerSection,
    ReportSection,
    Shown,
    night_bounds,
    top,
)
from matches.boards.charts import player_chart, rating_series
from matches.boards.models import PlayerRating
from matches.results.models import Outcome, OutcomeStatus
from matches.sputo import bracket, knockout, places
from matches.sputo.formats import double_elimination as de
from matches.sputo.models import (
    Entrant,
    Format,
    SputoTally,
    Tournament,
    TournamentMatch,
    TournamentStatus,
    round_label,
)
from matches.sputo.ratings import PROVISIONAL_BELOW

GAME = "sputo"
HISTORY_PAGE = 10  # tournaments a page of a player's history

# Decided by playing: a match won or lost.
BY_PLAY = (bracket.PLAYED, bracket.RETIREMENT, bracket.AWARDED)
# With games in the outcome's payload.
WITH_GAMES = (bracket.PLAYED, bracket.RETIREMENT)
# A result people gave (the rest, byes and empty seats' walkovers, are the bracket's own).
GIVEN = (*BY_PLAY, bracket.WALKOVER, bracket.DOUBLE_FORFEIT)

HOW = {
    bracket.WALKOVER: gettext_lazy("Walkover"),
    bracket.RETIREMENT: gettext_lazy("Retirement"),
    bracket.DOUBLE_FORFEIT: gettext_lazy("Double forfeit"),
    bracket.AWARDED: gettext_lazy("Awarded"),
}


def place_label(place: int) -> str:
    """A place in words: 1st, 2nd, 3rd, 11th... (in Italian 1º, 2º, 3º...)."""
    n = {"n": place}
    if place % 100 in (11, 12, 13):
        # Translators: a place in a tournament, 11th 12th 13th... (Italian: "%(n)sº").
        return _("%(n)sth") % n
    last = place % 10
    if last == 1:
        # Translators: a place in a tournament, 1st 21st... (Italian: "%(n)sº").
        return _("%(n)sst") % n
    if last == 2:
        # Translators: a place in a tournament, 2nd 22nd... (Italian: "%(n)sº").
        return _("%(n)snd") % n
    if last == 3:
        # Translators: a place in a tournament, 3rd 23rd... (Italian: "%(n)sº").
        return _("%(n)srd") % n
    # Translators: a place in a tournament, 4th 5th... (Italian: "%(n)sº").
    return _("%(n)sth") % n


# --- Reading tournaments -----------------------------------------------------------------------


def _matches_of(tournaments: list[Tournament]) -> dict[int, list[TournamentMatch]]:
    """Every match of ``tournaments`` with its players, by tournament: one query."""
    by_id = {t.pk: t for t in tournaments}
    found: dict[int, list[TournamentMatch]] = {t.pk: [] for t in tournaments}
    for match in (
        TournamentMatch.objects.filter(tournament_id__in=list(by_id))
        .select_related("player_a", "player_b")
        .order_by("round", "kind", "position")
    ):
        match.tournament = by_id[match.tournament_id]  # round labels without a query each
        found[match.tournament_id].append(match)
    return found


def _games(matches: list[TournamentMatch]) -> dict[int, list[int]]:
    """The winner of each game of ``matches`` (those played), by match: one query."""
    ids = [m.pk for m in matches if m.result in WITH_GAMES]
    return _winners(ids) if ids else {}


def _winners(match_ids) -> dict[int, list[int]]:
    """The winner of each game of the matches ``match_ids`` (ids, or a query of them) by
    their results in force, by match: one query."""
    return {
        match_id: [g.get("winner") for g in payload.get("games") or []]
        for match_id, payload in Outcome.objects.filter(
            content_type=ContentType.objects.get_for_model(TournamentMatch),
            object_id__in=match_ids,
            status=OutcomeStatus.CONFIRMED,
        ).values_list("object_id", "payload")
    }


def _standings(tournament: Tournament, matches: list[TournamentMatch]) -> list[dict]:
    """A finished tournament's standings (none for one that is not)."""
    if tournament.status != TournamentStatus.FINISHED:
        return []
    players = {p.pk: p for m in matches for p in m.players()}
    if tournament.format != Format.SINGLE_ELIMINATION:  # a table's places, or with groups
        return [
            {
                "place": place,
                "place_label": place_label(place),
                "player": players.get(player),
                "round_reached": reached,
                "round_label": round_label(
                    de.LOSERS if knockout.is_double(tournament) else bracket.MAIN,
                    reached,
                    tournament.rounds,
                )
                if reached
                else "",
            }
            for place, player, reached in places.standings_of(tournament)
        ]
    slots = [m.as_slot() for m in matches]
    return [
        {
            "place": place,
            "place_label": place_label(place),
            "player": players.get(player),
            "round_reached": reached,
            "round_label": round_label(bracket.MAIN, reached, tournament.rounds),
        }
        for place, player, reached in bracket.standings(slots, rounds=tournament.rounds)
    ]


def _score(games: list[int], first: int | None, second: int | None) -> str:
    if not games:
        return ""
    return f"{games.count(first)}–{games.count(second)}"


# --- The leaderboard ---------------------------------------------------------------------------


# The board's columns (the API documents their keys as the values of ``ordering``).
COLUMNS = [
    Column(
        "rating",
        gettext_lazy("Rating"),
        "rating",
        help=gettext_lazy("Glicko-2: the rating minus twice its deviation"),
    ),
    Column(
        "games",
        gettext_lazy("Matches"),
        help=gettext_lazy("Matches played: walkovers, byes and double forfeits do not count"),
    ),
    Column("won", pgettext_lazy("matches", "Won")),
    Column("lost", pgettext_lazy("matches", "Lost")),
    Column("tournaments_won", gettext_lazy("Tournaments won")),
    # The two figures behind the rating (whole numbers: no second provisional mark).
    Column("mu", gettext_lazy("Glicko-2 rating")),
    Column("rd", gettext_lazy("Deviation")),
]


def leaderboard(
    club: Club,
    *,
    season: Season | None = None,
    min_games: int | None = None,
    shown: Shown | None = None,
):
    """``LEADERBOARDS["sputo"]``: one query, a row a player (``SputoTally``, the derived
    rows the database keeps: ``matches.sputo.tally``) with the player's rating. Matches
    and tournaments are the season's (or all time); a rating follows a player across
    seasons. ``min_games`` counts matches (no house rule sets one: None is 0)."""
    min_games = min_games or 0
    ratings = PlayerRating.objects.filter(club=club, game=GAME, player=OuterRef("player"))
    tallies = (
        SputoTally.objects.filter(club=club, season=season, matches__gte=min_games)
        .filter(Q(matches__gt=0) | Q(tournaments_won__gt=0))
        .order_by("player__display_name", "player")
        .values("player", "player__display_name", "won", "tournaments_won")
        .annotate(
            games=F("matches"),
            lost=F("matches") - F("won"),
            rating=Subquery(ratings.values("display")[:1]),
            mu=Subquery(ratings.values("mu")[:1]),
            rd=Subquery(ratings.values("sigma")[:1]),
            provisional=Subquery(ratings.values("provisional")[:1]),
        )
    )
    found, total = top(tallies, shown, columns=COLUMNS, default_sort="rating")
    shown_rows = [
        {
            "player": values["player"],
            "name": values["player__display_name"],
            "provisional": values["provisional"] is not False,
            "rating": None if values["rating"] is None else round(values["rating"], 1),
            "games": values["games"],
            "won": values["won"],
            "lost": values["lost"],
            "tournaments_won": values["tournaments_won"],
            "mu": None if values["mu"] is None else round(values["mu"]),
            "rd": None if values["rd"] is None else round(values["rd"]),
        }
        for values in found
    ]
    if not shown_rows:
        return None
    return Leaderboard(
        game=GAME,
        title="Sputo",
        columns=COLUMNS,
        rows=shown_rows,
        total=total,
        default_sort="rating",
        min_games=min_games,
        note=(
            _("Ratings count every season; matches and tournaments are this season's.")
            if season is not None
            else ""
        ),
    )


# --- The player page ---------------------------------------------------------------------------


@dataclass
class Entry:
    """A tournament a player entered, as their history shows it."""

    tournament: Tournament
    place: int | None = None  # once it is finished
    place_label: str = ""
    round_label: str = ""  # the round reached
    still_in: bool = False  # running, and not knocked out
    matches: list[dict] = field(default_factory=list)


def _entry(player: Player, entrant: Entrant, mine: list[TournamentMatch], games) -> Entry:
    """The entry of ``entrant`` (the player's row of a tournament, with its final place)
    from the player's own matches of the tournament, ``mine``, in bracket order."""
    me, tournament = player.pk, entrant.tournament
    entry = Entry(tournament=tournament)
    reached = max((m.round for m in mine if m.kind == bracket.MAIN), default=1)
    if entrant.place is not None:
        entry.place, entry.place_label = entrant.place, place_label(entrant.place)
    if any(m.kind == bracket.MAIN for m in mine):
        entry.round_label = round_label(bracket.MAIN, reached, tournament.rounds)
    knocked_out = False
    for m in mine:
        if not m.result:
            continue
        if m.kind == bracket.MAIN and m.winner_id != me:
            knocked_out = True
        if m.result not in GIVEN:
            continue  # a bye, or an empty seat opposite: no opponent, no match
        opponent = m.player_b if m.player_a_id == me else m.player_a
        entry.matches.append(
            {
                "match": m,
                "round_label": m.round_label,
                "opponent": opponent,
                "won": m.winner_id == me,
                "lost": m.winner_id is not None and m.winner_id != me,
                "counted": m.result in BY_PLAY,
                "score": _score(games.get(m.pk, []), me, opponent.pk if opponent else None),
                "how": HOW.get(m.result, ""),
                "at": m.decided_at,
            }
        )
    entry.still_in = tournament.status == TournamentStatus.RUNNING and not knocked_out
    return entry


def _statistics(player: Player, entered, played) -> dict:
    """The player's figures over ``entered`` (their entrant rows) and ``played`` (their
    matches in those tournaments): counted by the database, but the games, which are read
    from the results of the player's own matches played in games."""
    me = player.pk
    matches = played.filter(result__in=BY_PLAY).aggregate(
        won=Count("pk", filter=Q(winner_id=me)),
        lost=Count("pk", filter=Q(winner__isnull=False) & ~Q(winner_id=me)),
    )
    games_won = games_lost = 0
    for winners in _winners(played.filter(result__in=WITH_GAMES).values("pk")).values():
        games_won += winners.count(me)
        games_lost += len(winners) - winners.count(me)
    entries = entered.aggregate(
        tournaments=Count("pk", filter=~Q(tournament__status=TournamentStatus.CANCELLED)),
        tournaments_won=Count("pk", filter=Q(place=1)),
        best=Min("place"),
    )
    return {
        "won": matches["won"],
        "lost": matches["lost"],
        "games_won": games_won,
        "games_lost": games_lost,
        "tournaments": entries["tournaments"],
        "tournaments_won": entries["tournaments_won"],
        "best": place_label(entries["best"]) if entries["best"] else "",
    }


def _chart(player: Player, rating: PlayerRating | None):
    changes = rating_series(player, GAME, rating)
    return player_chart(
        player,
        "sputo-rating",
        changes,
        title=_("Sputo rating over time"),
        description=ngettext_lazy(
            "%(name)s's Glicko-2 rating (the rating minus twice its deviation) after each "
            "rated match, %(n)s match; provisional for the first %(first)s.",
            "%(name)s's Glicko-2 rating (the rating minus twice its deviation) after each "
            "rated match, %(n)s matches; provisional for the first %(first)s.",
            "n",
        ),
        facts={"first": PROVISIONAL_BELOW - 1},
        digits=0,
        provisional=PROVISIONAL_BELOW - 1,
        legend=_("Dashed: provisional (fewer than %(n)s rated matches).")
        % {"n": PROVISIONAL_BELOW},
    )


def player_section(player: Player, *, season: Season | None = None, page: int = 1):
    """``PLAYER_SECTIONS``: statistics, rating and its chart, and the tournaments entered
    (a page of them, newest first) with the player's matches. Read from the player's own
    rows: their entries (with their final places, ``matches.sputo.places``) and their own
    matches, never the tournaments' whole brackets; a constant number of queries, and no
    row of anyone else's history."""
    entered = Entrant.objects.filter(
        player=player, no_show=False, tournament__drawn_at__isnull=False
    )
    if not entered.exists():
        return None
    if season is not None:
        entered = entered.filter(tournament__season=season)
    current = Paginator(
        entered.select_related("tournament").order_by("-tournament__starts_at", "-tournament_id"),
        HISTORY_PAGE,
    ).get_page(page)
    played = TournamentMatch.objects.filter(
        Q(player_a=player) | Q(player_b=player),
        tournament_id__in=entered.values("tournament_id"),
    )
    shown = {entrant.tournament_id: entrant.tournament for entrant in current}
    mine: dict[int, list[TournamentMatch]] = {pk: [] for pk in shown}
    for match in (
        played.filter(tournament_id__in=list(shown))
        .select_related("player_a", "player_b")
        .order_by("round", "kind", "position")
    ):
        match.tournament = shown[match.tournament_id]  # round labels without a query each
        mine[match.tournament_id].append(match)
    games = _games([m for ms in mine.values() for m in ms])
    entries = [_entry(player, e, mine[e.tournament_id], games) for e in current]
    rating = PlayerRating.objects.filter(player=player, game=GAME).first()
    return PlayerSection(
        game=GAME,
        title="Sputo",
        template="matches/sputo/player_section.html",
        context={
            "statistics": _statistics(player, entered, played),
            "rating": rating,
            "provisional_below": PROVISIONAL_BELOW,
            "chart": _chart(player, rating),
            "entries": entries,
            "page": current,
        },
    )


# --- The club night ----------------------------------------------------------------------------


def club_night_section(club: Club, *, day):
    """``CLUB_NIGHT_SECTIONS``: each tournament with a result that night, its standings
    (once finished) and the night's matches. Three queries."""
    start, end = night_bounds(day)
    tournaments = list(
        Tournament.objects.filter(
            club=club,
            matches__result__in=GIVEN,
            matches__decided_at__gte=start,
            matches__decided_at__lt=end,
        )
        .distinct()
        .order_by("starts_at", "pk")
    )
    if not tournaments:
        return None
    matches = _matches_of(tournaments)
    tonight = {
        t.pk: sorted(
            (
                m
                for m in matches[t.pk]
                if m.result in GIVEN and m.decided_at and start <= m.decided_at < end
            ),
            key=lambda m: (m.decided_at, m.round, m.kind != bracket.MAIN, m.position),
        )
        for t in tournaments
    }
    games = _games([m for ms in tonight.values() for m in ms])
    rows = []
    for tournament in tournaments:
        night_matches = []
        for m in tonight[tournament.pk]:
            first, second = m.player_a, m.player_b
            if m.winner_id is not None and m.winner_id == m.player_b_id:
                first, second = second, first  # the winner first
            night_matches.append(
                {
                    "match": m,
                    "at": m.decided_at,
                    "round_label": m.round_label,
                    "first": first,
                    "second": second,
                    "has_winner": m.winner_id is not None,
                    "score": _score(
                        games.get(m.pk, []),
                        first.pk if first else None,
                        second.pk if second else None,
                    ),
                    "how": HOW.get(m.result, ""),
                }
            )
        rows.append(
            {
                "tournament": tournament,
                "standings": _standings(tournament, matches[tournament.pk]),
                "matches": night_matches,
            }
        )
    return ReportSection(
        game=GAME,
        title="Sputo",
        template="matches/sputo/night_section.html",
        text_template="matches/sputo/night_section.txt",
        context={"tournaments": rows},
    )
