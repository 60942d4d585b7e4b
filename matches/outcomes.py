"""The result cycle, shared by the three games: one service per step.

Every step locks the subject's row (``select_for_update``), checks who is acting and the
state of things, writes, adds an ``AuditEntry`` and calls the subject's hooks, all in one
transaction; a constraint in the database makes two results in force for one subject
impossible even if a check were wrong. Two phones confirming at once: the second waits for
the lock, then finds nothing left to confirm and gets a :class:`~clubs.errors.Conflict`
(the API's 409).

Who may do what (``user`` is the person acting):

- **report**: a player of the game (a member whose player sits in it), a scorer or an
  admin of the club. A scorer's or an admin's own report is confirmed at once.
- **confirm**: someone other than the reporter who may: another player of the game, a
  scorer, an admin. Nobody confirms their own report.
- **dispute** (with a reason): a player of the game other than the reporter, a scorer or
  an admin; a dispute is **decided** by a scorer or an admin: upheld, rejected, or replaced
  by the result they enter.
- **withdraw**: the reporter takes back a report not yet confirmed.
- **correct** and **void** a result in force: at least the subject's ``correct_role``
  (admins for tournament matches; scorers for Singapore hands). A correction keeps the old
  result (``superseded``) and points the new one at it.

Refusals: not allowed is ``PermissionDenied`` (403); the wrong moment is ``Conflict``
(409); bad input is ``ValidationError`` naming the field (400).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from clubs.access import ClubAccess, access_club
from clubs.errors import Conflict
from clubs.models import Role
from matches.models import AuditEntry, Outcome, OutcomeStatus, OutcomeSubject
from matches.models.outcomes import OPEN
from matches.services import record_game


@dataclass(frozen=True)
class Actor:
    """The person acting on a subject: their club role and whether they play in it."""

    user: object
    access: ClubAccess
    plays: bool

    @property
    def is_scorer(self) -> bool:
        return self.access.is_scorer


def actor(subject: OutcomeSubject, user, access: ClubAccess | None = None) -> Actor:
    """``user`` as an actor on ``subject``: 404 if they may not see its club. ``access``:
    the caller's own check of ``user`` in the subject's club, made in this transaction."""
    if access is None or access.club.pk != subject.club_id:
        access = access_club(user, subject.club)
    plays = user.is_authenticated and any(p.user_id == user.pk for p in subject.outcome_players())
    return Actor(user=user, access=access, plays=plays)


def _lock(subject: OutcomeSubject) -> OutcomeSubject:
    return subject.locked()


def _audit(
    subject, outcome, *, action: str, by, from_status: str, to_status: str, note="", data=None
):
    return AuditEntry.objects.create(
        club_id=subject.club_id,
        content_type=ContentType.objects.get_for_model(subject),
        object_id=subject.pk,
        outcome=outcome,
        action=action,
        by=by if getattr(by, "is_authenticated", False) else None,
        from_status=from_status,
        to_status=to_status,
        note=note,
        data=data or {},
    )


def _move(subject, outcome: Outcome, to: str, *, action: str, by, why: str = "", **fields):
    """Move ``outcome`` to the state ``to`` (setting ``fields`` with it) and write the step,
    from which state to which, to the audit; ``why`` is the step's note."""
    from_status, outcome.status = outcome.status, to
    for name, value in fields.items():
        setattr(outcome, name, value)
    outcome.save(update_fields=["status", *fields])
    return _audit(
        subject, outcome, action=action, by=by, from_status=from_status, to_status=to, note=why
    )


def audit(subject: OutcomeSubject, *, action: str, by, note: str = "", data=None) -> AuditEntry:
    """Write a step of a subject's history that is not a result (a game feature's own)."""
    return _audit(
        subject, None, action=action, by=by, from_status="", to_status="", note=note, data=data
    )


def _reason(reason: str | None, field: str = "reason") -> str:
    text = " ".join(str(reason or "").split())
    if not text:
        raise ValidationError({field: _("Say why, in a few words.")})
    if len(text) > 1000:
        raise ValidationError({field: _("At most 1,000 characters.")})
    return text


