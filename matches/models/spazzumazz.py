"""Spazz'u'mazz games: the players in turn order; the finishing order is the game's outcome.

A game goes through the shared result cycle (``matches.outcomes``): reported by a player and
confirmed by another, or entered by a scorer; disputed, decided, corrected, voided. Its
outcome's payload is ``{"finish_order": [player ids, the idiot last], "log": bool}``; the
record behind it (the short result, or the full turn log) is a ``GameRecord`` checked by the
rules engine under the game's house-rules version.
"""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from clubs.merge_policy import Move
from clubs.models import Club, ClubOwnedQuerySet, HouseRuleSet, Player, Role, Season
from matches.models.outcomes import CheckedOutcome, CheckedRecord, OutcomeSubject


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

    correct_role = Role.SCORER

    objects = ClubOwnedQuerySet.as_manager()

    class Meta:
        ordering = ["-played_at", "-pk"]
        verbose_name = gettext_lazy("Spazz'u'mazz game")
        verbose_name_plural = gettext_lazy("Spazz'u'mazz games")

    def __str__(self) -> str:
        return f"Spazz'u'mazz {self.played_at:%Y-%m-%d %H:%M}"

    def players_in_turn_order(self) -> list[Player]:
        return [place.player for place in self.places.select_related("player").order_by("turn")]

    # --- The result cycle's hooks --------------------------------------------------------

    def outcome_players(self) -> list[Player]:
        return self.players_in_turn_order()

    def house_rules_version(self):
        return self.house_rules

    def check_outcome(self, payload: dict, *, by) -> CheckedOutcome:
        from matches.services import check_game_record

        players = self.players_in_turn_order()
        names = [p.display_name for p in players]
        by_name = {p.display_name: p for p in players}
        by_id = {p.pk: p for p in players}
        if not isinstance(payload, dict):
            raise ValidationError({"finish_order": _("Give the finishing order or a record.")})
        record = payload.get("record")
        if record is not None:
            if not isinstance(record, dict):
                raise ValidationError({"record": _("A record is a JSON object.")})
            record = {**record, "game": "spazzumazz"}
            if record.get("players") != names:
                raise ValidationError(
                    {
                        "record": _(
                            "The record's players must be this game's, in turn order: %(names)s."
                        )
                        % {"names": ", ".join(names)}
                    }
                )
            _checked, result, _version = check_game_record(
                club=self.club, record=record, house_rules=self.house_rules
            )
            order = [by_name[name] for name in result["finish_order"]]
        else:
            ids = payload.get("finish_order")
            if (
                not isinstance(ids, list)
                or any(isinstance(i, bool) or not isinstance(i, int) for i in ids)
                or sorted(ids) != sorted(by_id)
            ):
                raise ValidationError(
                    {
                        "finish_order": _(
                            "List every player of the game once, in the order they went "
                            "out, the idiot last."
                        )
                    }
                )
            order = [by_id[i] for i in ids]
            record = {
                "game": "spazzumazz",
                "players": names,
                "finish_order": [p.display_name for p in order],
            }
        return CheckedOutcome(
            payload={"finish_order": [p.pk for p in order], "log": "turns" in record},
            records=[CheckedRecord(record=record, players=by_name)],
        )


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

    player_merge = {
        "player": Move(
            conflicts={
                "spazzumazz_player_once_per_game": gettext_lazy(
                    "%(source)s and %(target)s played in the same game: they cannot be merged."
                )
            }
        )
    }

    class Meta:
        ordering = ["game", "turn"]
        verbose_name = gettext_lazy("player in a game")
        verbose_name_plural = gettext_lazy("players in a game")
        constraints = [
            models.UniqueConstraint(
                fields=["game", "player"], name="spazzumazz_player_once_per_game"
            ),
            models.UniqueConstraint(fields=["game", "turn"], name="spazzumazz_turn_once_per_game"),
        ]

    def __str__(self) -> str:
        return f"{self.player} ({self.turn})"
