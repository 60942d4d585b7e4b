"""Singapore tables: a session of hands at one table, its seats in rotation order, the hands
(each a subject of the shared result cycle) and the players' precomputed statistics.

A **session** is one table on one evening: the club's house-rules version in force when it
opened, the money value of a point (none: points only), and the seats in rotation order
(seat ``i+1`` sits to the right of seat ``i``). People join at the end of the rotation,
leave, sit out and come back between hands; a seat is never deleted, so the page and the
rotation still know where a person who left sat.

A **hand** is the subject of the result cycle (``matches.outcomes``): its dealer and
opponent are fixed when it is recorded, everything else (the winner, the 20 cards, the
quotas, the covers, the side bets) is its outcome's payload, checked by the rules engine and
stored, with everyone in it seated, as the outcome's ``GameRecord``. A hand in force posts
one transaction to the ledger; a void posts its reversal, a correction the reversal and the
new posting (``matches.singapore.posting``).
"""

from __future__ import annotations

from decimal import Decimal

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from clubs.merge_policy import Drop, Move
from clubs.models import Club, ClubOwnedQuerySet, HouseRuleSet, Player, Role, Season
from matches.results.models import OutcomeSubject

POINTS = "points"

RECOMPUTE_STATS = ("matches.singapore.tasks.recompute_stats",)


def _today():
    return timezone.localdate()


# The areas of a club's pages a table's writes change (``plumbing.public_pages``): the
# tables and the game's other pages, and the table's own (its page, its sheet).
AREA = "singapore"
TABLE_AREA = "singapore-table:{session_id}"


class TableSessionQuerySet(ClubOwnedQuerySet):
    seen_from = Role.MEMBER  # a table's sheet says who owes whom: for the club's members

    def open(self):
        return self.filter(closed_at__isnull=True)


