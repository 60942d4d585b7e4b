"""Spazz'u'mazz's derived rows: idiot statistics, head to head, OpenSkill ratings and the
club's game name ("Gioco di <name>"), all rebuilt from the games' places.

How they stay right:

- A result coming into force, corrected or voided writes the game's places and marks the
  club's :class:`~matches.models.SpazzumazzBoard` *stale from* that game's time, in the same
  transaction (the game's adapter: :func:`mark_stale`), then queues :func:`refresh` after
  commit (``matches.spazzumazz.tasks``).
- :func:`refresh` locks the board row, and if it is stale:

  - **a delta** when everything pending came after the last game the rows count (the
    board's ``counted_at``/``counted_game_id``): a new game, as at a club night. The rows of
    that game's players are read and each new game is added to them, as the rebuild adds
    it (:func:`tally`, the same code in the same order, so the same numbers to the last
    bit): statistics and streaks, head to head between its players, the ratings from each
    player's current one, and the game's name from the scope's standings (one read of the
    qualified players' rows). Its cost is the game's players, whatever their history.
  - **a replay** otherwise (a game entered late, a correction or a void of a game already
    counted, a change of ``idiot_min_games``): it rebuilds what the games from that time on
    can have changed: the statistics and head to head of every player of those games (from
    their whole history), the ratings replayed from the last rating before that time, and
    the game name's history replayed from the standings just before it. Its cost is those
    players' history.

  Then the board is clean and the club's pages' cache version is bumped.
- So a task run twice finds nothing stale the second time, tasks run in any order each
  rebuild from the earliest change still pending, and :func:`rebuild_club` (``manage.py
  recompute_stats``) is the replay from the first game: the same numbers, which
  ``tests/test_spazzumazz_stats.py`` checks on random histories.

Definitions (``tests/test_spazzumazz_stats.py`` has hand-computed cases):

- **idiot rate**: times idiot / games;
- **average place**, normalised so that games of any size compare: a player's place ``p``
  of ``n`` counts ``(p - 1) / (n - 1)``: 0 out first, 1 the idiot; the average of those;
- **streaks**: idiot in consecutive games of the player (in the season, or all time); the
  current one is the run up to their last game;
- **head to head**: for each other player met, the games shared and how often the player
  finished behind them;
- **ratings**: OpenSkill's Plackett-Luce model over each finishing order, in the order the
  games were played (ties in time by game id); shown as ``mu - 3 sigma``, provisional below
  :data:`PROVISIONAL_GAMES` games;
- **the game's name**: after ``rules.spazzumazz.renamed_after`` over the statistics, with
  the club's current ``idiot_min_games``, after every game: a change of holder closes a
  :class:`~matches.models.SpazzumazzTitle` row and opens the next.
"""

from __future__ import annotations

import heapq
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from fractions import Fraction

from django.contrib.contenttypes.models import ContentType
from django.db import transaction
from django.db.models import Case, DateTimeField, F, FloatField, Q, Value, When
from django.db.models.functions import Cast, Least
from django.utils import timezone
from openskill.models import PlackettLuce

from clubs.models import Club, Player
from clubs.services import house_rules_for
from matches import boards
from matches.boards.models import PlayerRating, RatingChange
from matches.results.models import Outcome, OutcomeStatus
from matches.spazzumazz.models import (
    SpazzumazzBoard,
    SpazzumazzGame,
    SpazzumazzHeadToHead,
    SpazzumazzPlace,
    SpazzumazzStats,
    SpazzumazzTitle,
)
from matches.spazzumazz.webhooks import announce_rename, current_title

GAME = "spazzumazz"
#: Below this many rated games a rating is marked provisional.
PROVISIONAL_GAMES = 10
MODEL = PlackettLuce()

ALL_TIME = None  # the scope of all-time rows (season empty)


def conservative(mu: float, sigma: float) -> float:
    """The figure shown: ``mu - 3 sigma`` (0 for a newcomer)."""
    return mu - 3 * sigma


# --- Marking stale ---------------------------------------------------------------------------


