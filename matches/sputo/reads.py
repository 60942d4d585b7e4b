"""Reads for the pages and the API: the bracket of a tournament in a constant number of
queries whatever its size, its standings, a player's next match."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.contrib.contenttypes.models import ContentType
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy, ngettext

from clubs.models import Player
from matches.results.models import Outcome, OutcomeStatus
from matches.sputo import bracket, knockout, places, tables
from matches.sputo.formats import double_elimination as de
from matches.sputo.models import Format, Tournament, TournamentMatch, TournamentStatus, round_label


class Status:
    """A match's state as people see it."""

    WAITING = "waiting"  # players not known yet
    READY = "ready"  # to be played
    REPORTED = "reported"  # a result waits for confirmation
    DISPUTED = "disputed"
    DECIDED = "decided"
    BYE = "bye"
    NEEDS_ADMIN = "needs_admin"  # played with a player a correction moved away


STATUS_LABELS = {
    Status.WAITING: gettext_lazy("Waiting for its players"),
    Status.READY: gettext_lazy("To be played"),
    Status.REPORTED: gettext_lazy("Waiting for confirmation"),
    Status.DISPUTED: gettext_lazy("Disputed"),
    Status.DECIDED: gettext_lazy("Decided"),
    Status.BYE: gettext_lazy("Bye"),
    Status.NEEDS_ADMIN: gettext_lazy("Needs an admin"),
}


def match_status(match: TournamentMatch, open_status: str | None) -> str:
    if match.result == bracket.BYE:
        return Status.BYE
    if match.needs_resolution:
        return Status.NEEDS_ADMIN
    if match.result:
        return Status.DECIDED
    if open_status == OutcomeStatus.DISPUTED:
        return Status.DISPUTED
    if open_status == OutcomeStatus.REPORTED:
        return Status.REPORTED
    if match.player_a_id and match.player_b_id:
        return Status.READY
    return Status.WAITING


@dataclass
class Bracket:
    tournament: Tournament
    rounds: list[tuple[str, list[TournamentMatch]]] = field(default_factory=list)
    third_place: TournamentMatch | None = None
    standings: list[dict] = field(default_factory=list)
    open: dict[int, Outcome] = field(default_factory=dict)
    seeds: dict[int, int] = field(default_factory=dict)

    all_matches: list[TournamentMatch] = field(default_factory=list)
    tables: list[dict] = field(default_factory=list)  # a stage's standings, by group
    round_parts: list[str] = field(default_factory=list)  # each round's bracket (its kind)
    parts: list[tuple] = field(default_factory=list)  # a double elimination's, in turn

    @property
    def page_rounds(self) -> list:
        """The rounds as the page shows them: a Swiss's newest first (the round being
        played is the one people look for on a phone); the others in order."""
        if self.tournament.format == Format.SWISS:
            return self.rounds[::-1]
        return self.rounds

    @property
    def knockout_first(self) -> bool:
        """Groups then a knockout, the knockout made: the bracket comes before the groups."""
        return bool(self.rounds) and self.tournament.format == Format.GROUPS_THEN_KNOCKOUT

    def matches(self) -> list[TournamentMatch]:
        found = [m for _label, ms in self.rounds for m in ms]
        return found + ([self.third_place] if self.third_place else [])


def open_outcomes(match_ids) -> dict[int, Outcome]:
    return {
        o.object_id: o
        for o in Outcome.objects.filter(
            content_type=ContentType.objects.get_for_model(TournamentMatch),
            object_id__in=list(match_ids),
            status__in=[OutcomeStatus.REPORTED, OutcomeStatus.DISPUTED],
        )
    }


