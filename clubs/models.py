"""Clubs and the people in them.

A *Player* is anyone who sits at a table: a member (a Player linked to a user account) or a
guest (a Player without a login). A *Membership* gives a user a role in a club. House rules
are versioned per club and game: every change adds a version and old versions stay, so a
recorded result can keep the rule set it was played under.
"""

from __future__ import annotations

import datetime
import secrets
from datetime import timedelta
from decimal import Decimal

import pycountry
from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

import plumbing.public_pages as public_pages
from clubs.merge_policy import Revoke


def validate_currency(value: str) -> None:
    """An ISO 4217 currency code, in capitals (the forms and the API upper-case input)."""
    if not (
        isinstance(value, str)
        and len(value) == 3
        and value.isascii()
        and value.isupper()
        and pycountry.currencies.get(alpha_3=value) is not None
    ):
        raise ValidationError(
            _("%(value)s is not an ISO 4217 currency code (such as EUR)."),
            code="currency",
            params={"value": value},
        )


# Every ISO 4217 code, for the API's list of choices (``validate_currency`` checks the same).
CURRENCY_CODES = sorted(currency.alpha_3 for currency in pycountry.currencies)


class Role(models.TextChoices):
    ADMIN = "admin", _("Admin")
    SCORER = "scorer", _("Scorer")
    MEMBER = "member", pgettext_lazy("role", "Member")


class Game(models.TextChoices):
    SINGAPORE = "singapore", "Singapore"
    SPUTO = "sputo", "Sputo"
    SPAZZUMAZZ = "spazzumazz", "Spazz'u'mazz"


RANK = {Role.MEMBER: 1, Role.SCORER: 2, Role.ADMIN: 3}


def roles_at_least(needed: str) -> list[str]:
    return [role for role, rank in RANK.items() if rank >= RANK[needed]]


class ClubQuerySet(models.QuerySet):
    def public(self):
        return self.filter(is_public=True)

    def of_user(self, user):
        """Clubs ``user`` belongs to."""
        if not user.is_authenticated:
            return self.none()
        return self.filter(pk__in=Membership.objects.filter(user=user).values("club_id"))

    def visible_to(self, user):
        """Clubs ``user`` may see: the public ones and their own (see ``clubs.access``)."""
        if user.is_authenticated:
            mine = Membership.objects.filter(user=user).values("club_id")
            return self.filter(Q(is_public=True) | Q(pk__in=mine))
        return self.public()

    def visible_with_role(self, user):
        """:meth:`visible_to`, each with ``user``'s role in it (``role_here``): a club looked
        up and its access checked in one query (``clubs.access.read_with_role``)."""
        mine = Q(role_here__isnull=False) if user.is_authenticated else Q(pk__in=[])
        return self.annotate(role_here=role_in_club(user, "pk")).filter(Q(is_public=True) | mine)

    def where_role(self, user, at_least: str):
        """Clubs where ``user`` holds at least the role ``at_least``."""
        return self.filter(pk__in=club_ids_where(user, at_least=at_least))


def club_ids_where(user, *, at_least: str | None = None):
    """A subquery of the ids of the clubs ``user`` may see (with at least that role)."""
    if at_least is None:
        return Club.objects.visible_to(user).values("pk")
    if not user.is_authenticated:
        return Club.objects.none().values("pk")
    return Membership.objects.filter(user=user, role__in=roles_at_least(at_least)).values("club_id")


def club_ids_showing_money(user):
    """A subquery of the ids of the clubs where ``user`` sees everyone's money: the rule of
    ``clubs.access.ClubAccess.sees_money`` for lists (their admins; their members unless
    the club hides money from them). Their own figures are the lists' own business."""
    if not user.is_authenticated:
        return Club.objects.none().values("pk")
    return Membership.objects.filter(
        Q(role=Role.ADMIN) | Q(role__in=roles_at_least(Role.MEMBER), club__members_see_money=True),
        user=user,
    ).values("club_id")


def role_in_club(user, club: str = "club"):
    """For ``annotate``: ``user``'s role in each row's club (``club``: the row's club field),
    None for none; a row read and its access checked in one query (``access_with_role``)."""
    if not user.is_authenticated:
        return models.Value(None, output_field=models.CharField())
    # No ordering: the model's own (by club name and username) would join both tables.
    rows = Membership.objects.filter(club=models.OuterRef(club), user=user).order_by()
    return models.Subquery(rows.values("role")[:1])


