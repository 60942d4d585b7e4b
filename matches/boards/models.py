"""The boards' own rows: players' ratings with their history, and the end-of-evening
reports sent.

Player ratings, one system per game, with their history (precomputed rows):

- Sputo: Glicko-2 (``mu`` the rating, ``sigma`` the rating deviation, ``volatility``).
- Spazz'u'mazz: OpenSkill Plackett-Luce (``mu``, ``sigma``; no volatility).

``PlayerRating`` is the current rating of a player in a club for a game; ``RatingChange``
is one row per rated outcome (a Sputo match, a Spazz'u'mazz game), in the order they were
rated, so that charts can draw the history and a recomputation from scratch can be compared
with the incremental rows. Both are derived data: the game features rebuild them from the
outcomes in force (idempotent Celery tasks after commit, and a management command).

``display`` is the conservative figure shown to people: Glicko-2 ``mu - 2 * sigma``,
OpenSkill ``mu - 3 * sigma``; a rating is *provisional* below a number of games each game
sets.
"""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _

from clubs.merge_policy import Drop
from clubs.models import Club, ClubOwnedQuerySet, Game, Player
from matches.results.models import Outcome


class PlayerRating(models.Model):
    club = models.ForeignKey(
        Club, on_delete=models.CASCADE, related_name="ratings", verbose_name=_("club")
    )
    player = models.ForeignKey(
        Player, on_delete=models.CASCADE, related_name="ratings", verbose_name=_("player")
    )
    game = models.CharField(_("game"), max_length=12, choices=Game.choices)
    mu = models.FloatField(_("rating"))
    sigma = models.FloatField(_("uncertainty"))
    volatility = models.FloatField(_("volatility"), null=True, blank=True)
    display = models.FloatField(_("conservative rating"))
    games = models.PositiveIntegerField(_("rated games"), default=0)
    provisional = models.BooleanField(_("provisional"), default=True)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    # Derived from the outcomes: the merged guest's rows go, and the game's recomputation
    # task (named by the game's own models' ``Move(recompute=...)``) rebuilds the member's.
    player_merge = {"player": Drop()}

    objects = ClubOwnedQuerySet.as_manager()

    class Meta:
        ordering = ["club", "game", "-display"]
        verbose_name = _("rating")
        verbose_name_plural = _("ratings")
        constraints = [
            models.UniqueConstraint(
                fields=["club", "game", "player"], name="rating_once_per_player_and_game"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player} {self.get_game_display()} {self.display:.0f}"


class RatingChange(models.Model):
    club = models.ForeignKey(
        Club, on_delete=models.CASCADE, related_name="rating_changes", verbose_name=_("club")
    )
    player = models.ForeignKey(
        Player, on_delete=models.CASCADE, related_name="rating_changes", verbose_name=_("player")
    )
    game = models.CharField(_("game"), max_length=12, choices=Game.choices)
    outcome = models.ForeignKey(
        Outcome,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="rating_changes",
        verbose_name=_("result"),
    )
    sequence = models.PositiveIntegerField(
        _("sequence"), help_text=_("The order in which the club's results of this game were rated.")
    )
    at = models.DateTimeField(_("played"))
    mu = models.FloatField(_("rating"))
    sigma = models.FloatField(_("uncertainty"))
    volatility = models.FloatField(_("volatility"), null=True, blank=True)
    display = models.FloatField(_("conservative rating"))
    delta = models.FloatField(_("change of the conservative rating"))

    player_merge = {"player": Drop()}

    objects = ClubOwnedQuerySet.as_manager()

    class Meta:
        ordering = ["club", "game", "sequence", "player"]
        verbose_name = _("rating change")
        verbose_name_plural = _("rating history")
        indexes = [models.Index(fields=["player", "game", "sequence"])]
        constraints = [
            models.UniqueConstraint(
                fields=["club", "game", "sequence", "player"],
                name="rating_change_once_per_player_and_result",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player} {self.get_game_display()} #{self.sequence}: {self.display:.0f}"


class NightReport(models.Model):
    """A club night's report, e-mailed once: the unique row makes a second send a no-op."""

    club = models.ForeignKey(
        Club, on_delete=models.CASCADE, related_name="+", verbose_name=_("club")
    )
    day = models.DateField(_("club night"))
    sent_at = models.DateTimeField(_("sent"), null=True, blank=True)
    recipients = models.PositiveIntegerField(_("recipients"), default=0)

    objects = ClubOwnedQuerySet.as_manager()

    class Meta:
        ordering = ["club", "-day"]
        verbose_name = _("end-of-evening report")
        verbose_name_plural = _("end-of-evening reports")
        constraints = [
            models.UniqueConstraint(fields=["club", "day"], name="night_report_once_per_night")
        ]

    def __str__(self) -> str:
        return f"{self.club} {self.day}"
