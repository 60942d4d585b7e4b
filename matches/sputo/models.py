"""Sputo knockout tournaments: the tournament, its entrants, its matches.

A match is a subject of the shared result cycle (``matches.outcomes``): a result is
reported, confirmed, disputed, decided, corrected. Its outcome's payload is::

    {"result": "played" | "walkover" | "retirement" | "double_forfeit" | "awarded",
     "winner": player id or null,
     "games": [{"winner": player id, "cards_left": n, "log": bool}, ...]}

and each game is a ``GameRecord`` checked by the rules engine under the tournament's
house-rules version. ``winner`` and ``result`` on the match mirror the outcome in force (or
the bracket's own decisions: byes, and walkovers after a double forfeit); what follows from
them (who sits where in later rounds) is ``matches.sputo.bracket``'s business.
"""

from __future__ import annotations

import secrets

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext

from clubs.inbox.models import Kind
from clubs.inbox.services import Waiting
from clubs.merge_policy import Carry, Drop, Move
from clubs.models import Club, ClubOwnedQuerySet, HouseRuleSet, Player, Season
from matches.results.models import OutcomeSubject
from matches.sputo import bracket, formats, tally

RATINGS_TASK = "matches.sputo.tasks.update_sputo_ratings"


class TournamentStatus(models.TextChoices):
    DRAFT = "draft", gettext_lazy("Draft")
    REGISTRATION = "registration", gettext_lazy("Registration open")
    CHECK_IN = "check_in", gettext_lazy("Check-in open")
    RUNNING = "running", gettext_lazy("Running")
    FINISHED = "finished", gettext_lazy("Finished")
    CANCELLED = "cancelled", gettext_lazy("Cancelled")


class Seeding(models.TextChoices):
    RATING = "rating", gettext_lazy("By rating")
    RANDOM = "random", gettext_lazy("Random")
    MANUAL = "manual", gettext_lazy("Manual")


class Variant(models.TextChoices):
    CLASSIC = "classic", gettext_lazy("Classic (Sputo nell'occhio)")
    MODERN = "modern", gettext_lazy("Modern (two decks)")
    SINGLE_DECK = "single_deck", gettext_lazy("Single deck")


class Format(models.TextChoices):
    SINGLE_ELIMINATION = "single_elimination", gettext_lazy("Single elimination")
    DOUBLE_ELIMINATION = "double_elimination", gettext_lazy("Double elimination")
    ROUND_ROBIN = "round_robin", gettext_lazy("Round robin")
    GROUPS_THEN_KNOCKOUT = "groups_then_knockout", gettext_lazy("Groups, then a knockout")
    SWISS = "swiss", gettext_lazy("Swiss")


KNOCKOUT_FORMATS = [Format.SINGLE_ELIMINATION, Format.DOUBLE_ELIMINATION]


BEST_OF = [
    (1, gettext_lazy("One game")),
    (3, gettext_lazy("Best of 3")),
    (5, gettext_lazy("Best of 5")),
]
BEFORE_DRAW = [TournamentStatus.DRAFT, TournamentStatus.REGISTRATION, TournamentStatus.CHECK_IN]


def _new_seed() -> int:
    return secrets.randbits(48)


class TournamentQuerySet(ClubOwnedQuerySet):
    def running(self):
        return self.filter(status=TournamentStatus.RUNNING)


