"""The season's championship (*campionato sociale*): its rules, one version per change, and
the rows derived from the results (``matches.championship.standings``).

- :class:`Championship`: one version of a season's rules (which events count, their points
  by place, ``best_of``, ``min_events``, ``guests``). Rows are never edited: a change is a
  new version, and the season's standings are recomputed under it.
- :class:`SeasonEvent`: one event of the season that gave places, a Sputo tournament or a
  club night of one game; :class:`SeasonPlace`: a player's place at it.
- :class:`SeasonStanding`: a player's line in the standings, under one version: points,
  events, wins, and each result with its points and whether it counts.

Every derived row is changed by the event it belongs to (``standings.refresh_event``) and
can be rebuilt from scratch (``standings.rebuild_season``): the same rows.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from clubs.merge_policy import Drop
from clubs.models import Club, ClubOwnedQuerySet, Player, Season

RECOMPUTE = "matches.championship.tasks.rebuild_club_championships"
DERIVED = {"player": Drop(recompute=(RECOMPUTE,))}


class EventKind(models.TextChoices):
    SPUTO = "sputo", _("Sputo tournament")
    SINGAPORE_NIGHT = "singapore_night", _("Singapore night")
    SPAZZUMAZZ_NIGHT = "spazzumazz_night", _("Spazz'u'mazz night")


class Championship(models.Model):
    """One version of a season's championship rules. Rows are only ever added."""

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="+")
    season = models.ForeignKey(
        Season, on_delete=models.CASCADE, related_name="championships", verbose_name=_("season")
    )
    version = models.PositiveIntegerField(_("version"))
    rules = models.JSONField(_("rules"))
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("created by"),
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    objects = ClubOwnedQuerySet.as_manager()

    class Meta:
        ordering = ["season", "-version"]
        verbose_name = _("championship rules")
        verbose_name_plural = _("championship rules")
        constraints = [
            models.UniqueConstraint(
                fields=["season", "version"], name="championship_version_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.season} v{self.version}"


class SeasonEvent(models.Model):
    """An event of the season that gave places: a finished Sputo tournament, or the club
    night of ``day`` for one game (derived)."""

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="+")
    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(_("event"), max_length=20, choices=EventKind.choices)
    tournament = models.ForeignKey(
        "matches.Tournament", on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    day = models.DateField(_("date"))

    objects = ClubOwnedQuerySet.as_manager()

    class Meta:
        ordering = ["season", "day", "pk"]
        verbose_name = _("championship event")
        verbose_name_plural = _("championship events")
        constraints = [
            models.UniqueConstraint(
                fields=["season", "tournament"],
                condition=Q(tournament__isnull=False),
                name="season_event_tournament_once",
            ),
            models.UniqueConstraint(
                fields=["season", "kind", "day"],
                condition=Q(tournament__isnull=True),
                name="season_event_night_once",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} {self.day}"

    @property
    def public_id(self) -> int:
        """The event's id in the API: the tournament's for a tournament, else its own."""
        return self.tournament_id or self.pk


class SeasonPlace(models.Model):
    """A player's place at an event, with the games they played there (derived)."""

    event = models.ForeignKey(SeasonEvent, on_delete=models.CASCADE, related_name="places")
    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="+")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+")
    place = models.PositiveIntegerField(_("place"))
    games = models.PositiveIntegerField(_("games"), default=0)

    player_merge = DERIVED

    class Meta:
        ordering = ["event", "place", "player"]
        constraints = [
            models.UniqueConstraint(fields=["event", "player"], name="season_place_once")
        ]
        indexes = [models.Index(fields=["season", "player"], name="season_place_player")]

    def __str__(self) -> str:
        return f"{self.player_id} {self.place}° at {self.event_id}"


class SeasonStanding(models.Model):
    """A player's line in the season's standings under the version ``version`` (derived).

    ``results``: one dict per event, by date: ``event`` (kind), ``id``, ``date``, ``place``,
    ``points`` and ``counted``; ``best``: the counted results' points, the best first."""

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="+")
    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="standings")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+")
    version = models.PositiveIntegerField(_("version"))
    points = models.IntegerField(_("points"), default=0)
    events = models.PositiveIntegerField(_("events"), default=0)
    wins = models.PositiveIntegerField(_("wins"), default=0)
    best = models.JSONField(default=list)
    results = models.JSONField(default=list)

    player_merge = DERIVED
    objects = ClubOwnedQuerySet.as_manager()

    class Meta:
        ordering = ["season", "-points"]
        verbose_name = _("championship standing")
        verbose_name_plural = _("championship standings")
        constraints = [
            models.UniqueConstraint(fields=["season", "player"], name="season_standing_once")
        ]

    def __str__(self) -> str:
        return f"{self.player_id}: {self.points} ({self.season_id} v{self.version})"
