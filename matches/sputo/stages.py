"""The stages of standings of a Sputo tournament: a round robin, the groups of "groups then
a knockout", and a Swiss. Their matches are made here (at the draw, then a Swiss round at a
time), their results written here when the result cycle puts them in force, and the
groups' knockout made from their standings.

A knockout's results are ``matches.sputo.bracket_changes``' business; a stage's matches feed
no other match, so a result changes that match, the standings (``matches.sputo.tables``,
read from the matches) and, at the end, the tournament's status and places:

- a round robin finishes when its every match is decided; a Swiss when its last round's
  is; a groups' stage never finishes the tournament: its knockout does;
- a correction of a stage's match changes the standings as they are read; the places of a
  finished tournament are written again. When the groups' knockout is made already, the
  preview says who would go through instead (``qualifiers``): the knockout stays as it is
  and the admin decides (a withdrawal, a walkover, a new tournament). A corrected Swiss
  round changes the pairings of the rounds not paired yet, which read the results then.
"""

from __future__ import annotations

from dataclasses import asdict
from datetime import timedelta

from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from clubs.access import access_club
from clubs.models import Player, Role
from matches.results import steps
from matches.results.models import OPEN, Outcome
from matches.sputo import bracket, formats, knockout, places, seating, tables
from matches.sputo.bracket_changes import (
    KNOCKOUT_KINDS,
    boards_changed,
    build_knockout,
    queue_ratings,
)
from matches.sputo.formats import groups as groups_format
from matches.sputo.formats import round_robin, swiss
from matches.sputo.models import (
    Format,
    RoundClock,
    Tournament,
    TournamentMatch,
    TournamentStatus,
)
from matches.sputo.webhooks import announce_finished, announce_ready
from plumbing.errors import Conflict

AREA = "sputo"


def lots_of(tournament: Tournament) -> dict[int, int]:
    if not tournament.has_table:
        return {}
    return tables.lots(tournament, tables.seeded_players(tournament))


def _match(tournament: Tournament, kind: str, round_: int, position: int, a, b, **more):
    return TournamentMatch(
        club_id=tournament.club_id,
        tournament=tournament,
        kind=kind,
        round=round_,
        position=position,
        player_a_id=a,
        player_b_id=b,
        best_of=tournament.best_of,
        **more,
    )


def _round_robin(tournament: Tournament, players: list[int], *, kind: str, group: str = ""):
    """A (group's) round robin's matches; the rests are no match. Positions from 0."""
    made = []
    for number, pairs in enumerate(round_robin.rounds(players, legs=tournament.legs), 1):
        played = [(a, b) for a, b in pairs if a is not None and b is not None]
        made.extend(
            _match(tournament, kind, number, n, a, b, group=group)
            for n, (a, b) in enumerate(played)
        )
    return made


def _swiss_round(tournament: Tournament, number: int, whys: list[swiss.Why], *, now):
    made = []
    for n, why in enumerate(whys):
        bye = why.b is None
        made.append(
            _match(
                tournament,
                formats.SWISS,
                number,
                n,
                why.a,
                why.b,
                pairing=asdict(why),
                result=bracket.BYE if bye else "",
                winner_id=why.a if bye else None,
                decided_at=now if bye else None,
            )
        )
    return made


def _forbidden(tournament: Tournament) -> list[tuple[int, int]]:
    return [(a, b) for a, b in tournament.forbidden_pairs or []]


def draw_stage(tournament: Tournament, players: list[int], *, now) -> list[TournamentMatch]:
    """The first matches of a stage of standings, ``players`` in seed order: every match of a
    round robin or of the groups, or a Swiss's first round. ``tournament.rounds`` set (not
    saved): the round robin's rounds, the Swiss's, the groups' knockout's (0 until made)."""
    if tournament.format == Format.ROUND_ROBIN:
        made = _round_robin(tournament, players, kind=formats.ROUND_ROBIN)
        tournament.rounds = max((m.round for m in made), default=0)
    elif tournament.format == Format.GROUPS_THEN_KNOCKOUT:
        made = _groups(tournament, players)
        tournament.rounds = 0
    else:
        try:
            whys = swiss.pair(
                players, [], total_rounds=tournament.swiss_rounds, forbidden=_forbidden(tournament)
            )
        except swiss.NoPairing as error:
            raise Conflict(_("No pairing keeps the forbidden pairings apart.")) from error
        made = _swiss_round(tournament, 1, whys, now=now)
        tournament.rounds = tournament.swiss_rounds
    TournamentMatch.objects.bulk_create(made)
    return made


