"""The result cycle's rows, shared by every game: outcomes, their audit trail, and the
checked records (``GameRecord``) with their seats.

A *subject* is whatever gets a result: a Sputo tournament match, a Singapore hand, a
Spazz'u'mazz game. Its model inherits :class:`OutcomeSubject` (fields and reads only); how
the cycle reaches the game is the game's adapter (``matches.results.adapters``). An
:class:`Outcome` is one result reported for a subject; the steps in
``matches.results.steps`` move it through its states, each under a lock on the subject and
written to the :class:`AuditEntry` trail:

    reported --confirm--> confirmed (in force)
    reported --dispute--> disputed --decide--> confirmed | rejected (or a new confirmed one)
    reported --withdraw--> withdrawn
    confirmed --correct--> superseded (and a new confirmed one, ``supersedes`` the old)
    confirmed --void--> voided

A scorer's or an admin's own report is confirmed at once. The database makes two outcomes
in force for one subject impossible (and two open ones: reported or disputed).
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.contenttypes.fields import GenericForeignKey, GenericRelation
from django.contrib.contenttypes.models import ContentType
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from clubs.merge_policy import Move
from clubs.models import Club, ClubOwnedQuerySet, Game, HouseRuleSet, Player, Season


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
        indexes = [
            models.Index(fields=["content_type", "object_id"]),
            # The night's confirmed results (the tonight screen's ticker), whatever the
            # club's history: ``matches/singapore/tonight.py``.
            models.Index(fields=["club", "confirmed_at"], name="outcome_club_confirmed"),
        ]
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


class OutcomeSubject(models.Model):
    """A model whose rows go through the result cycle: its outcomes and audit trail. How
    the cycle reaches the game (locking, players, checking a payload, what a result in
    force changes) is the game's adapter, registered in ``matches.results.adapters``."""

    outcomes = GenericRelation(Outcome)
    audit_entries = GenericRelation(AuditEntry)

    class Meta:
        abstract = True

    def outcome_in_force(self) -> Outcome | None:
        return self.outcomes.filter(status=OutcomeStatus.CONFIRMED).first()

    def open_outcome(self) -> Outcome | None:
        return self.outcomes.filter(status__in=OPEN).first()


class GameRecordQuerySet(ClubOwnedQuerySet):
    def of_player(self, player: Player):
        return self.filter(seats__player=player)

    def in_force(self):
        """Records that count: of an outcome in force, or recorded outside the result cycle
        (imports, the first demo data)."""
        return self.filter(Q(outcome__isnull=True) | Q(outcome__status=OutcomeStatus.CONFIRMED))


class GameRecord(models.Model):
    """One game (or Singapore hand) as its JSON record, checked by the rules engine."""

    club = models.ForeignKey(
        Club, on_delete=models.CASCADE, related_name="game_records", verbose_name=_("club")
    )
    season = models.ForeignKey(
        Season,
        on_delete=models.RESTRICT,  # a season with games cannot be deleted (its club can)
        null=True,
        blank=True,
        related_name="game_records",
        verbose_name=_("season"),
    )
    game = models.CharField(_("game"), max_length=12, choices=Game.choices)
    played_at = models.DateTimeField(_("played"))
    record = models.JSONField(_("record"))
    result = models.JSONField(_("result"))
    house_rules = models.ForeignKey(
        HouseRuleSet,
        on_delete=models.RESTRICT,
        null=True,
        blank=True,
        related_name="game_records",
        verbose_name=_("house rules version"),
    )
    outcome = models.ForeignKey(
        Outcome,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="game_records",
        verbose_name=_("outcome"),
    )
    recorded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        related_name="+",
        verbose_name=_("recorded by"),
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    objects = GameRecordQuerySet.as_manager()

    class Meta:
        ordering = ["-played_at"]
        # A club's latest games (the club page, the club nights) without sorting its history.
        indexes = [models.Index(fields=["club", "-played_at"], name="gamerecord_club_latest")]
        verbose_name = _("game record")
        verbose_name_plural = _("game records")

    def __str__(self) -> str:
        return f"{self.get_game_display()} {self.played_at:%Y-%m-%d %H:%M}"


class GameSeat(models.Model):
    """A player in a recorded game, with the name the record uses and their finishing place."""

    game_record = models.ForeignKey(
        GameRecord, on_delete=models.CASCADE, related_name="seats", verbose_name=_("game record")
    )
    player = models.ForeignKey(
        Player, on_delete=models.RESTRICT, related_name="seats", verbose_name=_("player")
    )
    name_in_record = models.CharField(_("name in the record"), max_length=80)
    place = models.PositiveSmallIntegerField(_("place"), null=True, blank=True)

    player_merge = {
        "player": Move(
            conflicts={
                "seat_player_once_per_game": _(
                    "%(source)s and %(target)s played in the same game: they cannot be merged."
                )
            }
        )
    }

    class Meta:
        ordering = ["game_record", "place"]
        verbose_name = _("seat")
        verbose_name_plural = _("seats")
        constraints = [
            models.UniqueConstraint(
                fields=["game_record", "player"], name="seat_player_once_per_game"
            ),
            models.UniqueConstraint(
                fields=["game_record", "name_in_record"], name="seat_name_once_per_game"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player} in {self.game_record}"