def bracket_of(tournament: Tournament) -> Bracket:
    """The whole bracket: three queries whatever the number of entrants."""
    matches = list(
        tournament.matches.select_related("player_a", "player_b", "winner").order_by(
            "round", "kind", "position"
        )
    )
    for m in matches:
        m.tournament = tournament  # for round labels, without a query per match
    seeds = dict(tournament.entrants.filter(seed__isnull=False).values_list("player_id", "seed"))
    opened = open_outcomes(m.pk for m in matches)
    for m in matches:
        outcome = opened.get(m.pk)
        m.status = match_status(m, outcome.status if outcome else None)
        m.open_outcome = outcome
        m.seed_a = seeds.get(m.player_a_id)
        m.seed_b = seeds.get(m.player_b_id)
        m.seated = [(m.player_a, m.seed_a), (m.player_b, m.seed_b)]
    put_clocks(matches, {(c.kind, c.round): c for c in tournament.clocks.all()})
    result = Bracket(tournament=tournament, open=opened, seeds=seeds, all_matches=matches)
    kind = tables.KIND_OF_FORMAT.get(tournament.format)
    if tournament.format in (Format.ROUND_ROBIN, Format.SWISS):
        # A table's rounds, as they are made (a Swiss's, a round at a time).
        for n in sorted({m.round for m in matches if m.kind == kind}):
            in_round = [m for m in matches if m.round == n and m.kind == kind]
            result.rounds.append((round_label(kind, n, tournament.rounds), in_round))
    elif knockout.is_double(tournament):
        _double(tournament, matches, result)
    else:
        for n in range(1, tournament.rounds + 1):
            in_round = [m for m in matches if m.round == n and m.kind == bracket.MAIN]
            result.rounds.append((round_label(bracket.MAIN, n, tournament.rounds), in_round))
            result.round_parts.append(bracket.MAIN)
        result.third_place = next((m for m in matches if m.kind == bracket.THIRD), None)
    _loser_to(tournament, matches)
    result.standings = _standings(tournament, matches)
    if tournament.has_table:
        result.tables = _tables(tournament, [m for m in matches if m.kind == kind])
    return result


PARTS = [
    (de.WINNERS, gettext_lazy("Winners' bracket")),
    (de.LOSERS, gettext_lazy("Losers' bracket")),
    (de.GRAND_FINAL, gettext_lazy("Grand final")),
]


def put_clocks(matches, clocks: dict) -> None:
    """Each match's round clock (``m.clock``, or None) and whether its time is up while it
    is still to be decided (``m.late``: the admin decides it, or gives extra time)."""
    now = timezone.now()
    for m in matches:
        m.clock = clocks.get((m.kind, m.round))
        m.late = bool(m.clock and not m.result and m.clock.ends_at <= now)


def _not_needed(m: TournamentMatch) -> bool:
    """A grand final's second match that the first made unnecessary."""
    return m.kind == de.GRAND_FINAL and m.round == 2 and bool(m.result) and m.player_a_id is None


def _double(tournament: Tournament, matches: list[TournamentMatch], result: Bracket) -> None:
    """A double elimination's rounds, each bracket in turn (the grand final last), and the
    parts for the page: ``(label, [(round label, matches), ...])``."""
    for part, label in PARTS:
        rounds = []
        for n in sorted({m.round for m in matches if m.kind == part}):
            in_round = [m for m in matches if m.kind == part and m.round == n]
            if all(_not_needed(m) for m in in_round):
                continue
            rounds.append((round_label(part, n, tournament.rounds), in_round))
            result.round_parts.append(part)
        result.rounds.extend(rounds)
        result.parts.append((label, rounds))


def _loser_to(tournament: Tournament, matches: list[TournamentMatch]) -> None:
    """Each knockout match's ``loser_to``: the id of the match its loser goes to (a double
    elimination's losers' bracket, a single elimination's third-place match), or None."""
    by_key = {(m.kind, m.round, m.position): m for m in matches}
    if knockout.is_double(tournament):
        where = de.loser_to(knockout.planned(tournament))
    else:
        third = (bracket.THIRD, tournament.rounds, 0)
        where = (
            {(bracket.MAIN, tournament.rounds - 1, p): third for p in (0, 1)}
            if third in by_key
            else {}
        )
    for m in matches:
        target = by_key.get(where.get((m.kind, m.round, m.position)))
        m.loser_to = target.pk if target is not None else None


def _tables(tournament: Tournament, matches: list[TournamentMatch]) -> list[dict]:
    """The stage's tables for the page: each group's rows (with why, in words) and, for a
    group, its matches; a Swiss pairing's reasons on its match (``why``)."""
    names = {p.pk: p.display_name for m in matches for p in m.players()}
    for m in matches:
        m.why = tables.pairing_words(m.pairing, names) if m.pairing else ""
    found = []
    for group in tables.groups_of(tournament, matches):
        swiss = tournament.format == Format.SWISS
        rows = [tables.row_data(row, names, swiss=swiss) for row in group.rows]
        mine = [m for m in matches if group.name and m.group == group.name]
        found.append({"name": group.name, "rows": rows, "matches": mine})
    return found


