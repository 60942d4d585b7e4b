"""What a Sputo result changes in the bracket: planned by ``matches.sputo.bracket.settle``
and written here, the same plan a correction's preview shows (the adapter calls
:func:`apply_result` and :func:`preview_result`)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import ValidationError
from django.utils import timezone
from django.utils.translation import gettext as _

from clubs.models import Player
from matches import boards
from matches.results import steps
from matches.results.adapters import CheckedOutcome
from matches.results.models import AuditEntry, Outcome, OutcomeStatus
from matches.sputo import bracket, knockout, places, seating
from matches.sputo.formats import double_elimination as de
from matches.sputo.models import (
    Tournament,
    TournamentMatch,
    TournamentStatus,
    round_label,
)
from matches.sputo.tasks import RATED, update_sputo_ratings
from matches.sputo.webhooks import announce_finished, announce_ready, ready_seats
from plumbing.errors import Conflict

KNOCKOUT_KINDS = knockout.KINDS

#: What a result can change of a match, written with it (``bulk_update``).
RESULT_FIELDS = ["player_a", "player_b", "winner", "result", "decided_at", "needs_resolution"]


def write_changes(changes, matches: dict, *, now) -> set:
    """Apply :func:`bracket.settle`'s changes to the match objects (not saved); the ids
    of the ones changed."""
    touched = set()
    for change in changes:
        match = matches[change.match]
        touched.add(change.match)
        if change.what == "seat":
            setattr(match, f"player_{change.slot}_id", change.after)
        elif change.what in ("decide", "award"):
            match.winner_id, match.result = change.after, change.result or bracket.NO_OPPONENT
            match.decided_at = match.decided_at or now
        elif change.what in ("undecide", "reset"):
            match.winner_id, match.result, match.decided_at = None, "", None
            match.needs_resolution = False
        elif change.what in ("flag", "unflag"):
            match.needs_resolution = change.after
    return touched


def build_knockout(tournament: Tournament, player_of_seed: dict[int, int], *, now) -> list:
    """Create a knockout's every match (``bracket.draw``), seeds 1 to N as given, the byes'
    players moved on before anything is written; ``tournament.rounds`` set (not saved)."""
    tournament.rounds = bracket.rounds_for(len(player_of_seed))
    matches = []
    for kind, round_, position, seed_a, seed_b, bye in _drawn(tournament, len(player_of_seed)):
        a = player_of_seed.get(seed_a) if seed_a else None
        b = player_of_seed.get(seed_b) if seed_b else None
        matches.append(
            TournamentMatch(
                club_id=tournament.club_id,
                tournament=tournament,
                kind=kind,
                round=round_,
                position=position,
                player_a_id=a,
                player_b_id=b,
                winner_id=a if bye else None,
                result=bracket.BYE if bye else "",
                decided_at=now if bye else None,
                best_of=tournament.best_of_for(kind=kind, round=round_),
            )
        )
    slots = [m.as_slot(id=n) for n, m in enumerate(matches)]
    write_changes(
        knockout.settle(tournament, slots).changes,
        dict(enumerate(matches)),
        now=now,
    )
    TournamentMatch.objects.bulk_create(matches)
    return matches


def _drawn(tournament: Tournament, entrants: int):
    """Each match of the knockout: (kind, round, position, seed A, seed B, a bye)."""
    if knockout.is_double(tournament):
        for m in de.plan(entrants, reset=tournament.grand_final_reset):
            first = m.part == de.WINNERS and m.round == 1
            a = m.a.seed if first else None
            b = m.b.seed if first else None
            yield m.part, m.round, m.position, a, b, first and b is None
        return
    for d in bracket.draw(entrants, third_place=tournament.third_place):
        yield d.kind, d.round, d.position, d.seed_a, d.seed_b, d.bye


def knockout_matches(tournament: Tournament):
    """The matches of the tournament's knockout (all of a single elimination's)."""
    return tournament.matches.filter(kind__in=KNOCKOUT_KINDS)


def _state(slot: bracket.Slot) -> dict:
    return {"a": slot.a, "b": slot.b, "winner": slot.winner, "result": slot.result}


def _champion(standings) -> int | None:
    return next((player for place, player, _r in standings if place == 1), None)


@dataclass
class Plan:
    """Everything a result changes, as data: the preview shows it, ``apply`` writes it.

    ``before`` and ``after``: every match as the planner sees it, before and after the
    result and all that follows from it, down to the final and the third-place match."""

    tournament: Tournament
    matches: dict[int, TournamentMatch]
    subject: int
    result: dict  # {"before": {...}, "after": {...}} of the subject
    before: dict[int, bracket.Slot]
    after: dict[int, bracket.Slot]
    changes: list = field(default_factory=list)
    status: tuple[str, str] | None = None
    standings: tuple[list, list] = ((), ())

    def _ids(self, what: str) -> list[int]:
        return [c.match for c in self.changes if c.what == what]

    @property
    def reset(self) -> list[int]:
        """Matches whose result in force is set aside (back to be played, or awarded)."""
        return self._ids("reset")

    @property
    def reports_set_aside(self) -> list[int]:
        return self._ids("set_aside")

    @property
    def awarded(self) -> dict[int, int]:
        return {c.match: c.after for c in self.changes if c.what == "award"}

    @property
    def changed(self) -> list[int]:
        """The matches this plan changes, the subject first, then in bracket order."""
        ids = {c.match for c in self.changes} - {self.subject}
        order = sorted(ids, key=lambda pk: _order(self.before[pk]))
        return [self.subject, *order]

    def names(self) -> dict[int, str]:
        """The name of each player of the bracket, before and after (one query)."""
        slots = (*self.before.values(), *self.after.values())
        ids = {pk for s in slots for pk in (s.a, s.b) if pk}  # not None, not NOBODY
        return dict(Player.objects.filter(pk__in=ids).values_list("pk", "display_name"))

    def as_dict(self) -> dict:
        names = self.names()
        rounds = self.tournament.rounds
        subject = self.before[self.subject]

        def label(slot) -> str:
            return round_label(slot.kind, slot.round, rounds)

        # The rounds after the subject's, in the bracket's reading order (a double
        # elimination's: the winners', the losers', the grand final).
        later = sorted(
            {
                (s.round, s.kind)
                for s in self.before.values()
                if _order(s)[:2] > _order(subject)[:2]
            },
            key=lambda rk: _order(bracket.Slot(0, rk[1], rk[0], 0)),
        )
        return {
            "match": self.subject,
            "result": self.result,
            "changes": [
                {**c.as_dict(), "round_label": label(self.before[c.match])} for c in self.changes
            ],
            "matches": [
                {
                    "match": pk,
                    "round": self.before[pk].round,
                    "kind": self.before[pk].kind,
                    "position": self.before[pk].position,
                    "round_label": label(self.before[pk]),
                    "before": _state(self.before[pk]),
                    "after": _state(self.after[pk]),
                }
                for pk in self.changed
            ],
            "rounds": [
                {
                    "round": round_,
                    "kind": kind,
                    "label": round_label(kind, round_, rounds),
                    "matches": [
                        pk
                        for pk in self.changed[1:]
                        if (self.before[pk].round, self.before[pk].kind) == (round_, kind)
                    ],
                }
                for round_, kind in later
            ],
            "set_aside": self.reset,
            "reports_set_aside": self.reports_set_aside,
            "awarded": [{"match": pk, "winner": w} for pk, w in self.awarded.items()],
            "ratings_undone": [pk for pk in self.reset if self.before[pk].result in RATED],
            "status": {"before": self.status[0], "after": self.status[1]} if self.status else None,
            "champion": {
                "before": _champion(self.standings[0]),
                "after": _champion(self.standings[1]),
            },
            "standings": {
                "before": [list(s) for s in self.standings[0]],
                "after": [list(s) for s in self.standings[1]],
            },
            "ratings_from": self.subject,
            "names": names,
        }


def _order(slot: bracket.Slot) -> tuple:
    return knockout.order(slot)


def _summary(match: TournamentMatch) -> dict:
    return {"result": match.result, "winner": match.winner_id}


def _plan(match: TournamentMatch, payload: dict | None, awards: dict | None = None) -> Plan:
    """The plan for ``match`` taking ``payload`` (None: no result any more), with an
    admin's ``awards`` (match id -> winner) of matches it resets or re-seats."""
    tournament = match.tournament
    # Each match's tournament is this one (the related manager hands it to each row): joined
    # again, and ordered by way of it as the model's ordering is, it cost a third of the read.
    # Its players are not joined either (half of the read's time, Django's): a plan's names
    # are read when it is shown or written to the history (``Plan.names``).
    bracket_rows = knockout_matches(tournament).order_by("round", "kind", "position")
    matches = {m.pk: m for m in bracket_rows}
    subject = matches[match.pk]
    if payload is not None and subject.needs_resolution:
        raise Conflict(_("This match waits for an admin to replay or award it."))
    open_reports = set(
        Outcome.objects.filter(
            content_type=ContentType.objects.get_for_model(TournamentMatch),
            object_id__in=list(matches),
            status__in=[OutcomeStatus.REPORTED, OutcomeStatus.DISPUTED],
        ).values_list("object_id", flat=True)
    )
    before = _summary(subject)
    if payload is None:
        after = {"result": "", "winner": None}
    else:
        after = {"result": payload["result"], "winner": payload.get("winner")}
    original = {m.pk: m.as_slot(open_report=m.pk in open_reports) for m in matches.values()}
    slots = list(original.values())
    old_standings = places.with_groups(tournament, knockout.standings(tournament, slots))
    slots = [
        replace(s, result=after["result"], winner=after["winner"], needs_resolution=False)
        if s.id == match.pk
        else s
        for s in slots
    ]
    settled = knockout.settle(tournament, slots, awards)
    if settled.refused_awards:
        raise ValidationError(
            {
                "awards": [
                    _(
                        "Match %(match)s cannot be awarded here: only a match this correction "
                        "sets aside or re-seats, with both players known, to one of them."
                    )
                    % {"match": pk}
                    for pk in settled.refused_awards
                ]
            }
        )
    new_slots = list(settled.slots.values())
    new_standings = places.with_groups(tournament, knockout.standings(tournament, new_slots))
    plan = Plan(
        tournament=tournament,
        matches=matches,
        subject=match.pk,
        result={"before": before, "after": after},
        before=original,
        after={s.id: s for s in new_slots},
        changes=list(settled.changes),
        standings=(old_standings, new_standings),
    )
    complete = bool(new_standings) and not any(s.needs_resolution for s in new_slots)
    if tournament.status == TournamentStatus.RUNNING and complete:
        plan.status = (tournament.status, TournamentStatus.FINISHED)
    elif tournament.status == TournamentStatus.FINISHED and not complete:
        plan.status = (tournament.status, TournamentStatus.RUNNING)
    return plan


