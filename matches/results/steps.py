"""The result cycle, shared by every game: one service per step.

Every step reads the subject's adapter (``matches.results.adapters``), locks the subject's
row, checks who is acting (the adapter's ``roles`` table) and the state of things, writes,
adds an ``AuditEntry`` and tells the adapter, all in one transaction; a constraint in the
database makes two results in force for one subject impossible even if a check were wrong.
Two phones confirming at once: the second waits for the lock, then finds nothing left to
confirm and gets a :class:`~plumbing.errors.Conflict` (the API's 409).

The steps (who may take each is the game's ``roles``; these are the defaults):

- **report**: a player of the game, a scorer or an admin. A report by someone who may
  also decide (a scorer, an admin) is confirmed at once.
- **confirm**: someone other than the reporter who may: another player, a scorer, an admin.
- **dispute** (with a reason): a player other than the reporter, a scorer or an admin; a
  dispute is **decided** by a scorer or an admin: upheld, rejected, or replaced by the result
  they enter.
- **withdraw**: the reporter takes back a report not yet confirmed.
- **correct** and **void** a result in force (scorers; admins for tournament matches). A
  correction keeps the old result (``superseded``) and points the new one at it.

Refusals: not allowed is ``PermissionDenied`` (403); the wrong moment is ``Conflict``
(409); bad input is ``ValidationError`` naming the field (400).
"""

from __future__ import annotations

from enum import Enum

from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from clubs.access import ClubAccess
from clubs.models import Club, HouseRuleSet, Player
from clubs.webhooks.services import absolute, emit, listens, player_data
from matches.results.adapters import Actor, CheckedOutcome, GameAdapter, actor, adapter_for
from matches.results.inbox import after_step
from matches.results.models import (
    OPEN,
    AuditEntry,
    GameRecord,
    GameSeat,
    Outcome,
    OutcomeStatus,
    OutcomeSubject,
)
from plumbing import public_pages
from plumbing.errors import Conflict
from plumbing.rule_errors import rules_validation_error
from plumbing.transactions import own_transaction
from rules.check import check_record
from rules.house_rules import as_dict, parse_house_rules

#: Each step in words, for the sentence that refuses it ("Only ... may <what>.").
WHAT = {
    "report": gettext_lazy("report a result"),
    "confirm": gettext_lazy("confirm a result"),
    "dispute": gettext_lazy("dispute a result"),
    "withdraw": gettext_lazy("withdraw it"),
    "decide": gettext_lazy("decide a dispute"),
    "correct": gettext_lazy("change a result in force"),
    "void": gettext_lazy("change a result in force"),
    "resolve": gettext_lazy("resolve a match"),
    "award": gettext_lazy("award a match"),
    "double_forfeit": gettext_lazy("record a double forfeit"),
}

#: The steps a report's reporter may not take on it: the refusal when there is no report
#: waiting, and the one to the reporter.
NOT_BY_THE_REPORTER = {
    "confirm": (
        gettext_lazy("There is no reported result waiting for confirmation."),
        gettext_lazy("Nobody confirms their own report."),
    ),
    "dispute": (
        gettext_lazy("There is no reported result to dispute."),
        gettext_lazy("Withdraw your own report instead of disputing it."),
    ),
}


def require(step: str, who: Actor, subject: OutcomeSubject, *, reported_by=None) -> None:
    """``PermissionDenied`` unless the game's roles table lets ``who`` take ``step``."""
    rule = adapter_for(subject).who(step)
    if not rule.allows(who, reported_by=reported_by):
        raise PermissionDenied(rule.refusal(str(WHAT.get(step, step))))


def _audit(
    subject,
    outcome,
    *,
    action: str,
    by,
    from_status: str = "",
    to_status: str,
    note="",
    data=None,
    areas: tuple[str, ...] | None = None,
):
    """Write a step to the subject's history: ``outcome`` moved from ``from_status`` (none:
    a result that comes new) to ``to_status``. ``areas``: of the club's pages it changed
    (``plumbing.public_pages``), by default those the subject's game adapter names."""
    # After the commit: the tonight screen and the inboxes show every step, and the pages
    # of the areas it changed are built again.
    after_step.delay_on_commit(
        club_id=subject.club_id, model=subject._meta.label_lower, object_id=subject.pk
    )
    if areas is None:
        areas = adapter_for(subject).areas(subject)
    public_pages.changed(subject.club_id, *areas)
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


