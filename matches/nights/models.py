"""Club nights the admin schedules, and who says they will come.

- :class:`ClubNight`: a night's start, what will be played, an optional cap;
- :class:`NightAnswer`: one person's answer (yes, no, maybe), by a member for themselves or
  by an admin for a guest. Past the cap a yes waits on the list, in the order answered,
  and moves in when a place frees up (``services.answer``).

Who was there is not stored: it is read from who played or sat at a table that night
(``attendance``), so it is never out of step with the results.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from clubs.merge_policy import Move
from clubs.models import Club, ClubOwnedQuerySet, Player


class Answer(models.TextChoices):
    YES = "yes", _("Yes, I'm coming")
    MAYBE = "maybe", _("Maybe")
    NO = "no", _("No")


class ClubNight(models.Model):
    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="club_nights")
    starts_at = models.DateTimeField(_("starts"))
    games = models.JSONField(_("games"), default=list)
    capacity = models.PositiveIntegerField(_("places"), null=True, blank=True)
    note = models.CharField(_("note"), max_length=200, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    cancelled_at = models.DateTimeField(_("cancelled"), null=True, blank=True)

    objects = ClubOwnedQuerySet.as_manager()

    class Meta:
        ordering = ["starts_at", "pk"]
        verbose_name = _("club night")
        verbose_name_plural = _("club nights")
        indexes = [models.Index(fields=["club", "starts_at"], name="club_night_club_start")]

    def __str__(self) -> str:
        return f"{self.club} {self.starts_at:%Y-%m-%d %H:%M}"

    def get_absolute_url(self) -> str:
        return reverse("nights:night", args=[self.club.slug, self.pk])


class NightAnswer(models.Model):
    night = models.ForeignKey(ClubNight, on_delete=models.CASCADE, related_name="answers")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+")
    answer = models.CharField(_("answer"), max_length=5, choices=Answer.choices)
    waiting = models.BooleanField(_("on the waiting list"), default=False)
    answered_at = models.DateTimeField(_("answered"))
    promoted_at = models.DateTimeField(_("moved in from the waiting list"), null=True, blank=True)
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )

    player_merge = {
        "player": Move(
            conflicts={
                "night_answer_once": _(
                    "%(source)s and %(target)s both answered for one club night: "
                    "they cannot be merged."
                )
            }
        )
    }

    class Meta:
        ordering = ["night", "answered_at", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["night", "player"], name="night_answer_once"),
            models.CheckConstraint(
                condition=Q(answer__in=["yes", "maybe", "no"]), name="night_answer_valid"
            ),
            models.CheckConstraint(
                condition=Q(waiting=False) | Q(answer="yes"), name="night_answer_waits_as_yes"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player_id} {self.answer} {self.night_id}"
