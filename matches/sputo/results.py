"""What a Sputo result changes in the bracket: planned by ``matches.sputo.bracket.settle``
and written here, the same plan a correction's preview shows (the adapter calls
:func:`apply_result` and :func:`preview_result`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.contrib.contenttypes.models import ContentType
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from matches import boards
from matches.results.models import AuditEntry, Outcome, OutcomeStatus
from matches.sputo import bracket
from matches.sputo.models import (
    Tournament,
    TournamentMatch,
    TournamentStatus,
)
from matches.sputo.tasks import update_sputo_ratings
from matches.sputo.webhooks import announce_finished, announce_ready, ready_seats


def write_changes(changes, matches: dict, *, now) -> set:
    """Apply :func:`bracket.settle`'s changes to the match objects; the ones changed."""
    touched = set()
    for change in changes:
        match = matches[change.match]
        touched.add(change.match)
        if change.what == "seat":
            setattr(match, f"player_{change.slot}_id", change.after)
        elif change.what == "decide":
            match.winner_id, match.result = change.after, bracket.NO_OPPONENT
            match.decided_at = match.decided_at or now
        elif change.what == "undecide":
            match.winner_id, match.result, match.decided_at = None, "", None
        elif change.what in ("flag", "unflag"):
            match.needs_resolution = change.after
    return touched


@dataclass
class Plan:
    """Everything a result changes, as data: the preview shows it, ``apply`` writes it."""

    tournament: Tournament
    matches: dict[int, TournamentMatch]
    subject: int
    result: dict  # {"before": {...}, "after": {...}} of the subject
    changes: list = field(default_factory=list)
    set_aside: list[int] = field(default_factory=list)  # open reports of re-seated matches
    status: tuple[str, str] | None = None
    standings: tuple[list, list] = ((), ())

    def as_dict(self) -> dict:
        names = {}
        for m in self.matches.values():
            for p in (m.player_a, m.player_b):
                if p is not None:
                    names[p.pk] = p.display_name
        return {
            "match": self.subject,
            "result": self.result,
            "changes": [
                {**c.as_dict(), "round_label": self.matches[c.match].round_label}
                for c in self.changes
            ],
            "set_aside": self.set_aside,
            "status": {"before": self.status[0], "after": self.status[1]} if self.status else None,
            "standings": {
                "before": [list(s) for s in self.standings[0]],
                "after": [list(s) for s in self.standings[1]],
            },
            "ratings_from": self.subject,
            "names": names,
        }


def _summary(match: TournamentMatch) -> dict:
    return {"result": match.result, "winner": match.winner_id}


def _plan(match: TournamentMatch, payload: dict | None) -> Plan:
    """The plan for ``match`` taking ``payload`` (None: no result any more)."""
    tournament = match.tournament
    matches = {
        m.pk: m for m in tournament.matches.select_related("player_a", "player_b", "tournament")
    }
    subject = matches[match.pk]
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
    slots = [m.as_slot(open_report=m.pk in open_reports) for m in matches.values()]
    old_standings = bracket.standings(slots, rounds=tournament.rounds)
    slots = [
        bracket.Slot(**{**s.__dict__, **after, "needs_resolution": False})
        if s.id == match.pk
        else s
        for s in slots
    ]
    settled = bracket.settle(slots, rounds=tournament.rounds)
    new_slots = list(settled.slots.values())
    new_standings = bracket.standings(new_slots, rounds=tournament.rounds)
    plan = Plan(
        tournament=tournament,
        matches=matches,
        subject=match.pk,
        result={"before": before, "after": after},
        changes=[c for c in settled.changes if c.what != "set_aside"],
        set_aside=[c.match for c in settled.changes if c.what == "set_aside"],
        standings=(old_standings, new_standings),
    )
    complete = bool(new_standings) and not any(s.needs_resolution for s in new_slots)
    if tournament.status == TournamentStatus.RUNNING and complete:
        plan.status = (tournament.status, TournamentStatus.FINISHED)
    elif tournament.status == TournamentStatus.FINISHED and not complete:
        plan.status = (tournament.status, TournamentStatus.RUNNING)
    return plan


def preview_result(match: TournamentMatch, payload: dict | None) -> dict:
    """What putting ``payload`` in force on ``match`` would change; nothing is written."""
    return _plan(match, payload).as_dict()


def apply_result(
    match: TournamentMatch, payload: dict | None, *, by, previous=None, at=None
) -> Plan:
    """Write a result's plan (called by the result cycle's hooks, under the tournament's
    lock): the match's own result, every seat and flag it moves, open reports of re-seated
    matches set aside, the tournament finished (or running again); then the ratings."""
    plan = _plan(match, payload)
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
    TournamentMatch.objects.bulk_update(
        [plan.matches[pk] for pk in sorted(touched)],
        ["player_a", "player_b", "winner", "result", "decided_at", "needs_resolution"],
    )
    if plan.set_aside:
        set_aside = Outcome.objects.filter(
            content_type=ContentType.objects.get_for_model(TournamentMatch),
            object_id__in=plan.set_aside,
            status__in=[OutcomeStatus.REPORTED, OutcomeStatus.DISPUTED],
        )
        entries = [
            AuditEntry(
                club_id=o.club_id,
                content_type_id=o.content_type_id,
                object_id=o.object_id,
                outcome=o,
                action="set_aside",
                by=by if getattr(by, "is_authenticated", False) else None,
                from_status=o.status,
                to_status=OutcomeStatus.REJECTED,
                note=_("Set aside: a correction changed this match's players."),
            )
            for o in set_aside
        ]
        set_aside.update(status=OutcomeStatus.REJECTED)
        AuditEntry.objects.bulk_create(entries)
    if plan.status:
        tournament = plan.tournament
        tournament.status = plan.status[1]
        tournament.finished_at = now if tournament.status == TournamentStatus.FINISHED else None
        tournament.save(update_fields=["status", "finished_at"])
        if tournament.status == TournamentStatus.FINISHED:
            announce_finished(tournament, plan.standings[1])
    announce_ready(plan.tournament, plan.matches.values(), before=ready_before)
    others = sorted(touched - {subject.pk})
    if others or previous is not None:
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
    queue_ratings(match.club_id)
    boards_changed(match.club_id)
    return plan


def boards_changed(club_id: int) -> None:
    """The players' pages and the leaderboard read the tournaments as they are (the rating
    task bumps the boards only when the ratings change; a walkover, a draw or a cancelled
    tournament changes none): their cached copies are out of date once this commits."""
    transaction.on_commit(lambda: boards.bump(club_id))


def queue_ratings(club_id: int) -> None:

    update_sputo_ratings.delay_on_commit(club_id=club_id)


def expected_seats(match: TournamentMatch) -> tuple[int | None, int | None]:
    """Who the bracket says should sit in ``match`` now."""
    tournament = match.tournament
    slots = [m.as_slot() for m in tournament.matches.all()]
    target = next(s for s in slots if s.id == match.pk)
    slots = [
        bracket.Slot(**{**s.__dict__, "result": "", "winner": None}) if s.id == match.pk else s
        for s in slots
    ]
    settled = bracket.settle(slots, rounds=tournament.rounds)
    seat = settled.slots[target.key]
    return seat.a, seat.b
