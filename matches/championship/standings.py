"""The season's standings, kept by deltas: an event's result changes its own rows.

**How they follow the results.** Every step of the result cycle queues its after-step task
through the outbox (``results.inbox.after_step``), which hands the subject to
``tasks.follow``: the event it belongs to (a Sputo match: its tournament; a hand or a
Spazz'u'mazz game: the club night of its game) is read again.
:func:`refresh_event`, under a lock on the season's rules, reads that event's places again
(``events``: the event's own rows), replaces its :class:`SeasonPlace` rows, and writes the
standing line of each player it had or has (their places in the season, a few dozen at
most): the cost of the event's players, never of the club's history, nor of the season's
other players. A correction or a void is the same delta: the event is read again. A change
of the rules (a new version) recomputes the season under it (:func:`rebuild_season`, a
task): the replay of the season's events, which is also ``manage.py recompute_stats`` and
what ``tests/test_championship.py`` compares the deltas with.

**Points.** A result's points are those of its place in the rules' list (none past its
end), plus ``participation``. Players who share a place each get that place's points
(two semi-final losers both earn the 3rd's). With ``best_of`` only a player's best N
results count (the highest points; the earlier first between equals): the others are kept,
shown struck through.

**Ranking** (:func:`table`, at read time over the season's lines): points, then more wins
(events won), then better best results (the counted results' points, the best first, one
by one), then head to head (among the tied players, how often each placed ahead of the
others at the events they shared). Players still level share the rank. Below
``min_events`` a line is listed unranked; without ``guests`` guests are left out.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date

from django.db import transaction
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

import plumbing.public_pages as public_pages
from clubs.models import Player, Season
from matches import boards
from matches.championship import events
from matches.championship.models import (
    Championship,
    EventKind,
    SeasonEvent,
    SeasonPlace,
    SeasonStanding,
)

AREA = "championship"  # the club's pages that show the standings (``plumbing.public_pages``)


def rules_in_force(season: Season) -> Championship | None:
    return Championship.objects.filter(season=season).order_by("-version").first()


def _locked(season: Season) -> Championship | None:
    """The season's rules in force, locked: one refresh of a season at a time."""
    return (
        Championship.objects.select_for_update().filter(season=season).order_by("-version").first()
    )


def points_for(rules: dict, kind: str, place: int) -> int:
    setting = rules["events"][kind]
    table = setting["points"]
    return (table[place - 1] if place <= len(table) else 0) + setting["participation"]


# --- One event's places ---------------------------------------------------------------------


def _places_of(season: Season, rules: dict, kind: str, key) -> list[events.Placed]:
    setting = rules["events"].get(kind)
    if setting is None:
        return []
    if kind == EventKind.SPUTO:
        return events.tournament_places(key)
    return events.night_places(season.club_id, kind, key, min_games=setting["min_games"])


def _write_event(season: Season, rules: dict, kind: str, key) -> tuple[int | None, set[int]]:
    """The event's places written again: the event's id (None: it gave no places, and is
    gone) and the players it had or has."""
    if kind == EventKind.SPUTO:
        where = {"tournament": key}
        day = events.tournament_day(key)
    else:
        where = {"kind": kind, "day": key, "tournament": None}
        day = key
    event = SeasonEvent.objects.filter(season=season, **where).first()
    before = set(event.places.values_list("player_id", flat=True)) if event else set()
    placed = _places_of(season, rules, kind, key)
    if not placed:
        if event is not None:
            event.delete()
        return None, before
    if event is None:
        event = SeasonEvent.objects.create(
            club_id=season.club_id, season=season, **{**where, "kind": kind, "day": day}
        )
    elif event.day != day:
        event.day = day
        event.save(update_fields=["day"])
    event.places.all().delete()
    SeasonPlace.objects.bulk_create(
        SeasonPlace(event=event, season=season, player_id=p.player, place=p.place, games=p.games)
        for p in placed
    )
    return event.pk, before | {p.player for p in placed}


# --- A player's line --------------------------------------------------------------------------


def line_of(rules: dict, places: list[SeasonPlace]) -> dict:
    """A player's line from their places in the season (``event`` selected)."""
    results = [
        {
            "event": p.event.kind,
            "id": p.event.public_id,
            "date": p.event.day.isoformat(),
            "place": p.place,
            "points": points_for(rules, p.event.kind, p.place),
            "counted": True,
        }
        for p in sorted(places, key=lambda p: (p.event.day, p.event.kind, p.event.pk))
    ]
    best_of = rules["best_of"]
    if best_of is not None and len(results) > best_of:
        order = sorted(range(len(results)), key=lambda n: (-results[n]["points"], n))
        for n in order[best_of:]:
            results[n]["counted"] = False
    counted = [r["points"] for r in results if r["counted"]]
    return {
        "points": sum(counted),
        "events": len(results),
        "wins": sum(1 for r in results if r["place"] == 1),
        "best": sorted(counted, reverse=True),
        "results": results,
    }


