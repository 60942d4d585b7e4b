"""What the result cycle leaves waiting for people, kept in their inbox
(``clubs/inbox``): a reported result waits for the other players' confirmation, a dispute for
the club's scorers and admins, and whatever the game adds (``GameAdapter.waiting``).

Every step queues :func:`after_step` through the outbox (``steps._audit``); it runs after
the commit, moves the club's tonight screen (``matches.boards.live``), has the season's
championship follow the step's event (``matches.championship``) and brings the inbox of
the step's subject up to date, so that a result confirmed from one phone leaves every other
phone's inbox at once.
"""

from __future__ import annotations

from celery import shared_task
from django.apps import apps
from django.contrib.contenttypes.models import ContentType

from clubs.access import has_role
from clubs.inbox.models import Kind
from clubs.inbox.services import Waiting, sync
from clubs.models import Membership, Role
from clubs.names import name_in_club
from matches.boards import live
from matches.championship import tasks as championship
from matches.results.adapters import adapter_for
from matches.results.models import OPEN, AuditEntry, Outcome, OutcomeStatus, OutcomeSubject

RESULT_KINDS = frozenset({Kind.CONFIRM_RESULT, Kind.DECIDE_DISPUTE})


def key_of(subject) -> str:
    return f"{subject._meta.label_lower}:{subject.pk}"


def _open_outcome(subject: OutcomeSubject) -> Outcome | None:
    return (
        Outcome.objects.filter(
            content_type=ContentType.objects.get_for_model(subject),
            object_id=subject.pk,
            status__in=OPEN,
        )
        .select_related("reported_by")
        .order_by("-pk")
        .first()
    )


def _disputed_by(subject: OutcomeSubject, outcome: Outcome) -> int | None:
    row = (
        AuditEntry.objects.filter(outcome=outcome, action="dispute")
        .order_by("-pk")
        .values_list("by", flat=True)
        .first()
    )
    return row


def waiting_on(subject: OutcomeSubject) -> list[Waiting]:
    """Who the cycle waits for on ``subject`` now."""
    adapter = adapter_for(subject)
    outcome = _open_outcome(subject)
    if outcome is None:
        return []
    what = str(subject)
    url = subject.get_absolute_url()
    if outcome.status == OutcomeStatus.REPORTED and "confirm" in adapter.steps:
        reporter = outcome.reported_by
        players = [p for p in adapter.players(subject) if p.user_id]
        names = {p.user_id: p.display_name for p in players}
        # The name the reporter goes by in the club (a scorer need not play), never a login.
        who = names.get(outcome.reported_by_id) or (
            name_in_club(subject.club_id, reporter) if reporter else "?"
        )
        return [
            Waiting(p.user_id, Kind.CONFIRM_RESULT, url, {"what": what, "who": who})
            for p in players
            if p.user_id != outcome.reported_by_id
        ]
    if outcome.status == OutcomeStatus.DISPUTED and "decide" in adapter.steps:
        disputer = _disputed_by(subject, outcome)
        deciders = Membership.objects.filter(club_id=subject.club_id).values_list("user", "role")
        return [
            Waiting(user, Kind.DECIDE_DISPUTE, url, {"what": what})
            for user, role in deciders
            if has_role(role, adapter.who("decide").role or Role.SCORER) and user != disputer
        ]
    return []


def sync_subject(subject: OutcomeSubject) -> None:
    adapter = adapter_for(subject)
    sync(
        key=key_of(subject),
        club_id=subject.club_id,
        kinds=set(RESULT_KINDS | adapter.inbox_kinds),
        waiting=waiting_on(subject) + adapter.waiting(subject),
    )


@shared_task(name="matches.results.after_step", acks_late=True)
def after_step(club_id: int, model: str, object_id: int) -> str:
    """After a step committed: the tonight screen moves, the inboxes and the season's
    championship follow. Idempotent."""
    live.publish(club_id)
    found = apps.get_model(model)._default_manager.filter(pk=object_id).first()
    if found is None:
        return "gone"
    championship.follow(found)  # the event of a result: its places, its players' lines
    try:
        adapter = adapter_for(found)
    except LookupError:  # a subject without results (a tournament): its own inbox_subjects
        subjects = list(getattr(found, "inbox_subjects", lambda: [])())
        own = getattr(found, "inbox_waiting", None)
        if own is not None:  # what waits on the thing itself (a tournament's check-in)
            sync(
                key=key_of(found),
                club_id=found.club_id,
                kinds={Kind.CHECK_IN, Kind.OFF_WAITING_LIST},
                waiting=own(),
            )
    else:
        subjects = adapter.inbox_subjects(found)
    for subject in subjects:
        sync_subject(subject)
    return f"{len(subjects)} synced"