def preview_result(
    match: TournamentMatch, payload: dict | None, awards: dict | None = None
) -> dict:
    """What putting ``payload`` in force on ``match`` would change; nothing is written."""
    return _plan(match, payload, awards).as_dict()


def apply_result(
    match: TournamentMatch,
    payload: dict | None,
    *,
    by,
    previous=None,
    at=None,
    awards: dict | None = None,
    note: str = "",
) -> Plan:
    """Write a result's plan (called by the result cycle's hooks, under the tournament's
    lock, in the step's transaction): the match's own result, every seat it moves, the
    results in force of later matches it resets set aside (voided, or superseded by the
    admin's ``awards``), reports waiting on re-seated matches set aside, the tournament
    finished (or running again); then the ratings, from the results still in force."""
    plan = _plan(match, payload, awards)
    now = at or timezone.now()
    subject = plan.matches[match.pk]
    ready_before = ready_seats(plan.matches.values())
    after = plan.result["after"]
    subject.result, subject.winner_id = after["result"], after["winner"]
    subject.needs_resolution = False
    if subject.result and subject.decided_at is None:
        subject.decided_at = now
    elif not subject.result:
        subject.decided_at = None
    touched = write_changes(plan.changes, plan.matches, now=now) | {subject.pk}
    changed = [plan.matches[pk] for pk in sorted(touched)]
    TournamentMatch.objects.bulk_update(changed, fields=RESULT_FIELDS)
    if plan.tournament.tables:
        seating.assign(match.club_id)  # a table freed, a match ready
    _set_aside_outcomes(plan, by=by, note=note, at=now)
    if plan.status:
        tournament = plan.tournament
        tournament.status = plan.status[1]
        tournament.finished_at = now if tournament.status == TournamentStatus.FINISHED else None
        tournament.save(update_fields=["status", "finished_at"])
        if tournament.status == TournamentStatus.FINISHED:
            announce_finished(tournament, plan.standings[1])
    finished = plan.tournament.status == TournamentStatus.FINISHED
    if plan.status or (finished and plan.standings[0] != plan.standings[1]):
        places.write(plan.tournament, plan.standings[1] if finished else [])
    announce_ready(plan.tournament, plan.matches.values(), before=ready_before)
    _audit_plan(plan, by=by, previous=previous, touched=touched)
    # A result new at the end of the club's history is rated by a delta; anything else (a
    # correction, results set aside) by the task's check of the whole history.
    at_the_end = previous is None and not plan.reset and subject.decided_at is not None
    queue_ratings(match.club_id, since=subject.decided_at if at_the_end else None)
    boards_changed(match.club_id)
    return plan