def mark_stale(*, club_id: int, since: datetime | None) -> None:
    """Mark the club's derived rows stale from ``since`` on (None: from the first game):
    one query, the row's first mark aside. Stale already, it stays stale from the earlier
    of the two (from the first game if so marked). The update waits for the row's lock, so
    it comes after a running refresh, and marks again."""
    if since is None:
        stale_from = Value(None, output_field=DateTimeField())
    else:
        stale_from = Case(
            When(stale=True, stale_from__isnull=True, then=Value(None)),
            When(stale=True, then=Least(F("stale_from"), Value(since))),
            default=Value(since),
            output_field=DateTimeField(),
        )
    board = SpazzumazzBoard.objects.filter(club_id=club_id)
    if board.update(stale=True, stale_from=stale_from):
        return
    SpazzumazzBoard.objects.bulk_create(
        [SpazzumazzBoard(club_id=club_id, stale=True, stale_from=since)], ignore_conflicts=True
    )
    board.update(stale=True, stale_from=stale_from)  # made meanwhile by another: mark it


# --- Reading the games -------------------------------------------------------------------------


@dataclass(frozen=True)
class Played:
    """A game with a result in force: its players in finishing order (the idiot last)."""

    pk: int
    played_at: datetime
    season_id: int | None
    order: tuple[int, ...]

    @property
    def key(self) -> tuple[datetime, int]:
        return (self.played_at, self.pk)


def _games(places: Iterable[tuple[int, datetime, int | None, int]]) -> list[Played]:
    """Group (game, played_at, season, player) rows, sorted by time, game and place."""
    games: list[Played] = []
    current: list[int] = []
    last = None
    for game_id, played_at, season_id, player_id in places:
        if last is not None and last[0] != game_id:
            games.append(Played(last[0], last[1], last[2], tuple(current)))
            current = []
        current.append(player_id)
        last = (game_id, played_at, season_id)
    if last is not None:
        games.append(Played(last[0], last[1], last[2], tuple(current)))
    return games


def games_in_force(club_id: int, *, players: Iterable[int] | None = None) -> list[Played]:
    """The club's games with a result in force, in the order they were played; only those
    of ``players`` if given."""
    places = SpazzumazzPlace.objects.filter(game__club_id=club_id, place__isnull=False)
    if players is not None:
        ids = list(players)
        if not ids:
            return []
        played = SpazzumazzPlace.objects.filter(
            game__club_id=club_id, place__isnull=False, player_id__in=ids
        ).values("game_id")
        places = places.filter(game_id__in=played)
    rows = places.order_by("game__played_at", "game_id", "place").values_list(
        "game_id", "game__played_at", "game__season_id", "player_id"
    )
    return _games(rows.iterator(chunk_size=5000))


# --- Statistics --------------------------------------------------------------------------------


@dataclass
class Tally:
    """A player's running statistics in one scope."""

    games: int = 0
    idiot: int = 0
    place_sum: int = 0
    relative_place_sum: float = 0.0
    current_streak: int = 0
    longest_streak: int = 0
    last_played_at: datetime | None = None

    def add(self, place: int, size: int, at: datetime) -> None:
        self.games += 1
        self.place_sum += place
        self.relative_place_sum += (place - 1) / (size - 1)
        if place == size:
            self.idiot += 1
            self.current_streak += 1
            self.longest_streak = max(self.longest_streak, self.current_streak)
        else:
            self.current_streak = 0
        self.last_played_at = at

    def badness(self) -> tuple[Fraction, int, Fraction]:
        """``renamed_after``'s order: idiot rate, times idiot, average (raw) place."""
        return (
            Fraction(self.idiot, self.games),
            self.idiot,
            Fraction(self.place_sum, self.games),
        )


def _scopes(game: Played) -> tuple[int | None, ...]:
    return (ALL_TIME,) if game.season_id is None else (ALL_TIME, game.season_id)


def tally(games: Iterable[Played], players: set[int] | None = None, *, stats=None, pairs=None):
    """Statistics and head to head of ``players`` (everyone if None) over ``games``:
    ``({(scope, player): Tally}, {(scope, player, opponent): [games, behind]})``; the head
    to head holds every pair with at least one of ``players``. ``stats`` and ``pairs``: the
    rows to add the games to (a delta), empty by default."""
    stats = defaultdict(Tally, stats or {})
    pairs = defaultdict(lambda: [0, 0], pairs or {})
    for game in games:
        size = len(game.order)
        scopes = _scopes(game)
        for place, player in enumerate(game.order, 1):
            mine = players is None or player in players
            if mine:
                for scope in scopes:
                    stats[(scope, player)].add(place, size, game.played_at)
            for other_place, other in enumerate(game.order, 1):
                if other == player or not (mine or players is None or other in players):
                    continue
                for scope in scopes:
                    pair = pairs[(scope, player, other)]
                    pair[0] += 1
                    pair[1] += place > other_place
    return stats, pairs