class ClubOwnedQuerySet(models.QuerySet):
    """For every model that belongs to a club: the rows a user may see, or act on, by the
    rules of ``clubs.access``.

    ``club_path`` names the lookup from the model to its club (``"club"`` by default;
    ``"tournament__club"`` for a model one step further away). ``seen_from``: the least
    role in the club that sees its rows (None: whoever sees the club sees them).
    """

    club_path = "club"
    seen_from: str | None = None

    def visible_to(self, user):
        if self.seen_from is not None:
            return self.where_role(user, self.seen_from)
        return self.filter(**{f"{self.club_path}__in": club_ids_where(user)})

    def where_role(self, user, at_least: str):
        return self.filter(**{f"{self.club_path}__in": club_ids_where(user, at_least=at_least)})

    def visible_with_role(self, user):
        """:meth:`visible_to` for looking up one row, with ``user``'s role in its club read
        with it (``role_here``, for ``clubs.access.access_with_role``): the same rows, told
        by that role (a public club's to anyone, a private one's to its members, or to
        ``seen_from`` and above) instead of a semi-join on the clubs, which PostgreSQL takes
        milliseconds to plan beside a lookup's joins (6 ms against 2, a Sputo match's).
        A queryset whose ``visible_to`` says more than a role is looked up the long way."""
        says_more = type(self).visible_to is not ClubOwnedQuerySet.visible_to
        if says_more or self.club_path != "club" or not user.is_authenticated:
            return self.visible_to(user).annotate(role_here=role_in_club(user, self.club_path))
        rows = self.annotate(role_here=role_in_club(user))
        if self.seen_from is not None:
            return rows.filter(role_here__in=roles_at_least(self.seen_from))
        return rows.filter(Q(club__is_public=True) | Q(role_here__isnull=False))