def _groups(tournament: Tournament, players: list[int]) -> list[TournamentMatch]:
    count, advance = tournament.groups, tournament.advance
    if len(players) < 2 * count:
        raise Conflict(
            _("%(groups)s groups need at least %(players)s players; %(n)s are here.")
            % {"groups": count, "players": 2 * count, "n": len(players)}
        )
    drawn = groups_format.snake(players, count)
    smallest = min(len(g) for g in drawn)
    if advance > smallest:
        raise Conflict(
            _(
                "%(advance)s go through from each group, but the smallest group has "
                "%(smallest)s players: change the groups or the number going through."
            )
            % {"advance": advance, "smallest": smallest}
        )
    if count * advance < 2:
        raise Conflict(_("At least two players must go on to the knockout."))
    made: list[TournamentMatch] = []
    for index, members in enumerate(drawn):
        made.extend(
            _round_robin(tournament, members, kind=formats.GROUP, group=groups_format.name(index))
        )
    # Positions count across the groups within a round: one numbering per round.
    by_round: dict[int, int] = {}
    for m in made:
        m.position = by_round.get(m.round, 0)
        by_round[m.round] = m.position + 1
    return made


# --- Results -------------------------------------------------------------------------------


def _complete(tournament: Tournament, matches: list[TournamentMatch]) -> bool:
    """Whether the stage's results finish the tournament (not the groups': the knockout's)."""
    if tournament.format == Format.GROUPS_THEN_KNOCKOUT:
        return False
    if not matches or any(not m.result for m in matches):
        return False
    if tournament.format == Format.SWISS:
        return max(m.round for m in matches) >= tournament.swiss_rounds
    return True


def _table(tournament, matches) -> list[list[int]]:
    return [[row.player for row in group.rows] for group in tables.groups_of(tournament, matches)]


def _final_places(tournament: Tournament, matches) -> places.Standings:
    if tournament.format == Format.GROUPS_THEN_KNOCKOUT:
        return (
            places.standings_of(tournament)
            if tournament.status == TournamentStatus.FINISHED
            else []
        )
    (group,) = tables.groups_of(tournament, matches)
    return [(row.rank, row.player, 0) for row in group.rows]


def _with(matches: list[TournamentMatch], subject: TournamentMatch, result: str, winner):
    """The stage's matches with ``subject`` decided as given (copies: nothing written)."""
    found = []
    for m in matches:
        if m.pk == subject.pk:
            m = TournamentMatch(
                pk=m.pk,
                kind=m.kind,
                round=m.round,
                position=m.position,
                group=m.group,
                player_a_id=m.player_a_id,
                player_b_id=m.player_b_id,
                result=result,
                winner_id=winner,
            )
        found.append(m)
    return found


def apply_result(match: TournamentMatch, payload: dict | None, *, by, previous=None, at=None):
    """Write a stage match's result (None: no result any more), under the tournament's lock
    in the step's transaction; the tournament finished, or running again, with its places;
    the ratings and the boards follow once this commits."""
    tournament = match.tournament
    now = at or timezone.now()
    match.result = payload["result"] if payload else ""
    match.winner_id = payload.get("winner") if payload else None
    if match.result and match.decided_at is None:
        match.decided_at = now
    elif not match.result:
        match.decided_at = None
    match.needs_resolution = False
    match.save(update_fields=["result", "winner", "decided_at", "needs_resolution"])
    matches = tables.stage_matches(tournament)
    complete = _complete(tournament, matches)
    running, finished = TournamentStatus.RUNNING, TournamentStatus.FINISHED
    if tournament.status == running and complete:
        tournament.status, tournament.finished_at = finished, now
        tournament.save(update_fields=["status", "finished_at"])
        standings = _final_places(tournament, matches)
        places.write(tournament, standings)
        announce_finished(tournament, standings)
    elif tournament.status == finished and not complete and not _knockout_made(tournament):
        tournament.status, tournament.finished_at = running, None
        tournament.save(update_fields=["status", "finished_at"])
        places.write(tournament, [])
    elif tournament.status == finished:
        places.write(tournament, _final_places(tournament, matches))  # a correction
    if tournament.tables:
        seating.assign(match.club_id)  # a table freed
    queue_ratings(match.club_id, since=match.decided_at if previous is None else None)
    boards_changed(match.club_id)


def _knockout_made(tournament: Tournament) -> bool:
    return tournament.matches.filter(kind__in=KNOCKOUT_KINDS).exists()