def _stats_rows(club_id: int, stats: dict[tuple, Tally]) -> list[SpazzumazzStats]:
    return [
        SpazzumazzStats(
            club_id=club_id,
            season_id=scope,
            player_id=player,
            games=t.games,
            idiot=t.idiot,
            idiot_rate=t.idiot / t.games,
            place_sum=t.place_sum,
            relative_place_sum=t.relative_place_sum,
            average_place=t.relative_place_sum / t.games,
            current_streak=t.current_streak,
            longest_streak=t.longest_streak,
            last_played_at=t.last_played_at,
        )
        for (scope, player), t in stats.items()
    ]


def _pair_rows(club_id: int, pairs: dict[tuple, list[int]]) -> list[SpazzumazzHeadToHead]:
    return [
        SpazzumazzHeadToHead(
            club_id=club_id,
            season_id=scope,
            player_id=player,
            opponent_id=opponent,
            games=games,
            behind=behind,
        )
        for (scope, player, opponent), (games, behind) in pairs.items()
    ]


# --- Ratings -----------------------------------------------------------------------------------


def _outcomes_in_force(club_id: int, game_ids: list[int]) -> dict[int, int]:
    found = Outcome.objects.filter(
        club_id=club_id,
        content_type=ContentType.objects.get_for_model(SpazzumazzGame),
        status=OutcomeStatus.CONFIRMED,
    )
    if len(game_ids) <= 1000:
        found = found.filter(object_id__in=game_ids)
    return dict(found.values_list("object_id", "pk"))


def _replay_ratings(club_id: int, games: list[Played], start, players: set[int] | None) -> None:
    """Delete the ratings from ``start`` on and replay ``games`` (those from ``start`` on)
    from each player's last rating before it."""
    changes = RatingChange.objects.filter(club_id=club_id, game=GAME)
    if start is None:
        changes.delete()
        PlayerRating.objects.filter(club_id=club_id, game=GAME).delete()
        kept = RatingChange.objects.none()
    else:
        changes.filter(at__gte=start).delete()
        kept = changes.filter(player_id__in=players)
    state: dict[int, tuple[float, float, int]] = {}  # player -> (mu, sigma, games)
    for player, mu, sigma in kept.order_by("sequence").values_list("player_id", "mu", "sigma"):
        games_so_far = state[player][2] + 1 if player in state else 1
        state[player] = (mu, sigma, games_so_far)
    _rate(club_id, games, state, set(state) if players is None else players)


def _rate(club_id: int, games: list[Played], state: dict, touched: set[int]) -> None:
    """Rate ``games`` in order from each player's ``state`` (mu, sigma, games so far; a
    newcomer's is the model's), write their rating changes after the club's last one, and
    the current ratings of ``touched`` and of every player of ``games``."""
    changes = RatingChange.objects.filter(club_id=club_id, game=GAME)
    last = changes.order_by("-sequence").values_list("sequence", flat=True).first() or 0
    outcome_of = _outcomes_in_force(club_id, [g.pk for g in games])
    new = []
    for sequence, game in enumerate(games, last + 1):
        before = [state.get(p, (MODEL.mu, MODEL.sigma, 0)) for p in game.order]
        teams = [[MODEL.rating(mu=mu, sigma=sigma)] for mu, sigma, _n in before]
        rated = MODEL.rate(teams, ranks=list(range(1, len(teams) + 1)))
        for player, (mu, sigma, n), [after] in zip(game.order, before, rated, strict=True):
            state[player] = (after.mu, after.sigma, n + 1)
            display = conservative(after.mu, after.sigma)
            new.append(
                RatingChange(
                    club_id=club_id,
                    player_id=player,
                    game=GAME,
                    outcome_id=outcome_of.get(game.pk),
                    sequence=sequence,
                    at=game.played_at,
                    mu=after.mu,
                    sigma=after.sigma,
                    display=display,
                    delta=display - conservative(mu, sigma),
                )
            )
        if len(new) >= 50_000:  # a long replay (a rebuild) writes as it goes
            RatingChange.objects.bulk_create(new, batch_size=5000)
            new = []
    RatingChange.objects.bulk_create(new, batch_size=5000)
    touched = touched | {player for game in games for player in game.order}
    PlayerRating.objects.filter(club_id=club_id, game=GAME, player_id__in=touched).delete()
    PlayerRating.objects.bulk_create(
        [
            PlayerRating(
                club_id=club_id,
                player_id=player,
                game=GAME,
                mu=mu,
                sigma=sigma,
                display=conservative(mu, sigma),
                games=n,
                provisional=n < PROVISIONAL_GAMES,
            )
            for player, (mu, sigma, n) in state.items()
            if player in touched
        ],
        batch_size=5000,
    )