class Club(models.Model):
    name = models.CharField(_("name"), max_length=120)
    slug = models.SlugField(_("slug"), max_length=60, unique=True)
    city = models.CharField(_("city"), max_length=120, blank=True)
    is_public = models.BooleanField(
        _("public"), default=True, help_text=_("Anyone can see a public club's page.")
    )
    point_value = models.DecimalField(
        _("default point value"),
        max_digits=10,
        decimal_places=2,
        default=Decimal("0.10"),
        validators=[MinValueValidator(Decimal("0"))],
        help_text=_("The money value of one point, unless a session sets another."),
    )
    currency = models.CharField(
        _("currency"),
        max_length=3,
        default="EUR",
        validators=[validate_currency],
        help_text=_("An ISO 4217 code, such as EUR or CHF."),
    )
    description = models.TextField(
        _("description"),
        blank=True,
        max_length=2000,
        help_text=_("What the club plays, and who is welcome."),
    )
    venue = models.CharField(
        _("venue"),
        max_length=200,
        blank=True,
        help_text=_("Where the club meets: a name and an address."),
    )
    meeting_times = models.CharField(
        _("meeting times"),
        max_length=200,
        blank=True,
        help_text=_("For example: Fridays from 9 pm."),
    )
    language = models.CharField(
        _("language"), max_length=5, choices=settings.LANGUAGES, default="it"
    )
    members_see_money = models.BooleanField(
        _("members see everyone's money"),
        default=True,
        help_text=_(
            "Balances, winnings and payments. Off: only the admins see everyone's; each "
            "member still sees their own. Visitors and other clubs never see money."
        ),
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    objects = ClubQuerySet.as_manager()

    class Meta:
        ordering = ["name"]
        verbose_name = _("club")
        verbose_name_plural = _("clubs")
        constraints = [
            models.CheckConstraint(
                condition=Q(point_value__gte=0), name="club_point_value_not_negative"
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def save(self, *args, **kwargs):
        super().save(*args, **kwargs)
        # This process's copies of the club's public pages hold its old row: forget them
        # (the other processes recheck the club within PUBLIC_PAGE_RECHECK_SECONDS).
        public_pages.forget()

    def get_absolute_url(self) -> str:
        return reverse("clubs:detail", args=[self.slug])

    def delete(self, *args, **kwargs):
        deleted = super().delete(*args, **kwargs)
        public_pages.forget()
        return deleted

    def role_of(self, user) -> str | None:
        """``user``'s role in this club, or None."""
        if not user.is_authenticated:
            return None
        return self.memberships.filter(user=user).values_list("role", flat=True).first()

    def current_house_rules(self, game: str) -> HouseRuleSet | None:
        return self.house_rule_sets.filter(game=game).order_by("-version").first()


class PlayerQuerySet(ClubOwnedQuerySet):
    def guests(self):
        return self.filter(user__isnull=True)

    def members(self):
        return self.filter(user__isnull=False)

    def active(self):
        return self.filter(merged_into__isnull=True)


class Player(models.Model):
    club = models.ForeignKey(
        Club, on_delete=models.CASCADE, related_name="players", verbose_name=_("club")
    )
    display_name = models.CharField(_("display name"), max_length=80)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="players",
        verbose_name=_("user account"),
    )
    merged_into = models.ForeignKey(
        "self",
        on_delete=models.RESTRICT,
        null=True,
        blank=True,
        related_name="merged_from",
        verbose_name=_("merged into"),
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    objects = PlayerQuerySet.as_manager()

    class Meta:
        ordering = ["display_name"]
        verbose_name = _("player")
        verbose_name_plural = _("players")
        constraints = [
            models.UniqueConstraint(
                fields=["club", "display_name"],
                condition=Q(merged_into__isnull=True),
                name="player_unique_name_in_club",
                violation_error_message=_("This club already has a player with this name."),
            ),
            models.UniqueConstraint(
                fields=["club", "user"],
                condition=Q(user__isnull=False),
                name="player_one_per_user_in_club",
            ),
        ]

    def __str__(self) -> str:
        return self.display_name

    @property
    def is_guest(self) -> bool:
        return self.user_id is None


class MembershipQuerySet(ClubOwnedQuerySet):
    seen_from = Role.MEMBER  # who belongs to a club, with their login and role


class Membership(models.Model):
    club = models.ForeignKey(
        Club, on_delete=models.CASCADE, related_name="memberships", verbose_name=_("club")
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="memberships",
        verbose_name=_("user account"),
    )
    role = models.CharField(_("role"), max_length=10, choices=Role.choices, default=Role.MEMBER)
    joined_at = models.DateTimeField(_("joined"), auto_now_add=True)
    night_report = models.BooleanField(
        _("end-of-evening report by e-mail"),
        default=False,
        help_text=_("The member's preference: the club night's results, the morning after."),
    )

    objects = MembershipQuerySet.as_manager()

    class Meta:
        ordering = ["club", "user__username"]
        verbose_name = _("membership")
        verbose_name_plural = _("memberships")
        constraints = [
            models.UniqueConstraint(fields=["club", "user"], name="membership_once_per_club"),
            models.CheckConstraint(
                condition=Q(role__in=[r.value for r in Role]), name="membership_role_valid"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user} @ {self.club} ({self.get_role_display()})"


class SeasonQuerySet(ClubOwnedQuerySet):
    def holding(self, when) -> Season | None:
        """The season (of these) that holds the day of ``when`` (a date, or a date-time
        taken in the local time zone), if any: seasons never overlap."""
        if isinstance(when, datetime.datetime):
            when = timezone.localtime(when).date() if timezone.is_aware(when) else when.date()
        return self.filter(start__lte=when, end__gte=when).first()


class Season(models.Model):
    club = models.ForeignKey(
        Club, on_delete=models.CASCADE, related_name="seasons", verbose_name=_("club")
    )
    name = models.CharField(_("name"), max_length=80)
    start = models.DateField(_("start"))
    end = models.DateField(_("end"))

    objects = SeasonQuerySet.as_manager()

    class Meta:
        ordering = ["-start"]
        verbose_name = _("season")
        verbose_name_plural = _("seasons")
        constraints = [
            models.CheckConstraint(
                condition=Q(end__gte=models.F("start")),
                name="season_ends_after_start",
                violation_error_message=_("A season cannot end before it starts."),
            ),
            models.UniqueConstraint(
                fields=["club", "name"],
                name="season_unique_name_in_club",
                violation_error_message=_("This club already has a season with this name."),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.club}: {self.name}"

    def contains(self, day) -> bool:
        return self.start <= day <= self.end


class HouseRuleSet(models.Model):
    """One version of a club's house rules for one game. Rows are never edited."""

    club = models.ForeignKey(
        Club, on_delete=models.CASCADE, related_name="house_rule_sets", verbose_name=_("club")
    )
    game = models.CharField(_("game"), max_length=12, choices=Game.choices)
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
        ordering = ["club", "game", "-version"]
        verbose_name = _("house rules version")
        verbose_name_plural = _("house rules versions")
        constraints = [
            models.UniqueConstraint(
                fields=["club", "game", "version"], name="house_rules_version_unique"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.club} {self.get_game_display()} v{self.version}"


# One link for a whole club night is plenty; a bigger number is a typo.
MAX_INVITATION_USES = 1_000


def _new_token() -> str:
    return secrets.token_urlsafe(24)


def _default_expiry():
    return timezone.now() + timedelta(days=14)


class InvitationQuerySet(ClubOwnedQuerySet):
    seen_from = Role.ADMIN  # an invitation is a secret of the club's admins

    def usable(self, *, at=None):
        at = at or timezone.now()
        return self.filter(
            revoked_at__isnull=True, expires_at__gt=at, uses__lt=models.F("max_uses")
        )


def _revoke_all(invitations) -> None:
    invitations.filter(revoked_at__isnull=True).update(revoked_at=timezone.now())


class Invitation(models.Model):
    """A link an admin shares; whoever opens it (with an account, or making one) joins."""

    club = models.ForeignKey(
        Club, on_delete=models.CASCADE, related_name="invitations", verbose_name=_("club")
    )
    token = models.CharField(
        _("token"), max_length=64, unique=True, default=_new_token, editable=False
    )
    role = models.CharField(_("role"), max_length=10, choices=Role.choices, default=Role.MEMBER)
    player = models.ForeignKey(
        Player,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="invitations",
        verbose_name=_("guest to claim"),
        help_text=_("If set, whoever accepts becomes this guest, keeping their history."),
    )
    email = models.EmailField(
        _("e-mail"), blank=True, help_text=_("If given, the link is sent to this address.")
    )
    emailed_at = models.DateTimeField(_("e-mailed"), null=True, blank=True, editable=False)
    max_uses = models.PositiveIntegerField(
        _("maximum uses"),
        default=1,
        validators=[MinValueValidator(1), MaxValueValidator(MAX_INVITATION_USES)],
    )
    uses = models.PositiveIntegerField(_("uses"), default=0)
    expires_at = models.DateTimeField(_("expires"), default=_default_expiry)
    revoked_at = models.DateTimeField(_("revoked"), null=True, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        related_name="+",
        verbose_name=_("created by"),
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    objects = InvitationQuerySet.as_manager()

    # A guest merged away can no longer be claimed: their open invitations are revoked.
    player_merge = {"player": Revoke(revoke=_revoke_all)}

    class Meta:
        ordering = ["-created_at"]
        verbose_name = _("invitation")
        verbose_name_plural = _("invitations")
        constraints = [
            models.CheckConstraint(
                condition=Q(uses__lte=models.F("max_uses")), name="invitation_uses_within_max"
            ),
            models.CheckConstraint(
                condition=Q(max_uses__gte=1), name="invitation_max_uses_positive"
            ),
            models.CheckConstraint(
                condition=Q(max_uses__lte=MAX_INVITATION_USES),
                name="invitation_max_uses_bounded",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.club} ({self.get_role_display()})"

    def get_absolute_url(self) -> str:
        return reverse("clubs:invitation", args=[self.token])

    def is_usable(self, *, at=None) -> bool:
        at = at or timezone.now()
        return self.revoked_at is None and self.expires_at > at and self.uses < self.max_uses


class Profile(models.Model):
    """What a person chose for themselves: the name the clubs show (see
    ``accounts.change_display_name``). Users without a row use their full name, or their
    username."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="profile",
        verbose_name=_("user account"),
    )
    display_name = models.CharField(_("display name"), max_length=80)

    class Meta:
        verbose_name = _("profile")
        verbose_name_plural = _("profiles")

    def __str__(self) -> str:
        return self.display_name


class EmailConfirmationQuerySet(models.QuerySet):
    def pending(self):
        """Sign-ups whose e-mail address is not confirmed yet (their accounts are inactive)."""
        return self.filter(confirmed_at__isnull=True)


class EmailConfirmation(models.Model):
    """A sign-up waiting for its e-mail address to be confirmed.

    The account stays inactive (it cannot log in) until the link mailed to ``email`` is
    followed. Confirming activates only an account that is waiting here: an account an
    admin deactivated later cannot reactivate itself with an old link.
    """

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="email_confirmation",
        verbose_name=_("user account"),
    )
    email = models.EmailField(_("e-mail"))
    language = models.CharField(
        _("language"), max_length=5, choices=settings.LANGUAGES, default="it"
    )
    requested_at = models.DateTimeField(_("link requested"), default=timezone.now)
    sent_at = models.DateTimeField(_("link sent"), null=True, blank=True)
    confirmed_at = models.DateTimeField(_("confirmed"), null=True, blank=True)

    objects = EmailConfirmationQuerySet.as_manager()

    class Meta:
        verbose_name = _("e-mail confirmation")
        verbose_name_plural = _("e-mail confirmations")

    def __str__(self) -> str:
        return f"{self.user} <{self.email}>"

    @property
    def is_pending(self) -> bool:
        return self.confirmed_at is None


# The rows of the API tokens and of the inbox live in their own modules, in this app.
from clubs.api_tokens import ApiToken, ApiTokenQuerySet, password_stamp  # noqa: E402, F401
from clubs.inbox.models import Choice, Notification, PushSubscription  # noqa: E402, F401