class TableSession(models.Model):
    club = models.ForeignKey(
        Club, on_delete=models.CASCADE, related_name="table_sessions", verbose_name=_("club")
    )
    season = models.ForeignKey(
        Season,
        on_delete=models.RESTRICT,
        null=True,
        blank=True,
        related_name="table_sessions",
        verbose_name=_("season"),
    )
    name = models.CharField(_("table"), max_length=80)
    date = models.DateField(_("date"), default=_today)
    house_rules = models.ForeignKey(
        HouseRuleSet,
        on_delete=models.RESTRICT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("house rules version"),
    )
    point_value = models.DecimalField(
        _("point value"),
        max_digits=10,
        decimal_places=2,
        null=True,
        blank=True,
        help_text=_("The money value of one point; empty: the table plays for points only."),
    )
    currency = models.CharField(_("currency"), max_length=3, blank=True)
    first_dealer = models.ForeignKey(
        Player,
        on_delete=models.RESTRICT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("first dealer"),
    )
    first_opponent = models.ForeignKey(
        Player,
        on_delete=models.RESTRICT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("first opponent"),
    )
    # How the first pair was chosen: {"seed": n, "seats": [player ids]} when drawn by lot
    # (``random.Random(seed).sample(seats, 2)`` gives it again), {} when set by the scorer.
    draw = models.JSONField(_("draw"), default=dict, blank=True)
    imported_from = models.CharField(_("imported from"), max_length=200, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        related_name="+",
        verbose_name=_("opened by"),
    )
    created_at = models.DateTimeField(_("opened"), auto_now_add=True)
    closed_at = models.DateTimeField(_("closed"), null=True, blank=True)

    objects = TableSessionQuerySet.as_manager()

    player_merge = {"first_dealer": Move(), "first_opponent": Move()}

    class Meta:
        ordering = ["-date", "-pk"]
        verbose_name = _("Singapore table")
        verbose_name_plural = _("Singapore tables")
        constraints = [
            models.CheckConstraint(
                condition=Q(point_value__isnull=True) | Q(point_value__gt=0),
                name="singapore_point_value_positive",
            ),
            models.CheckConstraint(
                condition=Q(point_value__isnull=True, currency="")
                | Q(point_value__isnull=False) & ~Q(currency=""),
                name="singapore_money_has_currency",
            ),
            models.CheckConstraint(
                condition=~Q(first_dealer=models.F("first_opponent")),
                name="singapore_first_pair_distinct",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} {self.date:%Y-%m-%d}"

    @property
    def unit(self) -> str:
        """The ledger's unit of this table: ``"points"`` or the currency code."""
        return self.currency if self.point_value is not None else POINTS

    @property
    def is_open(self) -> bool:
        return self.closed_at is None

    def amount(self, points: int) -> Decimal | None:
        """``points`` in money, or None for a points-only table."""
        if self.point_value is None:
            return None
        return self.point_value * points


class TableSeat(models.Model):
    """A person at a table, at ``position`` in the rotation order."""

    session = models.ForeignKey(
        TableSession, on_delete=models.CASCADE, related_name="seats", verbose_name=_("table")
    )
    player = models.ForeignKey(
        Player, on_delete=models.RESTRICT, related_name="singapore_seats", verbose_name=_("player")
    )
    position = models.PositiveIntegerField(_("position"))
    sitting_out = models.BooleanField(_("sitting out"), default=False)
    joined_at = models.DateTimeField(_("joined"), default=timezone.now)
    left_at = models.DateTimeField(_("left"), null=True, blank=True)

    player_merge = {
        "player": Move(
            conflicts={
                "singapore_seat_once_per_session": _(
                    "%(source)s and %(target)s sat at the same table: they cannot be merged."
                )
            }
        )
    }

    class Meta:
        ordering = ["session", "position"]
        verbose_name = _("seat")
        verbose_name_plural = _("seats")
        constraints = [
            models.UniqueConstraint(
                fields=["session", "player"], name="singapore_seat_once_per_session"
            ),
            models.UniqueConstraint(
                fields=["session", "position"], name="singapore_seat_position_once"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player} @ {self.session}"

    @property
    def has_left(self) -> bool:
        return self.left_at is not None

    @property
    def plays(self) -> bool:
        """In the rotation now: seated, not sitting out."""
        return self.left_at is None and not self.sitting_out


class Hand(OutcomeSubject):
    """One hand of a session; its result goes through the shared result cycle."""

    session = models.ForeignKey(
        TableSession, on_delete=models.CASCADE, related_name="hands", verbose_name=_("table")
    )
    # The club and season of the session, here because the result cycle reads them.
    club = models.ForeignKey(
        Club, on_delete=models.CASCADE, related_name="singapore_hands", verbose_name=_("club")
    )
    season = models.ForeignKey(
        Season,
        on_delete=models.RESTRICT,
        null=True,
        blank=True,
        related_name="singapore_hands",
        verbose_name=_("season"),
    )
    number = models.PositiveIntegerField(_("hand"))
    dealer = models.ForeignKey(
        Player, on_delete=models.RESTRICT, related_name="+", verbose_name=_("dealer")
    )
    opponent = models.ForeignKey(
        Player, on_delete=models.RESTRICT, related_name="+", verbose_name=_("opponent")
    )
    played_at = models.DateTimeField(_("played"), default=timezone.now)
    out_of_turn = models.BooleanField(
        _("out of turn"),
        default=False,
        help_text=_(
            "Recorded out of the rotation's turn: allowed by an admin with a reason, or "
            "imported by an admin who allowed lines out of turn."
        ),
    )
    # An idempotency key: an API client's ``Idempotency-Key`` (whole), or an imported line's.
    client_key = models.CharField(_("idempotency key"), max_length=255, blank=True)
    # A hash of the request sent with ``client_key`` (``plumbing.once.sent.fingerprint``):
    # the same key with another request is refused. Empty for an imported line.
    client_key_hash = models.CharField(_("request hash"), max_length=64, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        related_name="+",
        verbose_name=_("entered by"),
    )
    created_at = models.DateTimeField(_("entered"), auto_now_add=True)

    objects = ClubOwnedQuerySet.as_manager()

    player_merge = {"dealer": Move(), "opponent": Move()}

    class Meta:
        ordering = ["session", "number"]
        verbose_name = _("Singapore hand")
        verbose_name_plural = _("Singapore hands")
        constraints = [
            models.UniqueConstraint(fields=["session", "number"], name="singapore_hand_number"),
            models.UniqueConstraint(
                fields=["session", "client_key"],
                condition=~Q(client_key=""),
                name="singapore_hand_key_once",
            ),
            models.CheckConstraint(
                condition=~Q(dealer=models.F("opponent")), name="singapore_hand_two_players"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.session} #{self.number}"

    def get_absolute_url(self) -> str:
        return reverse("singapore:hand", args=[self.club.slug, self.session_id, self.pk])


class SingaporeStatsQuerySet(ClubOwnedQuerySet):
    seen_from = Role.MEMBER


class SingaporeStats(models.Model):
    """One player's Singapore figures in one season (``season`` empty: hands played outside
    any season), rebuilt from the hands in force by ``matches.singapore.tasks``."""

    club = models.ForeignKey(
        Club, on_delete=models.CASCADE, related_name="singapore_stats", verbose_name=_("club")
    )
    season = models.ForeignKey(
        Season,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="singapore_stats",
        verbose_name=_("season"),
    )
    player = models.ForeignKey(
        Player, on_delete=models.CASCADE, related_name="singapore_stats", verbose_name=_("player")
    )
    hands_played = models.PositiveIntegerField(_("hands played"), default=0)
    hands_won = models.PositiveIntegerField(_("hands won"), default=0)
    net_points = models.BigIntegerField(_("net points"), default=0)
    # Money of the tables played in the club's currency (``currency``).
    net_money = models.DecimalField(_("net money"), max_digits=14, decimal_places=2, default=0)
    currency = models.CharField(_("currency"), max_length=3, blank=True)
    won_simple = models.PositiveIntegerField(_("simple closings"), default=0)
    won_double = models.PositiveIntegerField(_("double closings"), default=0)
    won_quintuple = models.PositiveIntegerField(_("quintuple closings"), default=0)
    won_quadruple = models.PositiveIntegerField(_("closings ×4 (one joker)"), default=0)
    won_triple = models.PositiveIntegerField(_("closings ×3 (two jokers)"), default=0)
    biggest_hand = models.PositiveIntegerField(_("biggest hand"), default=0)
    quotas_won = models.PositiveIntegerField(_("quotas won"), default=0)
    quotas_lost = models.PositiveIntegerField(_("quotas lost"), default=0)
    # Running balance after each of the player's hands of the season: [[iso time, points]].
    history = models.JSONField(_("balance history"), default=list, blank=True)
    # The last hand the row counts (by time, then the record's id): a hand in force after it
    # is added as a delta (``matches.singapore.stats``).
    last_played_at = models.DateTimeField(_("last hand counted"), null=True, blank=True)
    last_record_id = models.BigIntegerField(_("last record counted"), null=True, blank=True)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    objects = SingaporeStatsQuerySet.as_manager()

    player_merge = {"player": Drop(recompute=RECOMPUTE_STATS)}

    class Meta:
        ordering = ["club", "season", "-net_points"]
        verbose_name = _("Singapore statistics")
        verbose_name_plural = _("Singapore statistics")
        constraints = [
            models.UniqueConstraint(
                fields=["club", "season", "player"],
                condition=Q(season__isnull=False),
                name="singapore_stats_once_per_season",
            ),
            models.UniqueConstraint(
                fields=["club", "player"],
                condition=Q(season__isnull=True),
                name="singapore_stats_once_outside_seasons",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player} ({self.season or '-'})"
