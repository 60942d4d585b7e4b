"""Recorded games. Each keeps the house rules version it was played under."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from clubs.merge_policy import Move
from clubs.models import Club, ClubOwnedQuerySet, Game, HouseRuleSet, Player, Season
from matches.models.outcomes import Outcome, OutcomeStatus


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