# --- The game's name ---------------------------------------------------------------------------


@dataclass
class Standings:
    """Who ``renamed_after`` names, kept up to date game by game: a heap of the qualified
    players by badness (lazily cleaned), so each game costs a few heap operations."""

    min_games: int
    names: dict[int, str]
    tallies: dict[int, Tally] = field(default_factory=dict)
    heap: list = field(default_factory=list)

    def update(self, player: int, t: Tally) -> None:
        self.tallies[player] = t
        if t.games >= self.min_games and t.idiot > 0:
            rate, idiot, place = t.badness()
            heapq.heappush(self.heap, (-rate, -idiot, -place, self.names[player], player, t.games))

    def holder(self) -> int | None:
        while self.heap:
            *_key, player, games = self.heap[0]
            if self.tallies[player].games == games:
                return player
            heapq.heappop(self.heap)  # stale: the player has played since
        return None


def _replay_titles(
    club_id: int,
    scope: int | None,
    before: dict[int, Tally],
    games: list[Played],
    start,
    min_games: int,
    names: dict[int, str],
) -> None:
    titles = SpazzumazzTitle.objects.filter(club_id=club_id, season_id=scope)
    reopened = None  # the stored title in force at ``start``, if any
    if start is None:
        titles.delete()
    else:
        titles.filter(since__gte=start).delete()
        reopened = (
            titles.filter(Q(until__isnull=True) | Q(until__gte=start)).order_by("-since").first()
        )
        if reopened is not None:
            reopened.until = None
    standings = Standings(min_games=min_games, names=names)
    for player, t in before.items():
        standings.update(player, t)
    new: list[SpazzumazzTitle] = []  # written at the end, in one go
    current = reopened

    def hand_over(holder: int | None, at) -> SpazzumazzTitle | None:
        if current is not None:
            current.until = at
        if holder is None:
            return None
        title = SpazzumazzTitle(club_id=club_id, season_id=scope, player_id=holder, since=at)
        new.append(title)
        return title

    holder = standings.holder()
    if (current.player_id if current else None) != holder:  # a rename moved a tie: say so now
        current = hand_over(holder, start)
    for game in games:
        size = len(game.order)
        for place, player in enumerate(game.order, 1):
            t = standings.tallies.get(player)
            t = Tally(**vars(t)) if t is not None else Tally()
            t.add(place, size, game.played_at)
            standings.update(player, t)
        holder = standings.holder()
        if (current.player_id if current else None) != holder:
            current = hand_over(holder, game.played_at)
    if reopened is not None:
        reopened.save(update_fields=["until"])
    SpazzumazzTitle.objects.bulk_create(new, batch_size=5000)


def idiot_min_games(club: Club) -> int:
    return int(house_rules_for(club=club, game=GAME)["idiot_min_games"])


# --- The rebuild -------------------------------------------------------------------------------


