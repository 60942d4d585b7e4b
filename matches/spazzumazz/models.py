"""Spazz'u'mazz games: the players in turn order; the finishing order is the game's outcome.

A game goes through the shared result cycle (``matches.outcomes``): reported by a player and
confirmed by another, or entered by a scorer; disputed, decided, corrected, voided. Its
outcome's payload is ``{"finish_order": [player ids, the idiot last], "log": bool}``; the
record behind it (the short result, or the full turn log) is a ``GameRecord`` checked by the
rules engine under the game's house-rules version.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy

from clubs.merge_policy import Drop, Move
from clubs.models import Club, ClubOwnedQuerySet, HouseRuleSet, Player, Season
from matches.results.models import OutcomeSubject

# The task that rebuilds the derived rows (statistics, ratings, the game's name) of players
# whose history a guest merge changed; called with ``club_id=`` and ``player_ids=``.
RECOMPUTE = "matches.spazzumazz.tasks.rebuild_spazzumazz_stats"


class SpazzumazzGame(OutcomeSubject):
    club = models.ForeignKey(
        Club,
        on_delete=models.CASCADE,
        related_name="spazzumazz_games",
        verbose_name=gettext_lazy("club"),
    )
    season = models.ForeignKey(
        Season,
        on_delete=models.RESTRICT,
        null=True,
        blank=True,
        related_name="spazzumazz_games",
        verbose_name=gettext_lazy("season"),
    )
    played_at = models.DateTimeField(gettext_lazy("played"), default=timezone.now)
    size = models.PositiveSmallIntegerField(gettext_lazy("number of players"), default=0)
    house_rules = models.ForeignKey(
        HouseRuleSet,
        on_delete=models.RESTRICT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=gettext_lazy("house rules version"),
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        related_name="+",
        verbose_name=gettext_lazy("entered by"),
    )
    created_at = models.DateTimeField(gettext_lazy("entered"), auto_now_add=True)

    objects = ClubOwnedQuerySet.as_manager()

    class Meta:
        ordering = ["-played_at", "-pk"]
        indexes = [models.Index(fields=["club", "played_at"])]
        verbose_name = gettext_lazy("Spazz'u'mazz game")
        verbose_name_plural = gettext_lazy("Spazz'u'mazz games")

    def __str__(self) -> str:
        return f"Spazz'u'mazz {self.played_at:%Y-%m-%d %H:%M}"

    def get_absolute_url(self) -> str:
        return reverse("spazzumazz:game", args=[self.club.slug, self.pk])

    def players_in_turn_order(self) -> list[Player]:
        """The players, who plays first first (one query)."""
        places = self.places.select_related("player").order_by("turn")
        return [place.player for place in places]


class SpazzumazzPlace(models.Model):
    """A player of a game, and their place in the turn order (0 plays first)."""

    game = models.ForeignKey(
        SpazzumazzGame,
        on_delete=models.CASCADE,
        related_name="places",
        verbose_name=gettext_lazy("game"),
    )
    player = models.ForeignKey(
        Player,
        on_delete=models.RESTRICT,
        related_name="spazzumazz_places",
        verbose_name=gettext_lazy("player"),
    )
    turn = models.PositiveSmallIntegerField(gettext_lazy("turn order"))
    place = models.PositiveSmallIntegerField(
        gettext_lazy("finishing place"),
        null=True,
        blank=True,
        help_text=gettext_lazy("1 went out first; the last is the idiot. Empty without a result."),
    )
    # The game's own time, kept on each of its places (written with them, and by the admin
    # when it changes the game's): a player's games in order are read from the index below,
    # a page of them at a time, however many the player has.
    played_at = models.DateTimeField(gettext_lazy("played"), default=timezone.now, editable=False)
    # And its size, so that the idiot (the place equal to the size) is read from the index.
    size = models.PositiveSmallIntegerField(gettext_lazy("players"), default=0, editable=False)

    player_merge = {
        "player": Move(
            recompute=(RECOMPUTE,),
            conflicts={
                "spazzumazz_player_once_per_game": gettext_lazy(
                    "%(source)s and %(target)s played in the same game: they cannot be merged."
                )
            },
        )
    }

    class Meta:
        ordering = ["game", "turn"]
        verbose_name = gettext_lazy("player in a game")
        verbose_name_plural = gettext_lazy("players in a game")
        # A player's places with a result, in the order played, with what the charts and
        # the statistics' count read of them: read from the index alone.
        indexes = [
            models.Index(
                fields=["player", "played_at", "game", "place", "size"],
                condition=models.Q(place__isnull=False),
                name="spazzumazz_place_by_player",
            )
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["game", "player"], name="spazzumazz_player_once_per_game"
            ),
            models.UniqueConstraint(fields=["game", "turn"], name="spazzumazz_turn_once_per_game"),
        ]

    def __str__(self) -> str:
        return f"{self.player} ({self.turn})"


# --- Derived rows: rebuilt from the places by ``matches.spazzumazz.stats`` ----------------------
#
# Everything below is precomputed from the games' places (results in force) by idempotent
# Celery tasks (``matches.spazzumazz.tasks``) and rebuilt from scratch by ``manage.py
# recompute_stats``. ``season`` null is the all-time row. A guest merge drops the guest's
# rows and queues the rebuild of the member's.

DERIVED = {"player": Drop(recompute=(RECOMPUTE,))}


class SpazzumazzStats(models.Model):
    """A player's idiot statistics in a club, for one season or all time (season empty)."""

    club = models.ForeignKey(
        Club, on_delete=models.CASCADE, related_name="+", verbose_name=gettext_lazy("club")
    )
    season = models.ForeignKey(
        Season,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=gettext_lazy("season"),
    )
    player = models.ForeignKey(
        Player,
        on_delete=models.CASCADE,
        related_name="spazzumazz_stats",
        verbose_name=gettext_lazy("player"),
    )
    games = models.PositiveIntegerField(gettext_lazy("games"))
    idiot = models.PositiveIntegerField(gettext_lazy("times idiot"))
    idiot_rate = models.FloatField(gettext_lazy("idiot rate"))
    place_sum = models.PositiveIntegerField(
        gettext_lazy("sum of places"), help_text=gettext_lazy("For the rules' tie-break.")
    )
    relative_place_sum = models.FloatField(gettext_lazy("sum of relative places"))
    average_place = models.FloatField(
        gettext_lazy("average place"),
        help_text=gettext_lazy(
            "Normalised so that games of any size compare: 0 always out first, 1 always the idiot."
        ),
    )
    current_streak = models.PositiveIntegerField(gettext_lazy("current idiot streak"))
    longest_streak = models.PositiveIntegerField(gettext_lazy("longest idiot streak"))
    last_played_at = models.DateTimeField(gettext_lazy("last played"))

    player_merge = DERIVED
    objects = ClubOwnedQuerySet.as_manager()

    class Meta:
        ordering = ["club", "season", "-idiot_rate"]
        verbose_name = gettext_lazy("idiot statistics")
        verbose_name_plural = gettext_lazy("idiot statistics")
        constraints = [
            models.UniqueConstraint(
                fields=["club", "season", "player"], name="spazzumazz_stats_once_per_season"
            ),
            models.UniqueConstraint(
                fields=["club", "player"],
                condition=models.Q(season__isnull=True),
                name="spazzumazz_stats_once_all_time",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player}: {self.idiot}/{self.games}"


class SpazzumazzHeadToHead(models.Model):
    """How often ``player`` finished behind ``opponent``, out of the games they shared."""

    club = models.ForeignKey(
        Club, on_delete=models.CASCADE, related_name="+", verbose_name=gettext_lazy("club")
    )
    season = models.ForeignKey(
        Season,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=gettext_lazy("season"),
    )
    player = models.ForeignKey(
        Player,
        on_delete=models.CASCADE,
        related_name="spazzumazz_head_to_head",
        verbose_name=gettext_lazy("player"),
    )
    opponent = models.ForeignKey(
        Player, on_delete=models.CASCADE, related_name="+", verbose_name=gettext_lazy("opponent")
    )
    games = models.PositiveIntegerField(gettext_lazy("shared games"))
    behind = models.PositiveIntegerField(gettext_lazy("finished behind"))

    player_merge = {
        "player": Drop(recompute=(RECOMPUTE,)),
        "opponent": Drop(recompute=(RECOMPUTE,)),
    }
    objects = ClubOwnedQuerySet.as_manager()

    class Meta:
        ordering = ["club", "season", "player", "-games"]
        verbose_name = gettext_lazy("head to head")
        verbose_name_plural = gettext_lazy("head to head")
        indexes = [models.Index(fields=["player", "season"])]
        constraints = [
            models.UniqueConstraint(
                fields=["club", "season", "player", "opponent"],
                name="spazzumazz_h2h_once_per_season",
            ),
            models.UniqueConstraint(
                fields=["club", "player", "opponent"],
                condition=models.Q(season__isnull=True),
                name="spazzumazz_h2h_once_all_time",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player} behind {self.opponent}: {self.behind}/{self.games}"


class SpazzumazzTitle(models.Model):
    """Who the club's game was named after ("Gioco di <name>"), from ``since`` to ``until``
    (empty: still is), for one season or all time (season empty)."""

    club = models.ForeignKey(
        Club, on_delete=models.CASCADE, related_name="+", verbose_name=gettext_lazy("club")
    )
    season = models.ForeignKey(
        Season,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=gettext_lazy("season"),
    )
    player = models.ForeignKey(
        Player,
        on_delete=models.CASCADE,
        related_name="spazzumazz_titles",
        verbose_name=gettext_lazy("player"),
    )
    since = models.DateTimeField(gettext_lazy("since"))
    until = models.DateTimeField(gettext_lazy("until"), null=True, blank=True)

    player_merge = DERIVED
    objects = ClubOwnedQuerySet.as_manager()

    class Meta:
        ordering = ["club", "season", "-since"]
        verbose_name = gettext_lazy("game name holder")
        verbose_name_plural = gettext_lazy("game name holders")
        indexes = [models.Index(fields=["club", "season", "since"])]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(until__isnull=True) | models.Q(until__gte=models.F("since")),
                name="spazzumazz_title_until_after_since",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player} ({self.since:%Y-%m-%d})"


class SpazzumazzBoard(models.Model):
    """A club's bookkeeping of its derived rows: stale from which game on, and under which
    ``idiot_min_games`` the game's name was computed. The tasks lock this row, so one
    rebuild of a club runs at a time."""

    club = models.OneToOneField(
        Club, on_delete=models.CASCADE, related_name="+", verbose_name=gettext_lazy("club")
    )
    stale = models.BooleanField(gettext_lazy("stale"), default=False)
    stale_from = models.DateTimeField(
        gettext_lazy("stale from"),
        null=True,
        blank=True,
        help_text=gettext_lazy("Empty while stale: from the first game."),
    )
    min_games = models.PositiveIntegerField(gettext_lazy("minimum games used"), default=0)
    rebuilt_at = models.DateTimeField(gettext_lazy("rebuilt"), null=True, blank=True)
    # The last game (by time, then id) the derived rows count: a game in force after it is
    # added by a delta; a change at or before it is replayed (``matches.spazzumazz.stats``).
    counted_at = models.DateTimeField(gettext_lazy("counted up to"), null=True, blank=True)
    counted_game_id = models.BigIntegerField(gettext_lazy("last game counted"), null=True)

    class Meta:
        verbose_name = gettext_lazy("Spazz'u'mazz statistics state")
        verbose_name_plural = gettext_lazy("Spazz'u'mazz statistics states")

    def __str__(self) -> str:
        return f"{self.club} ({'stale' if self.stale else 'up to date'})"