def _move(
    subject, outcome: Outcome, to: str, *, action: str, by, why: str = "", data=None, **fields
):
    """Move ``outcome`` to the state ``to`` (setting ``fields`` with it) and write the step,
    from which state to which, to the audit; ``why`` is the step's note."""
    from_status, outcome.status = outcome.status, to
    for name, value in fields.items():
        setattr(outcome, name, value)
    outcome.save(update_fields=["status", *fields])
    return _audit(
        subject,
        outcome,
        action=action,
        by=by,
        from_status=from_status,
        to_status=to,
        note=why,
        data=data,
    )


def audit(
    subject, *, action: str, by, note: str = "", data=None, areas: tuple[str, ...] | None = None
) -> AuditEntry:
    """Write a step of a subject's history that is not a result (a game's own); ``areas`` of
    the club's pages it changed, for a subject that is not a result's (a tournament)."""
    return _audit(
        subject,
        None,
        action=action,
        by=by,
        from_status="",
        to_status="",
        note=note,
        data=data,
        areas=areas,
    )


def _reason(reason: str | None, field: str = "reason") -> str:
    text = " ".join(str(reason or "").split())
    if not text:
        raise ValidationError({field: _("Say why, in a few words.")})
    if len(text) > 1000:
        raise ValidationError({field: _("At most 1,000 characters.")})
    return text


