"""A subject's audit trail in words: each step a sentence naming who took it, by the name
people know them by in the club (never a user name, never a step's code).

The cycle's steps are worded here; a game words its own (a bracket re-seated, a hand
allowed out of turn) in its adapter's ``audit_sentences``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.utils.translation import gettext_lazy as _

from clubs.names import name_in_club, names_of
from matches.results.adapters import adapter_for
from matches.results.models import AuditEntry, OutcomeStatus, OutcomeSubject

SENTENCES = {
    "report": _("%(who)s reported the result."),
    "confirm": _("%(who)s confirmed the result."),
    "dispute": _("%(who)s disputed the result."),
    "withdraw": _("%(who)s withdrew the report."),
    "correct": _("%(who)s corrected the result."),
    "void": _("%(who)s voided the result."),
}
DECIDED = {
    OutcomeStatus.CONFIRMED: _("%(who)s upheld the disputed result."),
    OutcomeStatus.REJECTED: _("%(who)s rejected the disputed result."),
}
SOMEONE = _("Someone")
OTHER = _("%(who)s changed it.")


@dataclass(frozen=True)
class Step:
    """One line of a subject's history."""

    at: datetime
    text: str
    note: str
    status: str  # the result's state after the step, in words ("" if none changed)
    action: str  # the step's code, for styling only (never shown)


def sentence(entry: AuditEntry, who: str, extra: dict) -> str:
    if entry.action == "decide" and entry.to_status in DECIDED:
        template = DECIDED[entry.to_status]
    else:
        template = extra.get(entry.action) or SENTENCES.get(entry.action) or OTHER
    return str(template) % {"who": who}


def history(subject: OutcomeSubject) -> list[Step]:
    """The subject's audit trail, oldest first, each step a sentence."""
    entries = list(subject.audit_entries.select_related("by").order_by("at", "pk"))
    names = names_of(subject.club_id, {e.by_id for e in entries if e.by_id})
    extra = adapter_for(subject).audit_sentences
    statuses = dict(OutcomeStatus.choices)
    steps = []
    for entry in entries:
        if entry.by_id is None:
            who = str(SOMEONE)
        else:
            who = name_in_club(subject.club_id, entry.by, names)
        steps.append(
            Step(
                at=entry.at,
                text=sentence(entry, who, extra),
                note=entry.note,
                status="" if entry.action == "correct" else str(statuses.get(entry.to_status, "")),
                action=entry.action,
            )
        )
    return steps


def reported_by(outcome) -> str:
    """Who reported ``outcome``, by the name they go by in the club ("" if nobody)."""
    if outcome is None or outcome.reported_by_id is None:
        return ""
    return name_in_club(outcome.club_id, outcome.reported_by)