def write_lines(season: Season, championship: Championship, players: set[int]) -> None:
    """The standing lines of ``players`` written again from their places in the season."""
    if not players:
        return
    places: dict[int, list[SeasonPlace]] = defaultdict(list)
    for place in SeasonPlace.objects.filter(season=season, player_id__in=players).select_related(
        "event"
    ):
        places[place.player_id].append(place)
    SeasonStanding.objects.filter(season=season, player_id__in=players).delete()
    SeasonStanding.objects.bulk_create(
        SeasonStanding(
            club_id=season.club_id,
            season=season,
            player_id=player,
            version=championship.version,
            **line_of(championship.rules, places[player]),
        )
        for player in sorted(places)
    )


def refresh_event(season: Season, kind: str, key) -> set[int]:
    """The delta of one event (a tournament, or a night's day) of ``season``: its places and
    its players' lines; the players touched. Safe to run twice and in any order."""
    with transaction.atomic():
        championship = _locked(season)
        if championship is None:
            return set()
        _event, touched = _write_event(season, championship.rules, kind, key)
        write_lines(season, championship, touched)
        public_pages.changed(season.club_id, AREA)
    return touched


def _season_events(season: Season, rules: dict) -> list[tuple[str, object]]:
    """Every event of the season the rules count, from the results (the replay)."""
    found: list[tuple[str, object]] = []
    if EventKind.SPUTO in rules["events"]:
        found += [(EventKind.SPUTO, t) for t in events.tournaments_of_season(season)]
    for kind in events.GAME_OF_NIGHT:
        if kind in rules["events"]:
            found += [(kind, day) for day in events.nights_of_season(season, kind)]
    return found


def rebuild_season(season: Season) -> int:
    """The season's standings from scratch under its rules in force: every event of the
    season read again (the replay after a change of rules, and the proof of the deltas).
    An event still there keeps its id. How many lines it wrote."""
    with transaction.atomic():
        championship = _locked(season)
        SeasonStanding.objects.filter(season=season).delete()
        if championship is None:
            SeasonEvent.objects.filter(season=season).delete()
            return 0
        kept: set[int] = set()
        for kind, key in _season_events(season, championship.rules):
            event, _players = _write_event(season, championship.rules, kind, key)
            if event is not None:
                kept.add(event)
        SeasonEvent.objects.filter(season=season).exclude(pk__in=kept).delete()
        players = set(SeasonPlace.objects.filter(season=season).values_list("player_id", flat=True))
        write_lines(season, championship, players)
        public_pages.changed(season.club_id, AREA)
    return len(players)


def rebuild_club(club_id: int) -> str:
    """``manage.py recompute_stats``: every season of the club with a championship."""
    seasons = Season.objects.filter(club_id=club_id, championships__isnull=False).distinct()
    lines = sum(rebuild_season(season) for season in seasons)
    return f"{lines} championship lines"


# --- The table ---------------------------------------------------------------------------------


@dataclass
class Row:
    player: Player
    standing: SeasonStanding
    rank: int | None = None
    why: str = ""
    h2h: int = 0  # head-to-head score among the players tied with it
    beaten: dict = field(default_factory=dict)  # tied player id -> times placed ahead

    @property
    def results(self) -> list[dict]:
        return self.standing.results


@dataclass
class Table:
    season: Season
    championship: Championship | None
    rows: list[Row]  # ranked first, then the unranked (below ``min_events``)
    version: int | None  # the version the lines were computed under

    @property
    def pending(self) -> bool:
        """A newer version of the rules is being applied."""
        return self.championship is not None and self.version not in (
            None,
            self.championship.version,
        )


def _padded(best: list[int], length: int) -> tuple:
    return tuple(-p for p in best) + (0,) * (length - len(best))


def _head_to_head(season: Season, group: list[Row]) -> None:
    """Each tied row's times placed ahead of each other tied row at shared events."""
    ids = {row.player.pk for row in group}
    at: dict[int, dict[int, int]] = defaultdict(dict)
    for event_id, player, place in SeasonPlace.objects.filter(
        season=season, player_id__in=ids
    ).values_list("event_id", "player_id", "place"):
        at[event_id][player] = place
    for row in group:
        row.beaten = {
            other: sum(
                1
                for places in at.values()
                if row.player.pk in places
                and other in places
                and places[row.player.pk] < places[other]
            )
            for other in ids - {row.player.pk}
        }
        row.h2h = sum(row.beaten.values())


def _key(row: Row, length: int, *, h2h: bool = True) -> tuple:
    s = row.standing
    return (-s.points, -s.wins, _padded(s.best, length)) + ((-row.h2h,) if h2h else ())