def preview_result(match: TournamentMatch, payload: dict | None) -> dict:
    """What putting ``payload`` in force on a stage match would change, in the shape of a
    knockout's preview (``bracket_changes.Plan.as_dict``): the match itself, the standings
    before and after, and (the groups' knockout made already) who would go through."""
    tournament = match.tournament
    matches = tables.stage_matches(tournament)
    after = (
        {"result": payload["result"], "winner": payload.get("winner")}
        if payload
        else {
            "result": "",
            "winner": None,
        }
    )
    changed = _with(matches, match, after["result"], after["winner"])
    before_table, after_table = _table(tournament, matches), _table(tournament, changed)
    flat_before = [[n, p, 0] for group in before_table for n, p in enumerate(group, 1)]
    flat_after = [[n, p, 0] for group in after_table for n, p in enumerate(group, 1)]
    complete = (_complete(tournament, matches), _complete(tournament, changed))
    status = None
    if complete[0] != complete[1] and tournament.status in (
        TournamentStatus.RUNNING,
        TournamentStatus.FINISHED,
    ):
        status = {
            "before": tournament.status,
            "after": TournamentStatus.FINISHED if complete[1] else TournamentStatus.RUNNING,
        }
    qualifiers = None
    if tournament.format == Format.GROUPS_THEN_KNOCKOUT and _knockout_made(tournament):
        cut = tournament.advance
        qualifiers = {
            "before": sorted(p for g in before_table for p in g[:cut]),
            "after": sorted(p for g in after_table for p in g[:cut]),
        }
    ids = {p for g in before_table for p in g}
    names = dict(Player.objects.filter(pk__in=ids).values_list("pk", "display_name"))
    state = {"a": match.player_a_id, "b": match.player_b_id}
    return {
        "match": match.pk,
        "result": {"before": {"result": match.result, "winner": match.winner_id}, "after": after},
        "changes": [],
        "matches": [
            {
                "match": match.pk,
                "round": match.round,
                "kind": match.kind,
                "position": match.position,
                "round_label": match.round_label,
                "before": {**state, "result": match.result, "winner": match.winner_id},
                "after": {**state, **after},
            }
        ],
        "rounds": [],
        "set_aside": [],
        "reports_set_aside": [],
        "awarded": [],
        "ratings_undone": [],
        "status": status,
        "champion": {
            "before": flat_before[0][1] if complete[0] and flat_before else None,
            "after": flat_after[0][1] if complete[1] and flat_after else None,
        },
        "standings": {"before": flat_before, "after": flat_after},
        "qualifiers": qualifiers,
        "ratings_from": match.pk,
        "names": names,
    }


# --- The next stage, the next round ---------------------------------------------------------


def _locked(tournament: Tournament) -> Tournament:
    return Tournament.objects.select_for_update().select_related("club").get(pk=tournament.pk)


def _undecided(matches: list[TournamentMatch]) -> None:
    """A ``Conflict`` while any of ``matches`` waits for a result (or an admin)."""
    left = [m for m in matches if not m.result or m.needs_resolution]
    if left:
        raise Conflict(
            ngettext(
                "%(n)s match is still to be decided.",
                "%(n)s matches are still to be decided.",
                len(left),
            )
            % {"n": len(left)}
        )
    waiting = Outcome.objects.filter(
        content_type=ContentType.objects.get_for_model(TournamentMatch),
        object_id__in=[m.pk for m in matches],
        status__in=OPEN,
    ).count()
    if waiting:
        raise Conflict(
            ngettext(
                "%(n)s result waits for confirmation or a decision.",
                "%(n)s results wait for confirmation or a decision.",
                waiting,
            )
            % {"n": waiting}
        )


def _running(tournament: Tournament, format_: str) -> None:
    if tournament.format != format_:
        raise Conflict(
            _("This is a %(format)s tournament.") % {"format": tournament.get_format_display()}
        )
    if tournament.status != TournamentStatus.RUNNING:
        raise Conflict(_("This tournament is not running."))


def qualifiers(tournament: Tournament) -> list[int]:
    """Who goes through from the groups, in the knockout's seed order (``groups.crossed``):
    the firsts, then the seconds..., each place's best first (points, games, cards)."""
    found = tables.groups_of(tournament)
    tiers = []
    for place in range(tournament.advance):
        tier = [(group.rows[place], group.name) for group in found if len(group.rows) > place]
        tier.sort(
            key=lambda item: (
                -item[0].points,
                -(item[0].games_for - item[0].games_against),
                -item[0].games_for,
                -item[0].cards,
                item[0].lot,
            )
        )
        tiers.append([(row.player, name) for row, name in tier])
    return groups_format.crossed(tiers)