def _store(
    adapter, subject, checked: CheckedOutcome, *, by, status: str, at=None, supersedes=None, note=""
) -> Outcome:
    """Store a checked result with its game records."""
    now = at or timezone.now()
    # No savepoint of its own (two queries per result): every step stores inside its own
    # transaction, under the lock on the subject, so a clash here ends the whole step.
    try:
        outcome = Outcome.objects.create(
            club_id=subject.club_id,
            subject=subject,
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
        write_game_record(
            club=subject.club,
            record=checked_record.record,
            players=checked_record.players,
            recorded_by=by if by.is_authenticated else None,
            played_at=adapter.played_at(subject) or now,
            season=adapter.season(subject),
            house_rules=adapter.house_rules(subject),
            outcome=outcome,
            result=checked_record.result,
        )
    return outcome


def _arrive(
    adapter,
    subject,
    checked: CheckedOutcome,
    *,
    action: str,
    by,
    status: str,
    note="",
    data=None,
    **store,
) -> Outcome:
    """:func:`_store` a new result and write its coming (from no state) to the audit."""
    outcome = _store(adapter, subject, checked, by=by, status=status, note=note, **store)
    areas = adapter.areas(subject)
    _audit(
        subject, outcome, action=action, by=by, to_status=status, note=note, data=data, areas=areas
    )
    return outcome


def into_force(adapter, subject, outcome: Outcome, *, previous=None, by, checked=None) -> None:
    """``outcome`` came into force (replacing ``previous``, if any): what it changes in the
    game (its adapter's ``applied``: a hand's posting, the derived rows queued), then the
    clubs' webhooks told."""
    adapter.applied(subject, outcome, previous=previous, by=by, checked=checked)
    announce_result(adapter, subject, outcome, corrected=previous is not None)


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


def _begin(subject: OutcomeSubject, by, access: ClubAccess | None = None, *, step=None):
    """The step's adapter, its subject locked and read as the adapter wants it, and the
    actor; with ``step``, refused first unless the roles table lets the actor take it."""
    adapter = adapter_for(subject)
    who = actor(subject, by, access)
    if step is not None:
        require(step, who, subject)
    return adapter, adapter.lock(subject), who


@own_transaction
def report_outcome(
    *,
    subject: OutcomeSubject,
    payload: dict,
    by,
    at=None,
    access: ClubAccess | None = None,
) -> Outcome:
    """Report a result on a subject that has none waiting or in force (a Sputo match); from
    someone who may decide, it is in force at once. ``access``: the caller's check of
    ``by`` in the subject's club for this request."""
    adapter, subject, who = _begin(subject, by, access, step="report")
    adapter.ready(subject)
    _refuse_if_settled(subject)
    checked = adapter.check(subject, payload, actor=who)
    outcome = record_new(adapter, subject=subject, checked=checked, who=who, at=at)
    if outcome.in_force:
        into_force(adapter, subject, outcome, by=by, checked=checked)
    return outcome


def record_new(
    adapter, *, subject: OutcomeSubject, checked: CheckedOutcome, who: Actor, at=None
) -> Outcome:
    """Store the first result of ``subject``, checked by its game, under the caller's lock
    and in the caller's transaction: in force at once when ``who`` may decide (the game's
    roles table), else reported for another player to confirm; written to the audit. The
    game does the rest of its write itself, in order: :func:`into_force` when the result is
    in force (a hand: its posting, its players' statistics queued, the webhooks told).

    A game that has just made the subject (a hand, a Spazz'u'mazz game) calls it directly,
    having checked the reporter, the moment and the payload itself; :func:`report_outcome`
    calls it after those checks for a subject that was already there."""
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("record_new needs the caller's transaction")
    in_force = adapter.who("decide").allows(who)
    status = OutcomeStatus.CONFIRMED if in_force else OutcomeStatus.REPORTED
    return _arrive(adapter, subject, checked, action="report", by=who.user, status=status, at=at)


def _open(subject: OutcomeSubject, *, states: list[str], nothing: str) -> Outcome:
    outcome = subject.outcomes.select_for_update().filter(status__in=states).first()
    if outcome is None:
        raise Conflict(nothing)
    return outcome


def _reported_by_another(subject: OutcomeSubject, by, access: ClubAccess | None, *, step: str):
    """:func:`_begin` for a step a report's reporter may not take (``NOT_BY_THE_REPORTER``):
    the adapter, the subject locked, and the reported result."""
    adapter, subject, who = _begin(subject, by, access)
    nothing, own = NOT_BY_THE_REPORTER[step]
    outcome = _open(subject, states=[OutcomeStatus.REPORTED], nothing=str(nothing))
    if outcome.reported_by_id == who.user.pk:
        raise PermissionDenied(str(own))
    require(step, who, subject)
    return adapter, subject, outcome


@own_transaction
def confirm_outcome(*, subject: OutcomeSubject, by, access: ClubAccess | None = None) -> Outcome:
    """Confirm the reported result: another player of the game, a scorer or an admin."""
    adapter, subject, outcome = _reported_by_another(subject, by, access, step="confirm")
    _move(
        subject,
        outcome,
        OutcomeStatus.CONFIRMED,
        action="confirm",
        by=by,
        confirmed_by=by,
        confirmed_at=timezone.now(),
    )
    into_force(adapter, subject, outcome, by=by)
    return outcome


@own_transaction
def dispute_outcome(
    *, subject: OutcomeSubject, by, reason: str, access: ClubAccess | None = None
) -> Outcome:
    """Dispute the reported result; a scorer or an admin decides."""
    reason = _reason(reason)
    _adapter, subject, outcome = _reported_by_another(subject, by, access, step="dispute")
    _move(
        subject, outcome, OutcomeStatus.DISPUTED, action="dispute", by=by, why=reason, note=reason
    )
    return outcome


@own_transaction
def withdraw_outcome(*, subject: OutcomeSubject, by, access: ClubAccess | None = None) -> Outcome:
    """The reporter takes back a report nobody has confirmed yet."""
    _adapter, subject, who = _begin(subject, by, access)
    outcome = _open(
        subject, states=[OutcomeStatus.REPORTED], nothing=_("There is no report to withdraw.")
    )
    require("withdraw", who, subject, reported_by=outcome.reported_by_id)
    _move(subject, outcome, OutcomeStatus.WITHDRAWN, action="withdraw", by=by)
    return outcome


@own_transaction
def decide_outcome(
    *,
    subject: OutcomeSubject,
    by,
    uphold: bool,
    payload: dict | None = None,
    note: str = "",
    access: ClubAccess | None = None,
) -> Outcome | None:
    """A scorer or an admin decides a dispute: ``uphold`` the reported result, or reject it
    and put ``payload`` (if given) in force instead. Returns the outcome in force, if any."""
    adapter, subject, who = _begin(subject, by, access, step="decide")
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
        into_force(adapter, subject, disputed, by=by)
        return disputed
    _move(subject, disputed, OutcomeStatus.REJECTED, action="decide", by=by, why=note)
    if payload is None:
        return None
    checked = adapter.check(subject, payload, actor=who)
    outcome = _arrive(
        adapter,
        subject,
        checked,
        action="report",
        by=by,
        status=OutcomeStatus.CONFIRMED,
        note=note,
    )
    into_force(adapter, subject, outcome, by=by, checked=checked)
    return outcome


@own_transaction
def correct_outcome(
    *,
    subject: OutcomeSubject,
    payload: dict,
    by,
    reason: str,
    step: str = "correct",
    access: ClubAccess | None = None,
) -> Outcome:
    """Replace the result in force; the old one is kept as ``superseded``. ``step``: the
    row of the game's roles table that allows it (a game's own step may correct too)."""
    reason = _reason(reason)
    adapter, subject, who = _begin(subject, by, access, step=step)
    previous = _open(
        subject,
        states=[OutcomeStatus.CONFIRMED],
        nothing=_("There is no result in force to correct."),
    )
    previous.status = OutcomeStatus.SUPERSEDED
    previous.save(update_fields=["status"])
    checked = adapter.check(subject, payload, actor=who)
    outcome = _store(
        adapter,
        subject,
        checked,
        by=by,
        status=OutcomeStatus.CONFIRMED,
        supersedes=previous,
        note=reason,
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
    into_force(adapter, subject, outcome, previous=previous, by=by, checked=checked)
    return outcome


@transaction.atomic
def preview_correct_outcome(*, subject: OutcomeSubject, payload: dict, by) -> dict:
    """What :func:`correct_outcome` with ``payload`` would change, written nowhere: the same
    checks (role, a result in force, the payload), then the game's own preview."""
    adapter, subject, who = _begin(subject, by, step="correct")
    previous = _open(
        subject,
        states=[OutcomeStatus.CONFIRMED],
        nothing=_("There is no result in force to correct."),
    )
    checked = adapter.check(subject, payload, actor=who)
    return {
        "before": previous.payload,
        "after": checked.payload,
        **adapter.preview_correction(subject, checked, by=by),
    }


@own_transaction
def void_outcome(
    *,
    subject: OutcomeSubject,
    by,
    reason: str,
    step: str = "void",
    access: ClubAccess | None = None,
) -> Outcome:
    """Void the result in force: the subject has no result any more (history kept).
    ``step``: the row of the game's roles table that allows it."""
    reason = _reason(reason)
    adapter, subject, _who = _begin(subject, by, access, step=step)
    outcome = _open(
        subject, states=[OutcomeStatus.CONFIRMED], nothing=_("There is no result in force to void.")
    )
    _move(subject, outcome, OutcomeStatus.VOIDED, action="void", by=by, why=reason, note=reason)
    adapter.voided(subject, outcome, by=by)
    return outcome


def set_aside(
    subject: OutcomeSubject,
    *,
    by,
    note: str,
    data: dict | None = None,
    award: CheckedOutcome | None = None,
    at=None,
) -> Outcome | None:
    """A step on another subject took the ground from under this one's result (a game's
    cascade, such as a correction flowing through a bracket): called by the game applying
    its own plan, inside that step's transaction and under its lock, so the game's adapter
    is not told again. The result in force stops counting (``voided``, kept in the history)
    and a report waiting is ``rejected``; with ``award``, the admin's result of that same
    step comes into force instead (the old one ``superseded`` by it). Each move is written
    to the audit with ``note`` (the step's reason) and ``data`` (what caused it)."""
    current = list(
        subject.outcomes.select_for_update().filter(status__in=[OutcomeStatus.CONFIRMED, *OPEN])
    )
    in_force = next((o for o in current if o.status == OutcomeStatus.CONFIRMED), None)
    for outcome in current:
        if outcome.status in OPEN:
            to, action = OutcomeStatus.REJECTED, "set_aside"
        else:
            to = OutcomeStatus.SUPERSEDED if award is not None else OutcomeStatus.VOIDED
            action = "set_aside_result"
        _move(subject, outcome, to, action=action, by=by, why=note, data=data)
    if award is None:
        return None
    return _arrive(
        adapter_for(subject),
        subject,
        award,
        action="award",
        by=by,
        status=OutcomeStatus.CONFIRMED,
        at=at,
        supersedes=in_force,
        note=note,
        data=data,
    )


def allowed_steps(subject: OutcomeSubject, who: Actor, current: Outcome | None) -> set[str]:
    """The steps ``who`` may take on ``subject`` now, given its current outcome (the one in
    force, else the one waiting, else none): what the pages offer. The steps themselves
    check again, under the lock."""
    adapter = adapter_for(subject)
    status = current.status if current is not None else None
    mine = current is not None and current.reported_by_id == who.user.pk
    possible = {
        "report": current is None,
        "confirm": status == OutcomeStatus.REPORTED and not mine,
        "dispute": status == OutcomeStatus.REPORTED and not mine,
        "withdraw": status == OutcomeStatus.REPORTED,
        "decide": status == OutcomeStatus.DISPUTED,
        "correct": status == OutcomeStatus.CONFIRMED,
        "void": status == OutcomeStatus.CONFIRMED,
    }
    reporter = current.reported_by_id if current is not None else None
    return {
        step
        for step, now in possible.items()
        if now and step in adapter.steps and adapter.who(step).allows(who, reported_by=reporter)
    }


def take(
    step: str,
    *,
    subject: OutcomeSubject,
    by,
    payload: dict | None = None,
    reason: str = "",
    note: str = "",
    uphold: bool = False,
    access: ClubAccess | None = None,
    within: bool = False,
) -> Outcome | None:
    """Take ``step`` on ``subject`` with what its form or body said: the one dispatch of the
    API's actions and the pages' buttons (``payload`` for report, decide and correct;
    ``reason`` for dispute, correct and void; ``uphold`` and ``note`` for decide).
    ``access``: the caller's check of ``by`` in the subject's club for this request.
    ``within``: in the caller's transaction, which the step's refusal ends
    (``plumbing.transactions``); else in one of its own."""

    def run(step_function, **kwargs):
        return (step_function.within if within else step_function)(**kwargs)

    if step == "report":
        return run(report_outcome, subject=subject, payload=payload or {}, by=by, access=access)
    if step == "confirm":
        return run(confirm_outcome, subject=subject, by=by, access=access)
    if step == "dispute":
        return run(dispute_outcome, subject=subject, by=by, reason=reason, access=access)
    if step == "withdraw":
        return run(withdraw_outcome, subject=subject, by=by, access=access)
    if step == "decide":
        return run(
            decide_outcome,
            subject=subject,
            by=by,
            uphold=uphold,
            payload=payload,
            note=note,
            access=access,
        )
    if step == "correct":
        return run(
            correct_outcome,
            subject=subject,
            by=by,
            payload=payload or {},
            reason=reason,
            access=access,
        )
    if step == "void":
        return run(void_outcome, subject=subject, by=by, reason=reason, access=access)
    raise ValueError(f"no such step: {step!r}")


# --- The clubs' webhooks told ----------------------------------------------------------------
#
# A result in force (``result.confirmed``) or corrected (``result.corrected``), whatever the
# game, announced in the step's transaction (sent after it commits).


def result_data(adapter: GameAdapter, subject: OutcomeSubject, outcome: Outcome) -> dict:
    """What ``result.*`` deliveries carry (``clubs.webhooks.payloads.ResultData``)."""
    return {
        "game": adapter.game,
        "subject": {"id": subject.pk, "url": absolute(adapter.url(subject))},
        "subject_type": subject._meta.model_name,
        "result": {
            "id": outcome.pk,
            "status": outcome.status,
            "payload": outcome.payload,
            "reported_at": outcome.reported_at,
            "confirmed_at": outcome.confirmed_at,
            "supersedes": outcome.supersedes_id,
        },
        "players": [player_data(p) for p in adapter.players(subject)],
    }


def announce_result(
    adapter: GameAdapter, subject: OutcomeSubject, outcome: Outcome, *, corrected: bool
) -> None:
    event = "result.corrected" if corrected else "result.confirmed"
    if not listens(club_id=subject.club_id, event=event):
        return  # one query, and nothing read for nobody
    with translation.override(subject.club.language):
        data = result_data(adapter, subject, outcome)
    emit(club_id=subject.club_id, event=event, data=data)


# --- The records a result stores -------------------------------------------------------------
#
# Recording games: the rules engine checks the record before anything is written.


class _Current(Enum):
    CURRENT = "current"


#: ``house_rules`` not given: the club's current version, asked for. A game's own version
#: (None when the club had none as the game was made: the game's defaults) is passed as
#: it is, so a game keeps the rules it began with and nothing is asked again.
CURRENT = _Current.CURRENT
Version = HouseRuleSet | None | _Current


def _version(club: Club, game: str, house_rules: Version) -> HouseRuleSet | None:
    return club.current_house_rules(game) if house_rules is CURRENT else house_rules


def names_in(record: dict) -> list[str]:
    """Everyone the record names, once each: for Singapore, the dealer, the opponent, the
    coverers and the side bettors of its stake."""
    if record.get("game") == "singapore":
        stake = record.get("stake") or {}
        names = [stake.get("dealer"), stake.get("opponent"), *(stake.get("covers") or {})]
        for bet in stake.get("side_bets") or []:
            names += [bet.get("backer_of_winner"), bet.get("backer_of_loser")]
        return list(dict.fromkeys(n for n in names if n))
    return list(record.get("players") or [])


def check_game_record(
    *, club: Club, record: dict, house_rules: Version = CURRENT, field: str = "record"
) -> tuple[dict, dict, HouseRuleSet | None]:
    """Check ``record`` with the rules engine under ``house_rules`` (a version of the
    club's, None for the game's defaults; by default the current one, see
    :data:`CURRENT`): ``(the record as checked, the engine's result, the version used)``,
    or a ``ValidationError`` at ``field`` with the engine's errors."""
    if not isinstance(record, dict) or record.get("game") not in (
        "singapore",
        "sputo",
        "spazzumazz",
    ):
        raise ValidationError({field: _("The record must name its game.")})
    game = record["game"]
    current = _version(club, game, house_rules)
    if current is not None and (current.club_id != club.pk or current.game != game):
        raise ValidationError({"house_rules": _("These house rules are not this club's.")})
    rules = dict(current.rules) if current else as_dict(parse_house_rules(game, None))
    checked = {**record, "house_rules": rules}
    exit_code, result = check_record(checked)
    if exit_code != 0:
        # Each engine error in the user's language, with its code, where it is and the cards.
        raise rules_validation_error(result.get("errors", []), field=field)
    return checked, result, current


def record_game(**fields) -> GameRecord:
    """Check and store a game record with its seats, in a transaction of its own: see
    :func:`write_game_record`, whose arguments it takes."""
    with transaction.atomic():
        return write_game_record(**fields)


def write_game_record(
    *,
    club: Club,
    record: dict,
    players: dict[str, Player],
    recorded_by=None,
    played_at=None,
    season=None,
    house_rules: Version = CURRENT,
    outcome=None,
    result: dict | None = None,
) -> GameRecord:
    """Check ``record`` under ``house_rules`` (as :func:`check_game_record` takes it) and
    store it with its seats, as part of ``outcome`` if given.

    ``players`` maps each name used in the record to one of the club's players. A caller
    that has just checked ``record`` itself (its house rules included) passes the engine's
    ``result`` and the record is stored as it is, without a second check.

    It writes two rows in the caller's transaction (no savepoint of its own: the result
    cycle's steps store a result's records inside theirs); :func:`record_game` is the same
    in a transaction of its own.
    """
    if result is None:
        checked, result, current = check_game_record(
            club=club, record=record, house_rules=house_rules
        )
    else:
        checked, current = record, _version(club, record["game"], house_rules)
    game = checked["game"]
    for name in names_in(record):
        player = players.get(name)
        if player is None or player.club_id != club.pk:
            raise ValidationError(
                {"players": _("%(name)s is not a player of this club.") % {"name": name}}
            )
    order = result.get("finish_order") or []
    game_record = GameRecord.objects.create(
        club=club,
        season=season,
        game=game,
        played_at=played_at or timezone.now(),
        record=checked,
        result=result,
        house_rules=current,
        outcome=outcome,
        recorded_by=recorded_by,
    )
    GameSeat.objects.bulk_create(
        GameSeat(
            game_record=game_record,
            player=players[name],
            name_in_record=name,
            place=(order.index(name) + 1) if name in order else None,
        )
        for name in names_in(record)
    )
    return game_record