class Tournament(models.Model):
    club = models.ForeignKey(
        Club,
        on_delete=models.CASCADE,
        related_name="tournaments",
        verbose_name=gettext_lazy("club"),
    )
    season = models.ForeignKey(
        Season,
        on_delete=models.RESTRICT,
        null=True,
        blank=True,
        related_name="tournaments",
        verbose_name=gettext_lazy("season"),
    )
    name = models.CharField(gettext_lazy("name"), max_length=120)
    starts_at = models.DateTimeField(gettext_lazy("starts"))
    venue = models.CharField(gettext_lazy("venue"), max_length=200, blank=True)
    variant = models.CharField(
        gettext_lazy("variant"), max_length=12, choices=Variant.choices, default=Variant.CLASSIC
    )
    options = models.JSONField(
        gettext_lazy("options"),
        default=dict,
        blank=True,
        help_text=gettext_lazy('Sputo options: {"suit_match": bool, "splash": bool}.'),
    )
    best_of = models.PositiveSmallIntegerField(gettext_lazy("best of"), choices=BEST_OF, default=1)
    final_best_of = models.PositiveSmallIntegerField(
        gettext_lazy("final best of"),
        choices=BEST_OF,
        null=True,
        blank=True,
        help_text=gettext_lazy("The final's own format, if it has one."),
    )
    third_place = models.BooleanField(gettext_lazy("third-place match"), default=True)
    format = models.CharField(
        gettext_lazy("format"),
        max_length=24,
        choices=Format.choices,
        default=Format.SINGLE_ELIMINATION,
    )
    grand_final_reset = models.BooleanField(
        gettext_lazy("grand final reset"),
        default=True,
        help_text=gettext_lazy(
            "Double elimination: if the losers' champion wins the grand final, a second match "
            "decides."
        ),
    )
    legs = models.PositiveSmallIntegerField(
        gettext_lazy("legs"),
        default=1,
        help_text=gettext_lazy("Round robin and groups: everyone meets everyone once or twice."),
    )
    groups = models.PositiveSmallIntegerField(gettext_lazy("groups"), null=True, blank=True)
    advance = models.PositiveSmallIntegerField(
        gettext_lazy("advance per group"), null=True, blank=True
    )
    knockout_format = models.CharField(
        gettext_lazy("knockout format"),
        max_length=24,
        choices=[(f.value, f.label) for f in KNOCKOUT_FORMATS],
        default=Format.SINGLE_ELIMINATION,
    )
    swiss_rounds = models.PositiveSmallIntegerField(
        gettext_lazy("Swiss rounds"), null=True, blank=True
    )
    tables = models.PositiveSmallIntegerField(
        gettext_lazy("Sputo tables"),
        null=True,
        blank=True,
        help_text=gettext_lazy(
            "How many Sputo tables the club has for it: each ready match is given a free "
            "one. Empty: no table numbers."
        ),
    )
    capacity = models.PositiveIntegerField(
        gettext_lazy("capacity"),
        null=True,
        blank=True,
        help_text=gettext_lazy("The most players who can enter; the others wait on a list."),
    )
    forbidden_pairs = models.JSONField(
        gettext_lazy("forbidden pairings"),
        default=list,
        blank=True,
        help_text=gettext_lazy("Swiss: pairs of players never paired together, [[id, id], ...]."),
    )
    seeding = models.CharField(
        gettext_lazy("seeding"), max_length=8, choices=Seeding.choices, default=Seeding.RATING
    )
    seed = models.BigIntegerField(
        gettext_lazy("random seed"),
        default=_new_seed,
        help_text=gettext_lazy("Recorded so that a random draw can be reproduced."),
    )
    house_rules = models.ForeignKey(
        HouseRuleSet,
        on_delete=models.RESTRICT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=gettext_lazy("house rules version"),
    )
    status = models.CharField(
        gettext_lazy("status"),
        max_length=12,
        choices=TournamentStatus.choices,
        default=TournamentStatus.DRAFT,
    )
    rounds = models.PositiveSmallIntegerField(gettext_lazy("rounds"), default=0)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        related_name="+",
        verbose_name=gettext_lazy("created by"),
    )
    created_at = models.DateTimeField(gettext_lazy("created"), auto_now_add=True)
    drawn_at = models.DateTimeField(gettext_lazy("drawn"), null=True, blank=True)
    finished_at = models.DateTimeField(gettext_lazy("finished"), null=True, blank=True)

    objects = TournamentQuerySet.as_manager()

    class Meta:
        triggers = tally.tournament_triggers()  # its season moves its tallies
        ordering = ["-starts_at", "-pk"]
        verbose_name = gettext_lazy("Sputo tournament")
        verbose_name_plural = gettext_lazy("Sputo tournaments")
        constraints = [
            models.CheckConstraint(condition=Q(best_of__in=[1, 3, 5]), name="tournament_best_of"),
            models.CheckConstraint(
                condition=Q(final_best_of__isnull=True) | Q(final_best_of__in=[1, 3, 5]),
                name="tournament_final_best_of",
            ),
            models.CheckConstraint(
                condition=Q(status__in=TournamentStatus.values), name="tournament_status_valid"
            ),
            models.CheckConstraint(
                condition=Q(format__in=Format.values), name="tournament_format_valid"
            ),
            models.CheckConstraint(condition=Q(legs__in=[1, 2]), name="tournament_legs"),
        ]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("sputo:tournament", args=[self.club.slug, self.pk])

    def inbox_waiting(self) -> list:
        """While check-in is open, it waits for each entrant not checked in yet; before the
        draw, the news of a place freed up waits for whoever the waiting list promoted."""
        if self.status not in BEFORE_DRAW:
            return []
        url = self.get_absolute_url()
        found = [
            Waiting(entrant.player.user_id, Kind.OFF_WAITING_LIST, url, {"what": self.name})
            for entrant in self.entrants.filter(
                promoted_at__isnull=False, waiting=False, player__user__isnull=False
            ).select_related("player")
        ]
        if self.status != TournamentStatus.CHECK_IN:
            return found
        return found + [
            Waiting(entrant.player.user_id, Kind.CHECK_IN, url, {"what": self.name})
            for entrant in self.entrants.filter(
                checked_in_at__isnull=True, player__user__isnull=False, waiting=False
            ).select_related("player")
        ]

    def places_taken(self) -> int:
        return self.entrants.filter(waiting=False).count()

    def inbox_subjects(self) -> list:
        """The matches whose inbox a step on the tournament (its draw) may change."""
        return list(
            self.matches.select_related(
                "tournament", "club", "player_a", "player_b", "tournament__house_rules"
            )
        )

    @property
    def is_open_for_changes(self) -> bool:
        return self.status in (TournamentStatus.DRAFT, TournamentStatus.REGISTRATION)

    @property
    def is_drawn(self) -> bool:
        return self.drawn_at is not None

    @property
    def has_table(self) -> bool:
        """Whether the tournament has a stage of standings (round robin, groups, Swiss)."""
        return self.format in (Format.ROUND_ROBIN, Format.GROUPS_THEN_KNOCKOUT, Format.SWISS)

    def best_of_for(self, *, kind: str, round: int) -> int:
        final = (kind == bracket.MAIN and round == self.rounds) or kind == "grand_final"
        if final and self.final_best_of:
            return self.final_best_of
        return self.best_of