def _standings(tournament: Tournament, matches: list[TournamentMatch]) -> list[dict]:
    names: dict[int, str] = {}
    for m in matches:
        for p in (m.player_a, m.player_b):
            if p is not None:
                names[p.pk] = p.display_name
    if tournament.status != TournamentStatus.FINISHED:
        return []
    if tournament.format != Format.SINGLE_ELIMINATION:
        found = places.standings_of(tournament)
        for pk, name in Player.objects.filter(pk__in=[p for _n, p, _r in found]).values_list(
            "pk", "display_name"
        ):
            names[pk] = name
        return [
            {
                "place": place,
                "player": player,
                "name": names.get(player, ""),
                "round_reached": reached,
                "round_label": round_label(_reached_kind(tournament), reached, tournament.rounds)
                if reached
                else "",
            }
            for place, player, reached in found
        ]
    slots = [m.as_slot() for m in matches]
    return [
        {
            "place": place,
            "player": player,
            "name": names.get(player, ""),
            "round_reached": reached,
            "round_label": round_label(bracket.MAIN, reached, tournament.rounds),
        }
        for place, player, reached in bracket.standings(slots, rounds=tournament.rounds)
    ]


def _reached_kind(tournament: Tournament) -> str:
    """The kind of round a place's "round reached" counts: the losers' bracket's in a
    double elimination, the bracket's otherwise."""
    return de.LOSERS if knockout.is_double(tournament) else bracket.MAIN


def standings_of(tournament: Tournament) -> list[dict]:
    return bracket_of(tournament).standings


def my_player(user, club) -> Player | None:
    if not user.is_authenticated:
        return None
    return Player.objects.filter(club=club, user=user, merged_into__isnull=True).first()


def next_matches(user, *, club=None, tournament=None):
    """The logged-in player's matches to play (players known, no result in force), in
    running tournaments, earliest first."""
    if not user.is_authenticated:
        return TournamentMatch.objects.none()
    mine = Q(player_a__user=user) | Q(player_b__user=user)
    found = TournamentMatch.objects.filter(
        mine,
        result="",
        needs_resolution=False,
        player_a__isnull=False,
        player_b__isnull=False,
        tournament__status=TournamentStatus.RUNNING,
    )
    if club is not None:
        found = found.filter(club=club)
    if tournament is not None:
        found = found.filter(tournament=tournament)
    return found.select_related("tournament", "club", "player_a", "player_b").order_by(
        "tournament__starts_at", "round", "position"
    )


def cancel_losses(tournament: Tournament) -> list[str]:
    """What cancelling ``tournament`` loses, in words: nothing before the draw but its
    entries; once running, the matches played and the results waiting."""
    entrants = tournament.entrants.count()
    if not tournament.is_drawn:
        if not entrants:
            return []
        return [
            ngettext(
                "%(n)s entry: the entrant will not play.",
                "%(n)s entries: the entrants will not play.",
                entrants,
            )
            % {"n": entrants}
        ]
    matches = list(tournament.matches.all())
    played = [m for m in matches if m.result and m.result not in (bracket.BYE, bracket.NO_OPPONENT)]
    to_play = [m for m in matches if not m.result]
    ids = [m.pk for m in to_play]
    waiting = (
        Outcome.objects.filter(
            content_type=ContentType.objects.get_for_model(TournamentMatch),
            object_id__in=ids,
            status__in=[OutcomeStatus.REPORTED, OutcomeStatus.DISPUTED],
        ).count()
        if ids
        else 0
    )
    lost = [
        ngettext(
            "%(n)s match played: its result stays in the history, but the tournament ends "
            "without a winner.",
            "%(n)s matches played: their results stay in the history, but the tournament ends "
            "without a winner.",
            len(played),
        )
        % {"n": len(played)},
        ngettext(
            "%(n)s match still to play will never be played.",
            "%(n)s matches still to play will never be played.",
            len(to_play),
        )
        % {"n": len(to_play)},
    ]
    if waiting:
        lost.append(
            ngettext(
                "%(n)s result reported and waiting for confirmation or a decision stays undecided.",
                "%(n)s results reported and waiting for confirmation or a decision stay undecided.",
                waiting,
            )
            % {"n": waiting}
        )
    return lost
