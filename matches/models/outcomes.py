"""The result cycle shared by the three games: outcomes and their audit trail.

A *subject* is whatever gets a result: a Sputo tournament match, a Singapore hand, a
Spazz'u'mazz game. Its models inherit :class:`OutcomeSubject`. An :class:`Outcome` is one
result reported for a subject; the services in ``matches.outcomes`` move it through its
states, each step under a lock on the subject and written to the :class:`AuditEntry` trail:

    reported --confirm--> confirmed (in force)
    reported --dispute--> disputed --decide--> confirmed | rejected (or a new confirmed one)
    reported --withdraw--> withdrawn
    confirmed --correct--> superseded (and a new confirmed one, ``supersedes`` the old)
    confirmed --void--> voided

A scorer's or an admin's own report is confirmed at once. The database makes two outcomes
in force for one subject impossible (and two open ones: reported or disputed).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from django.conf import settings
from django.contrib.contenttypes.fields import GenericForeignKey, GenericRelation
from django.contrib.contenttypes.models import ContentType
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from clubs.models import Club, ClubOwnedQuerySet, Player, Role


class OutcomeStatus(models.TextChoices):
    REPORTED = "reported", _("Waiting for confirmation")
    DISPUTED = "disputed", _("Disputed")
    CONFIRMED = "confirmed", _("Confirmed")
    SUPERSEDED = "superseded", _("Corrected")
    REJECTED = "rejected", _("Rejected")
    VOIDED = "voided", _("Voided")
    WITHDRAWN = "withdrawn", _("Withdrawn")


OPEN = [OutcomeStatus.REPORTED, OutcomeStatus.DISPUTED]


class Outcome(models.Model):
    """One result reported for a subject, in the subject game's own terms (``payload``)."""

    club = models.ForeignKey(
        Club, on_delete=models.CASCADE, related_name="outcomes", verbose_name=_("club")
    )
    content_type = models.ForeignKey(ContentType, on_delete=models.CASCADE)
    object_id = models.PositiveBigIntegerField()
    subject = GenericForeignKey("content_type", "object_id")
    status = models.CharField(_("status"), max_length=12, choices=OutcomeStatus.choices)
    payload = models.JSONField(_("result"))
    detail = models.JSONField(_("details"), default=dict, blank=True)
    reported_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        related_name="+",
        verbose_name=_("reported by"),
    )
    reported_at = models.DateTimeField(_("reported"), default=timezone.now)
    confirmed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("confirmed by"),
    )
    confirmed_at = models.DateTimeField(_("confirmed"), null=True, blank=True)
    supersedes = models.OneToOneField(
        "self",
        on_delete=models.RESTRICT,  # the history stays; a club deleted takes it all
        null=True,
        blank=True,
        related_name="superseded_by",
        verbose_name=_("corrects"),
    )
    note = models.TextField(_("note"), blank=True, max_length=1000)

    objects = ClubOwnedQuerySet.as_manager()

    class Meta:
        ordering = ["reported_at", "pk"]
        verbose_name = _("outcome")
        verbose_name_plural = _("outcomes")
        indexes = [models.Index(fields=["content_type", "object_id"])]
        constraints = [
            models.UniqueConstraint(
                fields=["content_type", "object_id"],
                condition=Q(status=OutcomeStatus.CONFIRMED),
                name="outcome_one_in_force",
                violation_error_message=_("This already has a result in force."),
            ),
            models.UniqueConstraint(
                fields=["content_type", "object_id"],
                condition=Q(status__in=OPEN),
                name="outcome_one_open",
                violation_error_message=_("This already has a result waiting."),
            ),
            models.CheckConstraint(
                condition=Q(status__in=OutcomeStatus.values), name="outcome_status_valid"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_status_display()} #{self.pk}"

    @property
    def in_force(self) -> bool:
        return self.status == OutcomeStatus.CONFIRMED

    @property
    def is_open(self) -> bool:
        return self.status in OPEN


class AuditEntry(models.Model):
    """One step of a subject's history: who did what, when, from which state to which.

    Rows are only ever added. The result cycle writes one per step; game features add their
    own actions (a bracket re-seated, a hand out of turn allowed by a scorer...).
    """

    club = models.ForeignKey(
        Club, on_delete=models.CASCADE, related_name="audit_entries", verbose_name=_("club")
    )
    content_type = models.ForeignKey(ContentType, on_delete=models.CASCADE)
    object_id = models.PositiveBigIntegerField()
    subject = GenericForeignKey("content_type", "object_id")
    outcome = models.ForeignKey(
        Outcome,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="audit_entries",
        verbose_name=_("outcome"),
    )
    action = models.CharField(_("action"), max_length=30)
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        related_name="+",
        verbose_name=_("by"),
    )
    at = models.DateTimeField(_("when"), default=timezone.now)
    from_status = models.CharField(_("from"), max_length=12, blank=True)
    to_status = models.CharField(_("to"), max_length=12, blank=True)
    note = models.TextField(_("note"), blank=True)
    data = models.JSONField(_("data"), default=dict, blank=True)

    objects = ClubOwnedQuerySet.as_manager()

    class Meta:
        ordering = ["at", "pk"]
        verbose_name = _("audit entry")
        verbose_name_plural = _("audit trail")
        indexes = [models.Index(fields=["content_type", "object_id", "at"])]

    def __str__(self) -> str:
        return f"{self.action} {self.from_status}->{self.to_status} ({self.at:%Y-%m-%d %H:%M})"