@transaction.atomic
def refresh(club_id: int) -> str:
    """Rebuild what is stale in the club's derived rows (see the module's docstring)."""
    club = Club.objects.filter(pk=club_id).first()
    if club is None:
        return "no such club"
    SpazzumazzBoard.objects.bulk_create([SpazzumazzBoard(club_id=club_id)], ignore_conflicts=True)
    board = SpazzumazzBoard.objects.select_for_update().get(club_id=club_id)
    min_games = idiot_min_games(club)
    renamed = board.min_games != min_games  # the house rule changed: every name again
    if not board.stale and not renamed:
        return "up to date"
    if not renamed and _only_later(board):
        named_after = current_title(club_id)
        added = _add_later_games(club_id, board, min_games)
        announce_rename(club, before=named_after)
        board.stale, board.stale_from = False, None
        board.save(update_fields=["stale", "stale_from", "counted_at", "counted_game_id"])
        boards.bump(club_id, "spazzumazz")
        return f"added {added} games"
    start = None if renamed else board.stale_from
    players = _affected(club_id, start)
    games = games_in_force(club_id, players=players)
    if board.stale:
        _rebuild_stats_and_ratings(club_id, start, players, games)
    named_after = current_title(club_id)
    _rebuild_titles(club_id, start, players, games, min_games)
    announce_rename(club, before=named_after)
    board.stale, board.stale_from, board.min_games = False, None, min_games
    board.rebuilt_at = timezone.now()
    board.counted_at, board.counted_game_id = _last_counted(club_id)
    board.save(
        update_fields=[
            "stale",
            "stale_from",
            "min_games",
            "rebuilt_at",
            "counted_at",
            "counted_game_id",
        ]
    )
    boards.bump(club_id, "spazzumazz")
    return "rebuilt from the start" if start is None else f"rebuilt from {start.isoformat()}"


# --- The delta: games after the last one counted ---------------------------------------------


def _only_later(board: SpazzumazzBoard) -> bool:
    """Whether everything pending came after the last game the rows count."""
    return (
        board.counted_at is not None
        and board.stale_from is not None
        and board.stale_from > board.counted_at
    )


def _last_counted(club_id: int) -> tuple[datetime | None, int | None]:
    """The club's last game in force (its time and id): what the rows now count up to."""
    last = (
        SpazzumazzGame.objects.filter(club_id=club_id, places__place__isnull=False)
        .order_by("-played_at", "-pk")
        .values_list("played_at", "pk")
        .first()
    )
    return last if last is not None else (None, None)


def _later_games(board: SpazzumazzBoard) -> list[Played]:
    """The games in force after the last one counted, in the order they were played."""
    places = SpazzumazzPlace.objects.filter(
        game__club_id=board.club_id, place__isnull=False, game__played_at__gte=board.counted_at
    )
    rows = places.order_by("game__played_at", "game_id", "place").values_list(
        "game_id", "game__played_at", "game__season_id", "player_id"
    )
    counted = (board.counted_at, board.counted_game_id)
    return [game for game in _games(rows) if game.key > counted]


def _scoped(queryset, scopes: set):
    """The rows of these scopes (all time is the empty season)."""
    seasons = [scope for scope in scopes if scope is not ALL_TIME]
    return queryset.filter(Q(season__isnull=True) | Q(season_id__in=seasons))


def _add_later_games(club_id: int, board: SpazzumazzBoard, min_games: int) -> int:
    """Add the games after the last one counted to the rows of their players (the delta of
    the module's docstring); the board then counts up to the last of them."""
    games = _later_games(board)
    if not games:
        return 0
    players = {player for game in games for player in game.order}
    scopes = {scope for game in games for scope in _scopes(game)}
    stats_rows = _scoped(
        SpazzumazzStats.objects.filter(club_id=club_id, player_id__in=players), scopes
    )
    stats = {
        (row.season_id, row.player_id): Tally(
            games=row.games,
            idiot=row.idiot,
            place_sum=row.place_sum,
            relative_place_sum=row.relative_place_sum,
            current_streak=row.current_streak,
            longest_streak=row.longest_streak,
            last_played_at=row.last_played_at,
        )
        for row in stats_rows
    }
    pair_rows = _scoped(
        SpazzumazzHeadToHead.objects.filter(
            club_id=club_id, player_id__in=players, opponent_id__in=players
        ),
        scopes,
    ).values_list("season_id", "player_id", "opponent_id", "games", "behind")
    pairs = {(scope, a, b): [n, behind] for scope, a, b, n, behind in pair_rows}
    titles = {scope: _Titles(club_id, scope, min_games) for scope in scopes}
    for game in games:
        stats, pairs = tally([game], stats=stats, pairs=pairs)
        for scope in _scopes(game):
            titles[scope].after(game, stats)
    stats_rows.delete()
    _scoped(
        SpazzumazzHeadToHead.objects.filter(
            club_id=club_id, player_id__in=players, opponent_id__in=players
        ),
        scopes,
    ).delete()
    SpazzumazzStats.objects.bulk_create(_stats_rows(club_id, stats))
    SpazzumazzHeadToHead.objects.bulk_create(_pair_rows(club_id, pairs))
    ratings = PlayerRating.objects.filter(club_id=club_id, game=GAME, player_id__in=players)
    state = {r.player_id: (r.mu, r.sigma, r.games) for r in ratings}
    _rate(club_id, games, state, players)
    for kept in titles.values():
        kept.save()
    board.counted_at, board.counted_game_id = games[-1].key
    return len(games)