class EntrantQuerySet(ClubOwnedQuerySet):
    club_path = "tournament__club"


class Entrant(models.Model):
    tournament = models.ForeignKey(
        Tournament,
        on_delete=models.CASCADE,
        related_name="entrants",
        verbose_name=gettext_lazy("tournament"),
    )
    player = models.ForeignKey(
        Player,
        on_delete=models.RESTRICT,
        related_name="sputo_entries",
        verbose_name=gettext_lazy("player"),
    )
    manual_seed = models.PositiveIntegerField(
        gettext_lazy("manual seed"),
        null=True,
        blank=True,
        help_text=gettext_lazy("With manual seeding: 1 is the top seed."),
    )
    seed = models.PositiveIntegerField(gettext_lazy("seed"), null=True, blank=True)
    checked_in_at = models.DateTimeField(gettext_lazy("checked in"), null=True, blank=True)
    no_show = models.BooleanField(
        gettext_lazy("no-show"), default=False, help_text=gettext_lazy("Dropped at the draw.")
    )
    entered_at = models.DateTimeField(gettext_lazy("entered"), default=timezone.now)
    # The waiting list of a tournament at its ``capacity``: in the order of entry; a
    # withdrawal promotes the first (``promoted_at``). Those still waiting at the draw do
    # not play.
    waiting = models.BooleanField(gettext_lazy("on the waiting list"), default=False)
    promoted_at = models.DateTimeField(
        gettext_lazy("taken off the waiting list"), null=True, blank=True
    )
    # Derived: the final place once the tournament is finished (``matches.sputo.places``),
    # so that a player's history and best place read their own rows, not every bracket.
    place = models.PositiveIntegerField(
        gettext_lazy("final place"), null=True, blank=True, editable=False
    )

    player_merge = {
        "player": Move(
            recompute=(RATINGS_TASK,),
            conflicts={
                "sputo_entrant_once": gettext_lazy(
                    "%(source)s and %(target)s both entered the same tournament: they cannot "
                    "be merged."
                )
            },
        )
    }

    objects = EntrantQuerySet.as_manager()

    class Meta:
        ordering = ["tournament", "seed", "entered_at", "pk"]
        verbose_name = gettext_lazy("entrant")
        verbose_name_plural = gettext_lazy("entrants")
        triggers = tally.entrant_triggers()  # a tournament won (``matches.sputo.tally``)
        constraints = [
            models.UniqueConstraint(fields=["tournament", "player"], name="sputo_entrant_once"),
            models.UniqueConstraint(
                fields=["tournament", "seed"],
                condition=Q(seed__isnull=False),
                name="sputo_seed_once",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player} ({self.tournament})"


class TournamentMatch(OutcomeSubject):
    """One match: round 1 is the first, ``position`` counts from 0 within its round and
    kind. A knockout's are ``main`` (the third-place match ``third_place`` in the final's
    round); a round robin's, a group's and a Swiss round's are of their own kind
    (``matches.sputo.formats``), a group's with its ``group``'s name."""

    class Kind(models.TextChoices):
        MAIN = bracket.MAIN, gettext_lazy("Bracket")
        THIRD = bracket.THIRD, gettext_lazy("Third-place match")
        ROUND_ROBIN = formats.ROUND_ROBIN, gettext_lazy("Round robin")
        GROUP = formats.GROUP, gettext_lazy("Group")
        SWISS = formats.SWISS, gettext_lazy("Swiss round")
        WINNERS = "winners", gettext_lazy("Winners' bracket")
        LOSERS = "losers", gettext_lazy("Losers' bracket")
        GRAND_FINAL = "grand_final", gettext_lazy("Grand final")

    class Result(models.TextChoices):
        NONE = "", gettext_lazy("Not decided")
        BYE = bracket.BYE, gettext_lazy("Bye")
        PLAYED = bracket.PLAYED, gettext_lazy("Played")
        WALKOVER = bracket.WALKOVER, gettext_lazy("Walkover")
        RETIREMENT = bracket.RETIREMENT, gettext_lazy("Retirement")
        DOUBLE_FORFEIT = bracket.DOUBLE_FORFEIT, gettext_lazy("Double forfeit")
        AWARDED = bracket.AWARDED, gettext_lazy("Awarded by an admin")
        NO_OPPONENT = bracket.NO_OPPONENT, gettext_lazy("Walkover (no opponent)")

    club = models.ForeignKey(
        Club, on_delete=models.CASCADE, related_name="+", verbose_name=gettext_lazy("club")
    )
    tournament = models.ForeignKey(
        Tournament,
        on_delete=models.CASCADE,
        related_name="matches",
        verbose_name=gettext_lazy("tournament"),
    )
    kind = models.CharField(
        gettext_lazy("kind"), max_length=12, choices=Kind.choices, default=Kind.MAIN
    )
    round = models.PositiveSmallIntegerField(gettext_lazy("round"))
    position = models.PositiveIntegerField(gettext_lazy("position"))
    group = models.CharField(gettext_lazy("group"), max_length=4, blank=True, default="")
    table = models.PositiveSmallIntegerField(gettext_lazy("table"), null=True, blank=True)
    pairing = models.JSONField(
        gettext_lazy("pairing"),
        default=dict,
        blank=True,
        help_text=gettext_lazy("A Swiss pairing's reasons, as the engine gave them."),
    )
    player_a = models.ForeignKey(
        Player,
        on_delete=models.RESTRICT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=gettext_lazy("player A"),
    )
    player_b = models.ForeignKey(
        Player,
        on_delete=models.RESTRICT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=gettext_lazy("player B"),
    )
    winner = models.ForeignKey(
        Player,
        on_delete=models.RESTRICT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=gettext_lazy("winner"),
    )
    result = models.CharField(
        gettext_lazy("result"), max_length=16, choices=Result.choices, blank=True, default=""
    )
    best_of = models.PositiveSmallIntegerField(gettext_lazy("best of"), default=1)
    decided_at = models.DateTimeField(
        gettext_lazy("decided"),
        null=True,
        blank=True,
        help_text=gettext_lazy("When a result first came into force: the order of the ratings."),
    )
    needs_resolution = models.BooleanField(
        gettext_lazy("needs an admin"),
        default=False,
        help_text=gettext_lazy(
            "Played with a player a correction moved away: replay it or award it."
        ),
    )

    # The three seats move together, in one statement, so that the winner is always one
    # of the players (a constraint); then the ratings are recomputed.
    player_merge = {
        name: Carry(carry_over="matches.sputo.services.carry_match_seats")
        for name in ("player_a", "player_b", "winner")
    }

    objects = ClubOwnedQuerySet.as_manager()

    class Meta:
        ordering = ["tournament", "round", "kind", "position"]
        verbose_name = gettext_lazy("tournament match")
        verbose_name_plural = gettext_lazy("tournament matches")
        triggers = tally.match_triggers()  # the players' tallies (``matches.sputo.tally``)
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "kind", "round", "position"], name="sputo_match_place"
            ),
            models.CheckConstraint(
                condition=Q(winner__isnull=True)
                | Q(winner=models.F("player_a"))
                | Q(winner=models.F("player_b")),
                name="sputo_match_winner_plays",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.tournament}: {self.round_label} #{self.position + 1}"

    def get_absolute_url(self) -> str:
        return reverse("sputo:match", args=[self.club.slug, self.tournament_id, self.pk])

    @property
    def round_label(self) -> str:
        return round_label(self.kind, self.round, self.tournament.rounds, group=self.group)

    @property
    def bye(self) -> bool:
        return self.result == bracket.BYE

    @property
    def loser(self) -> Player | None:
        if self.winner_id is None:
            return None
        return self.player_b if self.winner_id == self.player_a_id else self.player_a

    def players(self) -> list[Player]:
        return [p for p in (self.player_a, self.player_b) if p is not None]

    def as_slot(self, *, id: int | None = None, open_report: bool = False) -> bracket.Slot:
        """The match as the bracket's planner sees it (``matches.sputo.bracket``); ``id``
        stands for the match's own before it is saved (the draw)."""
        return bracket.Slot(
            id=self.pk if id is None else id,
            kind=self.kind,
            round=self.round,
            position=self.position,
            a=self.player_a_id,
            b=self.player_b_id,
            winner=self.winner_id,
            result=self.result,
            needs_resolution=self.needs_resolution,
            open_report=open_report,
        )