def _store(
    subject, payload: dict, *, by, status: str, at=None, supersedes=None, note=""
) -> Outcome:
    """Check ``payload`` with the subject and store it with its game records."""
    checked = subject.check_outcome(payload, by=by)
    now = at or timezone.now()
    try:
        with transaction.atomic():
            outcome = Outcome.objects.create(
                club_id=subject.club_id,
                content_type=ContentType.objects.get_for_model(subject),
                object_id=subject.pk,
                status=status,
                payload=checked.payload,
                detail=checked.detail,
                reported_by=by if by.is_authenticated else None,
                reported_at=now,
                confirmed_by=by if status == OutcomeStatus.CONFIRMED else None,
                confirmed_at=now if status == OutcomeStatus.CONFIRMED else None,
                supersedes=supersedes,
                note=note,
            )
    except IntegrityError as error:
        # The lock on the subject makes this unreachable unless a caller skipped it.
        raise Conflict(_("Someone else recorded a result at the same moment.")) from error
    for checked_record in checked.records:
        record_game(
            club=subject.club,
            record=checked_record.record,
            players=checked_record.players,
            recorded_by=by if by.is_authenticated else None,
            played_at=getattr(subject, "played_at", None) or now,
            season=getattr(subject, "season", None),
            house_rules=subject.house_rules_version(),
            outcome=outcome,
            result=checked_record.result,
        )
    return outcome


def _refuse_if_settled(subject: OutcomeSubject) -> None:
    statuses = set(
        subject.outcomes.filter(status__in=[OutcomeStatus.CONFIRMED, *OPEN]).values_list(
            "status", flat=True
        )
    )
    if OutcomeStatus.CONFIRMED in statuses:
        raise Conflict(_("This already has a result; an admin can correct it."))
    if statuses:
        raise Conflict(
            _("A result was already reported and is waiting to be confirmed or decided.")
        )


@transaction.atomic
def report_outcome(
    *, subject: OutcomeSubject, payload: dict, by, at=None, access: ClubAccess | None = None
) -> Outcome:
    """Report a result. A scorer's or admin's report is in force at once. ``access``: the
    caller's check of ``by`` in the subject's club, if it made one in this transaction."""
    who = actor(subject, by, access)
    subject = _lock(subject)
    if not (who.plays or who.is_scorer):
        raise PermissionDenied(_("Only the players, a scorer or an admin may report a result."))
    subject.ready_for_outcome()
    _refuse_if_settled(subject)
    status = OutcomeStatus.CONFIRMED if who.is_scorer else OutcomeStatus.REPORTED
    outcome = _store(subject, payload, by=by, status=status, at=at)
    _audit(subject, outcome, action="report", by=by, from_status="", to_status=status)
    if outcome.in_force:
        subject.outcome_applied(outcome, previous=None, by=by)
    return outcome


def _open(subject: OutcomeSubject, *, states: list[str], nothing: str) -> Outcome:
    outcome = subject.outcomes.select_for_update().filter(status__in=states).first()
    if outcome is None:
        raise Conflict(nothing)
    return outcome


@transaction.atomic
def confirm_outcome(*, subject: OutcomeSubject, by) -> Outcome:
    """Confirm the reported result: another player of the game, a scorer or an admin."""
    who = actor(subject, by)
    subject = _lock(subject)
    outcome = _open(
        subject,
        states=[OutcomeStatus.REPORTED],
        nothing=_("There is no reported result waiting for confirmation."),
    )
    if outcome.reported_by_id == by.pk:
        raise PermissionDenied(_("Nobody confirms their own report."))
    if not (who.plays or who.is_scorer):
        raise PermissionDenied(_("Only the other player, a scorer or an admin may confirm."))
    _move(
        subject,
        outcome,
        OutcomeStatus.CONFIRMED,
        action="confirm",
        by=by,
        confirmed_by=by,
        confirmed_at=timezone.now(),
    )
    subject.outcome_applied(outcome, previous=None, by=by)
    return outcome


@transaction.atomic
def dispute_outcome(*, subject: OutcomeSubject, by, reason: str) -> Outcome:
    """Dispute the reported result; a scorer or an admin decides."""
    reason = _reason(reason)
    who = actor(subject, by)
    subject = _lock(subject)
    outcome = _open(
        subject,
        states=[OutcomeStatus.REPORTED],
        nothing=_("There is no reported result to dispute."),
    )
    if outcome.reported_by_id == by.pk:
        raise PermissionDenied(_("Withdraw your own report instead of disputing it."))
    if not (who.plays or who.is_scorer):
        raise PermissionDenied(_("Only the players, a scorer or an admin may dispute a result."))
    _move(
        subject, outcome, OutcomeStatus.DISPUTED, action="dispute", by=by, why=reason, note=reason
    )
    return outcome