def _worst_stored(
    club_id: int, scope: int | None, min_games: int, *, exclude
) -> list[tuple[int, Tally, str]]:
    """The qualified players of ``scope`` but ``exclude`` whose stored rows are the worst by
    ``Tally.badness`` (all of them, if several tie on it: the name and the id then decide,
    in Python, as :class:`Standings` does), each with their tally and name: two queries at
    most, however many players the club has. The database orders by the idiot rate and the
    average place as doubles, which keep these fractions' order exactly (no two of them
    differ by less than one over the product of two players' games). Two rows tie only with
    the same games, times idiot and places: the same rate and the same times idiot make the
    same games."""
    rows = SpazzumazzStats.objects.filter(
        club_id=club_id, season_id=scope, games__gte=max(min_games, 1), idiot__gt=0
    ).exclude(player_id__in=list(exclude))
    fields = ("player_id", "games", "idiot", "place_sum", "player__display_name")
    found = list(
        rows.annotate(place=Cast("place_sum", FloatField()) / F("games"))
        .order_by("-idiot_rate", "-idiot", "-place")
        .values_list(*fields)[:2]
    )
    if len(found) == 2:
        first, second = found
        if first[1:4] == second[1:4]:  # a tie: every player it holds
            games, idiot, place_sum = first[1:4]
            found = list(
                rows.filter(games=games, idiot=idiot, place_sum=place_sum).values_list(*fields)
            )
        else:
            found = [first]
    return [
        (player, Tally(games=games, idiot=idiot, place_sum=place_sum), name)
        for player, games, idiot, place_sum, name in found
    ]


class _Titles:
    """The game's name in one scope, followed game by game: what :func:`_replay_titles`
    does from the first game, done for the games after the last one counted, at the cost of
    their players. The holder after a game is the worst (``Tally.badness``, then the name,
    then the id, as :class:`Standings` orders them) of the players whose tallies the games
    changed, held here, and of everyone else, whose stored rows the games did not change:
    the worst of those is asked of the database (:func:`_worst_stored`), not read whole."""

    def __init__(self, club_id: int, scope: int | None, min_games: int) -> None:
        self.club_id, self.scope, self.min_games = club_id, scope, min_games
        self.tallies: dict[int, Tally] = {}  # the players the games changed, as they are now
        self.names: dict[int, str] = {}
        self.current = SpazzumazzTitle.objects.filter(
            club_id=club_id, season_id=scope, until__isnull=True
        ).first()
        self.closed: list[SpazzumazzTitle] = []
        self.opened: list[SpazzumazzTitle] = []

    def _key(self, player: int, t: Tally) -> tuple:
        rate, idiot, place = t.badness()
        return (-rate, -idiot, -place, self.names[player], player)

    def _qualified(self, t: Tally) -> bool:
        return t.games >= self.min_games and t.idiot > 0

    def after(self, game: Played, stats: dict) -> None:
        """The holder after ``game`` (its players' tallies now in ``stats``)."""
        missing = [p for p in game.order if p not in self.names]
        if missing:
            names = Player.objects.filter(pk__in=missing).values_list("pk", "display_name")
            self.names.update(names)
        for player in game.order:
            t = stats[(self.scope, player)]
            self.tallies[player] = Tally(games=t.games, idiot=t.idiot, place_sum=t.place_sum)
        candidates = [
            self._key(player, t) for player, t in self.tallies.items() if self._qualified(t)
        ]
        for player, t, name in _worst_stored(
            self.club_id, self.scope, self.min_games, exclude=self.tallies
        ):
            self.names.setdefault(player, name)
            candidates.append(self._key(player, t))
        holder = min(candidates)[-1] if candidates else None
        if (self.current.player_id if self.current else None) == holder:
            return
        if self.current is not None:
            self.current.until = game.played_at
            if self.current.pk is not None:
                self.closed.append(self.current)
        self.current = None
        if holder is not None:
            self.current = SpazzumazzTitle(
                club_id=self.club_id, season_id=self.scope, player_id=holder, since=game.played_at
            )
            self.opened.append(self.current)

    def save(self) -> None:
        SpazzumazzTitle.objects.bulk_update(self.closed, ["until"])
        SpazzumazzTitle.objects.bulk_create(self.opened)