@dataclass
class CheckedRecord:
    """A record the rules engine will check, and the club player behind each of its names.

    A subject that has already checked the record (with its house rules in ``record``)
    passes the engine's ``result`` on, and it is stored without a second check."""

    record: dict
    players: dict[str, Player]
    result: dict | None = None


@dataclass
class CheckedOutcome:
    """A subject's verdict on a reported result: the canonical payload, the records to
    store as ``GameRecord``s (checked by the engine when stored), and details to keep."""

    payload: dict
    records: list[CheckedRecord] = field(default_factory=list)
    detail: dict = field(default_factory=dict)


class OutcomeSubject(models.Model):
    """What a model implements to go through the result cycle (``matches.outcomes``).

    The services call these hooks under a lock on the subject's row, inside the
    transaction of the step; raising ``ValidationError`` (a 400) or ``OutcomeConflict``
    (a 409) undoes the whole step.
    """

    outcomes = GenericRelation(Outcome)
    audit_entries = GenericRelation(AuditEntry)

    # Who may correct or void a result in force, at least.
    correct_role: ClassVar[str] = Role.ADMIN

    class Meta:
        abstract = True

    # --- Hooks ---------------------------------------------------------------------------

    def locked(self):
        """This subject's row again, locked for one step of the cycle (``select_for_update``).
        A subject whose steps also write other rows (a bracket's later matches) locks what
        those steps share first, in the same order every time."""
        return type(self)._default_manager.select_for_update().get(pk=self.pk)

    def outcome_players(self) -> list[Player]:
        """The players of this game: each may report; another may confirm."""
        raise NotImplementedError

    def ready_for_outcome(self) -> None:
        """Raise ``OutcomeConflict`` when no result can be reported now (players unknown,
        the event not running...)."""

    def check_outcome(self, payload: dict, *, by) -> CheckedOutcome:
        """Validate a reported result (``ValidationError`` naming the field otherwise)."""
        raise NotImplementedError

    def outcome_applied(self, outcome: Outcome, *, previous: Outcome | None, by) -> None:
        """``outcome`` came into force (``previous`` is the one a correction replaced)."""

    def outcome_withdrawn(self, outcome: Outcome, *, by) -> None:
        """``outcome`` was voided: undo its effects."""

    def preview_correction(self, checked: CheckedOutcome, *, by) -> dict:
        """What correcting the result in force to ``checked`` would change, as data, without
        writing anything (``matches.outcomes.preview_correct_outcome``). The subject lists
        exactly what ``outcome_applied`` will then do."""
        return {}

    def house_rules_version(self):
        """The ``HouseRuleSet`` the records are checked under (None: the club's current)."""
        return None

    # --- Reads ---------------------------------------------------------------------------

    def outcome_in_force(self) -> Outcome | None:
        return self.outcomes.filter(status=OutcomeStatus.CONFIRMED).first()

    def open_outcome(self) -> Outcome | None:
        return self.outcomes.filter(status__in=OPEN).first()
