"""Sputo on the tonight screen (``TONIGHT_PANES``, see ``matches/boards/tonight.py``): each
running tournament's current round (who plays, who waits, what is decided) and its latest
results, in three queries whatever the number of tournaments."""

from __future__ import annotations

from django.utils.translation import gettext as _

from matches.boards import night_bounds
from matches.boards.tonight import Pane, Tick
from matches.sputo import reads
from matches.sputo.models import RoundClock, Tournament, TournamentMatch, TournamentStatus

LATEST = 3


KNOCKOUT = {TournamentMatch.Kind.MAIN, TournamentMatch.Kind.THIRD}


def _stage(match: TournamentMatch) -> int:
    """A stage of standings (a round robin's, a group's, a Swiss's rounds) comes before a
    knockout."""
    return 1 if match.kind in KNOCKOUT else 0


def _current_round(matches: list[TournamentMatch]) -> tuple[int, int] | None:
    """The (stage, round) of the first round with a match still to be decided (None: all
    decided); a knockout's third-place match is of its final's round."""
    undecided = [
        (_stage(m), m.round)
        for m in matches
        if not m.result and m.kind != TournamentMatch.Kind.THIRD
    ]
    return min(undecided) if undecided else None


def _match(match: TournamentMatch, open_outcomes) -> dict:
    found = open_outcomes.get(match.pk)
    status = reads.match_status(match, found.status if found else None)
    return {"match": match, "status": status, "label": reads.STATUS_LABELS[status]}


def _row(tournament: Tournament, matches: list[TournamentMatch], open_outcomes) -> dict:
    current = _current_round(matches)
    in_round = sorted(
        (m for m in matches if (_stage(m), m.round) == current and m.result != "bye"),
        key=lambda m: (m.kind, m.position),
    )
    decided = sorted(
        (m for m in matches if m.decided_at and m.winner_id and not m.bye),
        key=lambda m: m.decided_at,
        reverse=True,
    )
    return {
        "tournament": tournament,
        "round": in_round[0].round_label if in_round else "",
        "clock": in_round[0].clock if in_round else None,
        "matches": [_match(m, open_outcomes) for m in in_round],
        "latest": decided[:LATEST],
    }


def tonight_pane(club, *, night, sees_money: bool) -> Pane | None:
    tournaments = list(
        club.tournaments.filter(status=TournamentStatus.RUNNING).order_by("starts_at", "pk")
    )
    if not tournaments:
        return None
    by_tournament: dict[int, list[TournamentMatch]] = {t.pk: [] for t in tournaments}
    matches = (
        TournamentMatch.objects.filter(tournament__in=tournaments)
        .select_related("player_a", "player_b", "winner")
        .order_by("round", "position")
    )
    for match in matches:
        by_tournament[match.tournament_id].append(match)
    for tournament in tournaments:
        for match in by_tournament[tournament.pk]:
            # Round labels read the tournament's rounds, links the club's slug.
            match.tournament, match.club = tournament, club
    open_outcomes = reads.open_outcomes([m.pk for ms in by_tournament.values() for m in ms])
    clocks = {
        (c.tournament_id, c.kind, c.round): c
        for c in RoundClock.objects.filter(tournament__in=tournaments)
    }
    for tournament in tournaments:
        reads.put_clocks(
            by_tournament[tournament.pk],
            {(k, r): c for (t, k, r), c in clocks.items() if t == tournament.pk},
        )
    rows = [_row(t, by_tournament[t.pk], open_outcomes) for t in tournaments]
    start, end = night_bounds(night)
    ticks = [
        Tick(
            at=m.decided_at,
            text=_("%(tournament)s: %(winner)s beats %(loser)s")
            % {
                "tournament": row["tournament"].name,
                "winner": m.winner.display_name,
                "loser": m.loser.display_name,
            },
            url=m.get_absolute_url(),
        )
        for row in rows
        for m in row["latest"]
        if start <= m.decided_at < end and m.loser is not None
    ]
    return Pane(
        slug="sputo",
        title=_("Sputo tournaments"),
        template="matches/sputo/_tonight.html",
        context={"tournaments": rows},
        ticks=ticks,
    )