def _affected(club_id: int, start) -> set[int] | None:
    """The players whose statistics games from ``start`` on can change (None: everyone)."""
    if start is None:
        return None
    return set(
        SpazzumazzPlace.objects.filter(game__club_id=club_id, game__played_at__gte=start)
        .values_list("player_id", flat=True)
        .distinct()
    )


def _rebuild_stats_and_ratings(club_id: int, start, players, games: list[Played]) -> None:
    stats, pairs = tally(games, players)
    if players is None:
        SpazzumazzStats.objects.filter(club_id=club_id).delete()
        SpazzumazzHeadToHead.objects.filter(club_id=club_id).delete()
    else:
        SpazzumazzStats.objects.filter(club_id=club_id, player_id__in=players).delete()
        SpazzumazzHeadToHead.objects.filter(
            Q(player_id__in=players) | Q(opponent_id__in=players), club_id=club_id
        ).delete()
    SpazzumazzStats.objects.bulk_create(_stats_rows(club_id, stats), batch_size=5000)
    SpazzumazzHeadToHead.objects.bulk_create(_pair_rows(club_id, pairs), batch_size=5000)
    later = games if start is None else [g for g in games if g.played_at >= start]
    _replay_ratings(club_id, later, start, players)


def _rebuild_titles(
    club_id: int, start, players: set[int] | None, games: list[Played], min_games: int
) -> None:
    """Replay the game's name from ``start`` in every scope it can have changed: all time
    and the seasons of the games from ``start`` on (every season from the first game)."""
    names = dict(Player.objects.filter(club_id=club_id).values_list("pk", "display_name"))
    seasons = SpazzumazzGame.objects.filter(club_id=club_id, season__isnull=False)
    if start is None:
        SpazzumazzTitle.objects.filter(club_id=club_id).delete()
    else:
        seasons = seasons.filter(played_at__gte=start)
    scopes = {ALL_TIME} | set(seasons.values_list("season_id", flat=True).distinct())
    earlier = [g for g in games if start is not None and g.played_at < start]
    later = [g for g in games if start is None or g.played_at >= start]
    mine, _pairs = tally(earlier, players)
    stored = SpazzumazzStats.objects.filter(club_id=club_id, games__gt=0).values_list(
        "season_id", "player_id", "games", "idiot", "place_sum"
    )
    if players is not None:
        stored = stored.exclude(player_id__in=players)
    else:
        stored = stored.none()
    before: dict[int | None, dict[int, Tally]] = defaultdict(dict)
    for (scope, player), t in mine.items():
        before[scope][player] = t
    for scope, player, n, idiot, place_sum in stored:
        if scope in scopes or scope is None:
            before[scope][player] = Tally(games=n, idiot=idiot, place_sum=place_sum)
    for scope in sorted(scopes, key=lambda s: (s is not None, s or 0)):
        in_scope = [g for g in later if scope is None or g.season_id == scope]
        _replay_titles(club_id, scope, before[scope], in_scope, start, min_games, names)


def rebuild_club(club_id: int) -> str:
    """Everything from scratch (``manage.py recompute_stats``)."""
    with transaction.atomic():
        if not Club.objects.filter(pk=club_id).exists():
            return "no such club"
        mark_stale(club_id=club_id, since=None)
        return refresh(club_id)