def round_label(kind: str, round_: int, rounds: int, *, group: str = "") -> str:
    if kind == bracket.THIRD:
        return _("Third place")
    if kind == "winners":
        if round_ == rounds:
            return _("Winners' final")
        return _("Winners' round %(n)s") % {"n": round_}
    if kind == "losers":
        if round_ == 2 * (rounds - 1):
            return _("Losers' final")
        return _("Losers' round %(n)s") % {"n": round_}
    if kind == "grand_final":
        return _("Grand final") if round_ == 1 else _("Grand final, second match")
    if kind == formats.GROUP:
        if group:
            return _("Group %(group)s, round %(n)s") % {"group": group, "n": round_}
        return _("Groups, round %(n)s") % {"n": round_}
    if kind in formats.TABLE_KINDS:
        return pgettext("tournament round", "Round %(n)s") % {"n": round_}
    left = rounds - round_
    if left == 0:
        return _("Final")
    if left == 1:
        return _("Semi-finals")
    if left == 2:
        return _("Quarter-finals")
    return pgettext("tournament round", "Round %(n)s") % {"n": round_}


def _new_token() -> str:
    return secrets.token_urlsafe(24)


class CalendarFeed(models.Model):
    """A person's secret calendar address: it answers without a session, so it is a
    secret; a new token makes the old address stop working."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="sputo_calendar",
        verbose_name=gettext_lazy("user account"),
    )
    token = models.CharField(gettext_lazy("token"), max_length=64, unique=True, default=_new_token)
    created_at = models.DateTimeField(gettext_lazy("created"), default=timezone.now)

    class Meta:
        verbose_name = gettext_lazy("calendar feed")
        verbose_name_plural = gettext_lazy("calendar feeds")

    def __str__(self) -> str:
        return str(self.user)

    def regenerate(self) -> None:
        self.token = _new_token()
        self.created_at = timezone.now()
        self.save(update_fields=["token", "created_at"])


class SputoTally(models.Model):
    """A player's Sputo matches and tournaments in a club, for one season or all time (season
    empty): derived rows, written by the database's triggers on the matches and entrants
    (``matches.sputo.tally``), read by the leaderboard."""

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
        Player, on_delete=models.CASCADE, related_name="+", verbose_name=gettext_lazy("player")
    )
    matches = models.PositiveIntegerField(gettext_lazy("matches"), default=0)
    won = models.PositiveIntegerField(gettext_lazy("matches won"), default=0)
    tournaments_won = models.PositiveIntegerField(gettext_lazy("tournaments won"), default=0)

    # The source's rows go; the triggers have moved its matches and places to the target's
    # rows as the merge moved them.
    player_merge = {"player": Drop()}
    objects = ClubOwnedQuerySet.as_manager()

    class Meta:
        verbose_name = gettext_lazy("Sputo tally")
        verbose_name_plural = gettext_lazy("Sputo tallies")
        constraints = [
            models.UniqueConstraint(
                fields=["club", "season", "player"], name="sputo_tally_once_per_season"
            ),
            models.UniqueConstraint(
                fields=["club", "player"],
                condition=Q(season__isnull=True),
                name="sputo_tally_once_all_time",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player}: {self.won}/{self.matches}"


class RoundClock(models.Model):
    """A round's clock: started by an admin, counted down on the tonight screen and the
    players' phones; started again, it gives extra time (a new end)."""

    tournament = models.ForeignKey(
        Tournament,
        on_delete=models.CASCADE,
        related_name="clocks",
        verbose_name=gettext_lazy("tournament"),
    )
    kind = models.CharField(gettext_lazy("kind"), max_length=12)
    round = models.PositiveSmallIntegerField(gettext_lazy("round"))
    started_at = models.DateTimeField(gettext_lazy("started"))
    ends_at = models.DateTimeField(gettext_lazy("ends"))
    started_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        related_name="+",
        verbose_name=gettext_lazy("started by"),
    )

    class Meta:
        verbose_name = gettext_lazy("round clock")
        verbose_name_plural = gettext_lazy("round clocks")
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "kind", "round"], name="sputo_round_clock_once"
            )
        ]

    def __str__(self) -> str:
        return f"{self.tournament}: {self.kind} {self.round}"