@transaction.atomic
def make_knockout(*, tournament: Tournament, by) -> Tournament:
    """The knockout of "groups then a knockout" (an admin), once every group match is
    decided: the players going through, crossed and seeded from the group standings, in a
    single elimination made as a draw makes one. Before that, or twice: a ``Conflict``."""
    access_club(by, tournament.club, at_least=Role.ADMIN)
    tournament = _locked(tournament)
    _running(tournament, Format.GROUPS_THEN_KNOCKOUT)
    if _knockout_made(tournament):
        raise Conflict(_("The knockout stage is made already."))
    _undecided(tables.stage_matches(tournament))
    seeds = qualifiers(tournament)
    now = timezone.now()
    matches = build_knockout(tournament, dict(enumerate(seeds, 1)), now=now)
    tournament.save(update_fields=["rounds"])
    if tournament.tables:
        seating.assign(tournament.club_id)
    boards_changed(tournament.club_id)
    announce_ready(tournament, matches)
    steps.audit(tournament, action="next_stage", by=by, data={"qualifiers": seeds}, areas=(AREA,))
    return tournament


def played_rounds(matches: list[TournamentMatch]) -> list[list[swiss.Played]]:
    """A Swiss's decided rounds as the pairing engine reads them."""
    rounds: dict[int, list[swiss.Played]] = {}
    for m in matches:
        rounds.setdefault(m.round, []).append((m.player_a_id, m.player_b_id, m.winner_id))
    return [rounds[n] for n in sorted(rounds)]


@transaction.atomic
def next_round(*, tournament: Tournament, by) -> list[TournamentMatch]:
    """Pair a Swiss's next round (an admin) once the last one is decided, from the results
    in force now; after the last round, or before the last is decided: a ``Conflict``."""
    access_club(by, tournament.club, at_least=Role.ADMIN)
    tournament = _locked(tournament)
    _running(tournament, Format.SWISS)
    matches = tables.stage_matches(tournament)
    number = max((m.round for m in matches), default=0)
    if number >= tournament.swiss_rounds:
        raise Conflict(_("All %(n)s rounds are paired.") % {"n": tournament.swiss_rounds})
    _undecided(matches)
    players = tables.seeded_players(tournament)
    try:
        whys = swiss.pair(
            players,
            played_rounds(matches),
            total_rounds=tournament.swiss_rounds,
            forbidden=_forbidden(tournament),
        )
    except swiss.NoPairing as error:
        raise Conflict(_("No pairing keeps the forbidden pairings apart.")) from error
    now = timezone.now()
    made = _swiss_round(tournament, number + 1, whys, now=now)
    TournamentMatch.objects.bulk_create(made)
    if tournament.tables:
        seating.assign(tournament.club_id)
    boards_changed(tournament.club_id)
    announce_ready(tournament, made)
    steps.audit(tournament, action="next_round", by=by, data={"round": number + 1}, areas=(AREA,))
    return made


# --- The round clock -----------------------------------------------------------------------


def clock_kind(tournament: Tournament) -> str:
    """The kind of round a clock counts when none is named: the stage's while it runs, the
    knockout's after (a double elimination's winners' rounds)."""
    if tournament.format in (Format.ROUND_ROBIN, Format.SWISS):
        return tables.KIND_OF_FORMAT[tournament.format]
    if tournament.format == Format.GROUPS_THEN_KNOCKOUT and not tournament.rounds:
        return formats.GROUP  # the knockout not made yet
    return "winners" if knockout.is_double(tournament) else bracket.MAIN


@transaction.atomic
def start_round(*, tournament: Tournament, by, number: int, minutes, kind: str = ""):
    """Start (or start again, for extra time) round ``number``'s clock of ``minutes`` (an
    admin). A round the tournament does not have, or a tournament not running: a
    ``Conflict``; minutes not a whole number from 1 to 240: a 400 naming ``minutes``."""
    access_club(by, tournament.club, at_least=Role.ADMIN)
    tournament = _locked(tournament)
    if isinstance(minutes, bool) or not isinstance(minutes, int) or not 1 <= minutes <= 240:
        raise ValidationError({"minutes": _("A round lasts a whole number of minutes, 1 to 240.")})
    if tournament.status != TournamentStatus.RUNNING:
        raise Conflict(_("This tournament is not running."))
    kind = kind or clock_kind(tournament)
    if not tournament.matches.filter(kind=kind, round=number).exists():
        raise Conflict(_("This tournament has no round %(n)s yet.") % {"n": number})
    now = timezone.now()
    clock, created = RoundClock.objects.update_or_create(
        tournament=tournament,
        kind=kind,
        round=number,
        defaults={"started_at": now, "ends_at": now + timedelta(minutes=minutes), "started_by": by},
    )
    steps.audit(
        tournament,
        action="round_clock",
        by=by,
        data={"kind": kind, "round": number, "minutes": minutes, "again": not created},
        areas=(AREA,),
    )
    boards_changed(tournament.club_id)
    return clock