def _why(row: Row, other: Row, length: int) -> str:
    """Why ``row`` stands where it does beside ``other``, tied with it on points."""
    a, b = row.standing, other.standing
    name = other.player.display_name
    if a.wins != b.wins:
        return (
            _("Level on points with %(name)s: more wins (%(a)s to %(b)s).")
            if a.wins > b.wins
            else _("Level on points with %(name)s: fewer wins (%(a)s to %(b)s).")
        ) % {"name": name, "a": a.wins, "b": b.wins}
    mine, theirs = _padded(a.best, length), _padded(b.best, length)
    if mine != theirs:
        n = next(i for i in range(length) if mine[i] != theirs[i])
        return (
            _("Level on points and wins with %(name)s: better best results (%(a)s to %(b)s).")
            if mine < theirs
            else _("Level on points and wins with %(name)s: worse best results (%(a)s to %(b)s).")
        ) % {"name": name, "a": -mine[n], "b": -theirs[n]}
    ahead, behind = row.beaten.get(other.player.pk, 0), other.beaten.get(row.player.pk, 0)
    if row.h2h != other.h2h:
        return (
            _("Level with %(name)s but for head to head: ahead (%(a)s–%(b)s).")
            if row.h2h > other.h2h
            else _("Level with %(name)s but for head to head: behind (%(a)s–%(b)s).")
        ) % {"name": name, "a": ahead, "b": behind}
    return _(
        "Level with %(name)s on points, wins, best results and head to head: the place is shared."
    ) % {"name": name}


def _rank(season: Season, rows: list[Row]) -> None:
    length = max((len(r.standing.best) for r in rows), default=0)
    rows.sort(key=lambda r: (_key(r, length, h2h=False), r.player.display_name.lower()))
    by_points: dict[int, list[Row]] = defaultdict(list)
    for row in rows:
        by_points[row.standing.points].append(row)
    for group in by_points.values():
        tied: dict[tuple, list[Row]] = defaultdict(list)
        for row in group:
            tied[_key(row, length, h2h=False)].append(row)
        for level in tied.values():
            if len(level) > 1:
                _head_to_head(season, level)
    rows.sort(key=lambda r: (_key(r, length), r.player.display_name.lower()))
    previous = None
    for n, row in enumerate(rows, 1):
        key = _key(row, length)
        if key != previous:
            row.rank, previous = n, key
        else:
            row.rank = rows[n - 2].rank
    for n, row in enumerate(rows):
        level = [
            other
            for other in (rows[n - 1] if n else None, rows[n + 1] if n + 1 < len(rows) else None)
            if other is not None and other.standing.points == row.standing.points
        ]
        if level:
            # Beside the neighbour it was closest to: the one only a later criterion parts.
            other = max(level, key=lambda o: _depth(row, o, length))
            row.why = _why(row, other, length)
        else:
            row.why = _("Placed on points alone.")


def _depth(row: Row, other: Row, length: int) -> int:
    """How far two rows level on points go together: 0 parted by wins, 1 by best results,
    2 by head to head, 3 not at all."""
    a, b = row.standing, other.standing
    if a.wins != b.wins:
        return 0
    if _padded(a.best, length) != _padded(b.best, length):
        return 1
    return 2 if row.h2h != other.h2h else 3


def table(season: Season) -> Table:
    """The season's standings, ranked (two queries; a third for each group still tied on
    points, wins and best results, of their own places)."""
    championship = rules_in_force(season)
    standings = list(SeasonStanding.objects.filter(season=season).select_related("player"))
    version = standings[0].version if standings else None
    if championship is None:
        return Table(season, None, [], None)
    rules = championship.rules
    rows = [
        Row(player=s.player, standing=s)
        for s in standings
        if rules["guests"] or not s.player.is_guest
    ]
    ranked = [r for r in rows if r.standing.events >= rules["min_events"]]
    unranked = [r for r in rows if r.standing.events < rules["min_events"]]
    _rank(season, ranked)
    unranked.sort(key=lambda r: (-r.standing.events, r.player.display_name.lower()))
    for row in unranked:
        row.why = ngettext(
            "Not ranked yet: %(n)s event of the %(least)s needed.",
            "Not ranked yet: %(n)s events of the %(least)s needed.",
            row.standing.events,
        ) % {"n": row.standing.events, "least": rules["min_events"]}
    return Table(season, championship, ranked + unranked, version)


def event_of(subject) -> tuple[str, object] | None:
    """The championship event a result cycle's subject belongs to: ``(kind, key)``."""
    label = subject._meta.label_lower
    if label == "matches.tournamentmatch":
        return EventKind.SPUTO, subject.tournament_id
    game = {"matches.hand": "singapore", "matches.spazzumazzgame": "spazzumazz"}.get(label)
    if game is None:
        return None
    return events.NIGHT_OF_GAME[game], boards.night_of(subject.played_at)


def season_of_event(club_id: int, kind: str, key) -> tuple[Season | None, object]:
    """The season an event belongs to, and the event's key as :func:`refresh_event` takes it
    (the tournament itself for a tournament's id)."""
    if kind == EventKind.SPUTO:
        tournament = events.Tournament.objects.filter(pk=key, club_id=club_id).first()
        if tournament is None:
            return None, None
        return events.season_of_tournament(tournament), tournament
    day = key if isinstance(key, date) else date.fromisoformat(key)
    return Season.objects.filter(club_id=club_id).holding(day), day