def _set_aside_outcomes(plan: Plan, *, by, note: str, at) -> None:
    """Through the result cycle: the results in force of the matches the plan resets, and
    the reports waiting on those it re-seats, set aside; the admin's awards in force."""
    note = note or _("A correction elsewhere in the bracket.")
    awarded = plan.awarded
    for pk in plan.changed[1:]:
        if pk not in plan.reset and pk not in plan.reports_set_aside and pk not in awarded:
            continue
        award = None
        if pk in awarded:
            award = CheckedOutcome(
                payload={"result": bracket.AWARDED, "winner": awarded[pk], "games": []}
            )
        steps.set_aside(
            plan.matches[pk], by=by, note=note, data={"cause": plan.subject}, award=award, at=at
        )


def _audit_plan(plan: Plan, *, by, previous, touched: set) -> None:
    subject = plan.matches[plan.subject]
    others = sorted(touched - {subject.pk})
    if not others and previous is None:
        return
    ct = ContentType.objects.get_for_model(TournamentMatch)
    data = plan.as_dict()
    AuditEntry.objects.bulk_create(
        AuditEntry(
            club_id=subject.club_id,
            content_type=ct,
            object_id=pk,
            action="bracket" if pk == subject.pk else "moved",
            by=by if getattr(by, "is_authenticated", False) else None,
            data={
                "cause": subject.pk,
                "changes": [c for c in data["changes"] if c["match"] == pk],
            }
            if pk != subject.pk
            else data,
        )
        for pk in [subject.pk, *others]
    )


def boards_changed(club_id: int) -> None:
    """The players' pages and the leaderboard read the tournaments as they are (the rating
    task bumps the boards only when the ratings change; a walkover, a draw or a cancelled
    tournament changes none): their cached copies are out of date once this commits."""
    boards.bump(club_id, "sputo")


def queue_ratings(club_id: int, *, since=None) -> None:
    """The ratings follow once this commits; ``since``: the time of a result that came into
    force new (the task adds it as a delta if nothing rated came after it)."""
    if since is None:
        update_sputo_ratings.delay_on_commit(club_id=club_id)
    else:
        update_sputo_ratings.delay_on_commit(club_id=club_id, since=since.isoformat())


def expected_seats(match: TournamentMatch) -> tuple[int | None, int | None]:
    """Who the bracket says should sit in ``match`` now."""
    tournament = match.tournament
    slots = [m.as_slot() for m in knockout_matches(tournament)]
    target = next(s for s in slots if s.id == match.pk)
    slots = [replace(s, result="", winner=None) if s.id == match.pk else s for s in slots]
    settled = knockout.settle(tournament, slots)
    seat = settled.slots[target.key]
    return seat.a, seat.b