@transaction.atomic
def withdraw_outcome(*, subject: OutcomeSubject, by) -> Outcome:
    """The reporter takes back a report nobody has confirmed yet."""
    actor(subject, by)
    subject = _lock(subject)
    outcome = _open(
        subject, states=[OutcomeStatus.REPORTED], nothing=_("There is no report to withdraw.")
    )
    if outcome.reported_by_id != by.pk:
        raise PermissionDenied(_("Only whoever reported a result may withdraw it."))
    _move(subject, outcome, OutcomeStatus.WITHDRAWN, action="withdraw", by=by)
    return outcome


@transaction.atomic
def decide_outcome(
    *, subject: OutcomeSubject, by, uphold: bool, payload: dict | None = None, note: str = ""
) -> Outcome | None:
    """A scorer or an admin decides a dispute: ``uphold`` the reported result, or reject it
    and put ``payload`` (if given) in force instead. Returns the outcome in force, if any."""
    who = actor(subject, by)
    if not who.is_scorer:
        raise PermissionDenied(_("Only a scorer or an admin decides a dispute."))
    subject = _lock(subject)
    disputed = _open(
        subject, states=[OutcomeStatus.DISPUTED], nothing=_("There is no dispute to decide.")
    )
    note = " ".join(str(note or "").split())[:1000]
    if uphold:
        if payload is not None:
            raise ValidationError({"payload": _("Either uphold the report or enter a result.")})
        _move(
            subject,
            disputed,
            OutcomeStatus.CONFIRMED,
            action="decide",
            by=by,
            why=note,
            confirmed_by=by,
            confirmed_at=timezone.now(),
        )
        subject.outcome_applied(disputed, previous=None, by=by)
        return disputed
    _move(subject, disputed, OutcomeStatus.REJECTED, action="decide", by=by, why=note)
    if payload is None:
        return None
    outcome = _store(subject, payload, by=by, status=OutcomeStatus.CONFIRMED, note=note)
    _audit(
        subject,
        outcome,
        action="report",
        by=by,
        from_status="",
        to_status=outcome.status,
        note=note,
    )
    subject.outcome_applied(outcome, previous=None, by=by)
    return outcome


def _require_correct_role(subject: OutcomeSubject, by) -> None:
    who = actor(subject, by)
    if not who.access.has(subject.correct_role):
        raise PermissionDenied(
            _("Only a %(role)s may change a result in force.")
            % {"role": Role(subject.correct_role).label.lower()}
        )


@transaction.atomic
def correct_outcome(*, subject: OutcomeSubject, payload: dict, by, reason: str) -> Outcome:
    """Replace the result in force; the old one is kept as ``superseded``."""
    reason = _reason(reason)
    _require_correct_role(subject, by)
    subject = _lock(subject)
    previous = _open(
        subject,
        states=[OutcomeStatus.CONFIRMED],
        nothing=_("There is no result in force to correct."),
    )
    previous.status = OutcomeStatus.SUPERSEDED
    previous.save(update_fields=["status"])
    outcome = _store(
        subject, payload, by=by, status=OutcomeStatus.CONFIRMED, supersedes=previous, note=reason
    )
    _audit(
        subject,
        previous,
        action="correct",
        by=by,
        from_status=OutcomeStatus.CONFIRMED,
        to_status=OutcomeStatus.SUPERSEDED,
        note=reason,
        data={"correction": outcome.pk, "before": previous.payload, "after": outcome.payload},
    )
    subject.outcome_applied(outcome, previous=previous, by=by)
    return outcome


@transaction.atomic
def preview_correct_outcome(*, subject: OutcomeSubject, payload: dict, by) -> dict:
    """What :func:`correct_outcome` with ``payload`` would change, written nowhere: the same
    checks (role, a result in force, the payload), then the subject's own preview."""
    _require_correct_role(subject, by)
    subject = _lock(subject)
    previous = _open(
        subject,
        states=[OutcomeStatus.CONFIRMED],
        nothing=_("There is no result in force to correct."),
    )
    checked = subject.check_outcome(payload, by=by)
    return {
        "before": previous.payload,
        "after": checked.payload,
        **subject.preview_correction(checked, by=by),
    }


@transaction.atomic
def void_outcome(*, subject: OutcomeSubject, by, reason: str) -> Outcome:
    """Void the result in force: the subject has no result any more (history kept)."""
    reason = _reason(reason)
    _require_correct_role(subject, by)
    subject = _lock(subject)
    outcome = _open(
        subject, states=[OutcomeStatus.CONFIRMED], nothing=_("There is no result in force to void.")
    )
    _move(subject, outcome, OutcomeStatus.VOIDED, action="void", by=by, why=reason, note=reason)
    subject.outcome_withdrawn(outcome, by=by)
    return outcome
