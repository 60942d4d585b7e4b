"""Writes that touch the clubs' models: each one a keyword-only function in one transaction."""

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import F, ProtectedError, RestrictedError
from django.utils import formats, timezone
from django.utils.text import slugify
from django.utils.translation import gettext as _

from clubs.changes import club_changed, players_changed
from clubs.inbox.invitations import invitation_inbox
from clubs.merge import merge_players
from clubs.models import (
    Club,
    HouseRuleSet,
    Invitation,
    Membership,
    Player,
    Profile,
    Role,
    Season,
)
from clubs.tasks import send_invitation_email
from plumbing.errors import conflict, not_found
from plumbing.parts import parts
from plumbing.rule_errors import rules_validation_error
from rules.errors import RulesError
from rules.house_rules import as_dict, parse_house_rules

User = get_user_model()


def unique_slug(name: str) -> str:
    base = slugify(name)[:50] or "club"
    slug, n = base, 2
    while Club.objects.filter(slug=slug).exists():
        slug, n = f"{base}-{n}", n + 1
    return slug


@transaction.atomic
def create_club(*, name: str, founder, **fields) -> Club:
    """A new club with ``founder`` as its first admin (and a player)."""
    slug = fields.pop("slug", None) or unique_slug(name)
    club = Club(name=name, slug=slug, **_clean_club_fields(fields))
    club.full_clean()
    club.save()
    add_member(club=club, user=founder, role=Role.ADMIN)
    return club


# What a club's admins set: its settings (the API's too), and the profile its page shows.
CLUB_SETTINGS = (
    "name",
    "city",
    "is_public",
    "members_see_money",
    "point_value",
    "currency",
    "language",
)
CLUB_FIELDS = (*CLUB_SETTINGS, "description", "venue", "meeting_times")


def _clean_club_fields(fields: dict) -> dict:
    unknown = set(fields) - set(CLUB_FIELDS)
    if unknown:
        raise ValidationError({name: _("This field cannot be set.") for name in sorted(unknown)})
    if isinstance(fields.get("currency"), str):
        fields["currency"] = fields["currency"].strip().upper()
    return fields


@transaction.atomic
def update_club(*, club: Club, **fields) -> Club:
    """Change a club's settings; the model's validators (ISO 4217 currency, a point value not
    below zero...) check the result for the pages and the API alike."""
    for name, value in _clean_club_fields(dict(fields)).items():
        setattr(club, name, value)
    club.full_clean()
    club.save()
    club_changed(club.pk)
    return club


def display_name_for(user) -> str:
    """The name a user's player gets in a club they join: the one they chose on their
    profile, else their full name, else their username."""
    chosen = Profile.objects.filter(user=user).values_list("display_name", flat=True).first()
    return chosen or user.get_full_name() or user.get_username()


def _free_name(club: Club, name: str) -> str:
    candidate, n = name, 2
    while club.players.active().filter(display_name=candidate).exists():
        candidate, n = f"{name} ({n})", n + 1
    return candidate


@transaction.atomic
def add_member(
    *, club: Club, user, role: str = Role.MEMBER, player: Player | None = None
) -> Membership:
    """Make ``user`` a member; ``player``, a guest of the club, becomes theirs (history kept)."""
    if Membership.objects.filter(club=club, user=user).exists():
        raise ValidationError(
            _("%(user)s is already a member of %(club)s.") % {"user": user, "club": club},
            code="conflict",
        )
    membership = Membership.objects.create(club=club, user=user, role=role)
    own = club.players.filter(user=user).first()
    if player is not None:
        if player.club_id != club.pk or not player.is_guest or player.merged_into_id:
            raise conflict("player", _("Only a guest of this club can be claimed."))
        if own is not None:
            merge_players(source=player, target=own)
        else:
            player.user = user
            player.save(update_fields=["user"])
    elif own is None:
        Player.objects.create(
            club=club, user=user, display_name=_free_name(club, display_name_for(user))
        )
    players_changed(club.pk)
    return membership


def player_name(display_name: str) -> str:
    name = " ".join(str(display_name).split())
    if not name:
        raise ValidationError({"display_name": _("A player needs a name.")})
    if len(name) > Player._meta.get_field("display_name").max_length:
        raise ValidationError({"display_name": _("A name can be at most 80 characters long.")})
    return name


def _name_taken() -> ValidationError:
    return conflict("display_name", _("This club already has a player with this name."))


@transaction.atomic
def add_guest(*, club: Club, display_name: str) -> Player:
    name = player_name(display_name)
    if club.players.active().filter(display_name=name).exists():
        raise _name_taken()
    try:
        with transaction.atomic():
            player = Player.objects.create(club=club, display_name=name)
    except IntegrityError as error:  # another request added the same name meanwhile
        raise _name_taken() from error
    players_changed(club.pk)
    return player


@transaction.atomic
def rename_player(*, player: Player, display_name: str) -> Player:
    """A new display name, unique among the club's players (the database enforces it)."""
    name = player_name(display_name)
    if player.merged_into_id:
        raise conflict("display_name", _("A merged player cannot be renamed."))
    if player.club.players.active().exclude(pk=player.pk).filter(display_name=name).exists():
        raise _name_taken()
    player.display_name = name
    try:
        with transaction.atomic():
            player.save(update_fields=["display_name"])
    except IntegrityError as error:
        raise _name_taken() from error
    players_changed(player.club_id)
    return player


@transaction.atomic
def remove_guest(*, player: Player) -> None:
    """Delete a guest who has no history; one with games stays (merge them instead)."""
    if not player.is_guest:
        raise conflict("player", _("Only a guest can be removed; members leave."))
    try:
        with transaction.atomic():
            Invitation.objects.filter(player=player).delete()
            player.delete()
    except RestrictedError as error:
        raise conflict(
            "player",
            _(
                "%(name)s has games in the club's history and cannot be removed: "
                "merge them into a member instead."
            )
            % {"name": player.display_name},
        ) from error
    players_changed(player.club_id)


# --- Seasons ---------------------------------------------------------------------------------


def _season_problems(
    club: Club, *, name: str, start, end, exclude=None, one_date_kept: bool = False
) -> dict:
    """Each field's problem, as a ``ValidationError`` with its code: a name or dates that
    clash with another season are a conflict, and so is a new date on the wrong side of
    the date the season keeps (``one_date_kept``)."""
    problems: dict[str, ValidationError] = {}
    if not name:
        problems["name"] = ValidationError(_("A season needs a name."), code="required")
    if start and end and end < start:
        problems["end"] = ValidationError(
            _("A season cannot end before it starts."),
            code="conflict" if one_date_kept else "invalid",
        )
    others = club.seasons.exclude(pk=exclude.pk) if exclude else club.seasons.all()
    if name and others.filter(name=name).exists():
        problems["name"] = ValidationError(
            _("This club already has a season with this name."), code="conflict"
        )
    if start and end and end >= start:
        clash = others.filter(start__lte=end, end__gte=start).first()
        if clash is not None:
            problems["start"] = ValidationError(
                _("This season overlaps %(season)s (%(start)s to %(end)s).")
                % {
                    "season": clash.name,
                    "start": formats.date_format(clash.start, "SHORT_DATE_FORMAT"),
                    "end": formats.date_format(clash.end, "SHORT_DATE_FORMAT"),
                },
                code="conflict",
            )
    return problems


def _save_season(season: Season, *, name: str, start, end, one_date_kept=False) -> Season:
    # One season change at a time per club: the overlap check reads what the lock protects.
    Club.objects.select_for_update().get(pk=season.club_id)
    name = " ".join(str(name).split())
    problems = _season_problems(
        season.club,
        name=name,
        start=start,
        end=end,
        exclude=season if season.pk else None,
        one_date_kept=one_date_kept,
    )
    if problems:
        raise ValidationError(problems)
    season.name, season.start, season.end = name, start, end
    try:
        with transaction.atomic():
            season.save()
    except IntegrityError as error:
        raise conflict("name", _("This club already has a season with this name.")) from error
    club_changed(season.club_id)
    return season


@transaction.atomic
def create_season(*, club: Club, name: str, start, end) -> Season:
    """A new season; seasons of one club never overlap and never share a name."""
    return _save_season(Season(club=club), name=name, start=start, end=end)


@transaction.atomic
def update_season(*, season: Season, name: str | None = None, start=None, end=None) -> Season:
    """Change a season's name or dates (what is left out stays)."""
    return _save_season(
        season,
        name=season.name if name is None else name,
        start=start or season.start,
        end=end or season.end,
        one_date_kept=(start is None) != (end is None),
    )


@transaction.atomic
def delete_season(*, season: Season) -> None:
    """Delete a season with nothing recorded in it; one with games or events stays."""
    try:
        with transaction.atomic():
            season.delete()
    except (RestrictedError, ProtectedError) as error:
        raise conflict(
            "season",
            _("%(season)s has games recorded in it and cannot be deleted.")
            % {"season": season.name},
        ) from error
    club_changed(season.club_id)


@transaction.atomic
def change_role(*, membership: Membership, role: str) -> Membership:
    if role not in Role.values:
        raise ValidationError({"role": _("Unknown role.")})
    locked = Membership.objects.select_for_update().get(pk=membership.pk)
    if locked.role == Role.ADMIN and role != Role.ADMIN:
        _keep_an_admin(locked.club)
    locked.role = role
    locked.save(update_fields=["role"])
    club_changed(locked.club_id)
    return locked


def _keep_an_admin(club: Club) -> None:
    # Lock every admin row so two admins demoting each other at once cannot both succeed.
    admins = list(Membership.objects.select_for_update().filter(club=club, role=Role.ADMIN))
    if len(admins) <= 1:
        raise conflict("role", _("A club must keep at least one admin."))


@transaction.atomic
def remove_member(*, membership: Membership) -> None:
    """The user leaves; their player stays in the club's history as a guest."""
    locked = Membership.objects.select_for_update().get(pk=membership.pk)
    if locked.role == Role.ADMIN:
        _keep_an_admin(locked.club)
    Player.objects.filter(club=locked.club, user=locked.user).update(user=None)
    locked.delete()
    club_changed(locked.club_id)


# The rules engine takes any non-negative cap and minimum; a club's settings stay sensible.
HOUSE_RULE_LIMITS = {"cap": 1_000_000, "idiot_min_games": 10_000}
# The least the rules engine accepts (RULES.md; ``rules.house_rules``), for the API schema.
HOUSE_RULE_MINIMUMS = {"cap": 0, "idiot_min_games": 1}


@transaction.atomic
def update_house_rules(*, club: Club, game: str, values: dict, by=None) -> HouseRuleSet:
    """Validate ``values`` with the rules engine and store them as a new version.

    Saving the same rules again adds no version.
    """
    if not isinstance(values, dict):
        raise ValidationError({"rules": [_("An object of house rules is required.")]})
    try:
        rules = as_dict(parse_house_rules(game, values))
    except RulesError as error:
        field = str(error.at or "rules").removeprefix("house_rules.")
        raise rules_validation_error(error, field=field) from error
    for name, highest in HOUSE_RULE_LIMITS.items():
        value = rules.get(name)
        if isinstance(value, int) and value > highest:
            raise ValidationError(
                {
                    name: [
                        _("At most %(limit)s.")
                        % {"limit": formats.number_format(highest, force_grouping=True)}
                    ]
                }
            )
    Club.objects.select_for_update().get(pk=club.pk)  # one version number at a time
    current = club.current_house_rules(game)
    if current is not None and current.rules == rules:
        return current
    version = HouseRuleSet.objects.create(
        club=club,
        game=game,
        version=(current.version + 1) if current else 1,
        rules=rules,
        created_by=by if by is not None and by.is_authenticated else None,
    )
    # What the games derive from the rules (a Spazz'u'mazz game's name) follows: each hook,
    # called in this transaction, queues its tasks (through the outbox, sent after commit);
    # clubs knows no game: their apps lend the hooks (``house_rules_changed``).
    for hook in parts("house_rules_changed"):
        hook(club_id=club.pk, game=game)
    club_changed(club.pk)
    return version


def house_rules_for(*, club: Club, game: str) -> dict:
    current = club.current_house_rules(game)
    if current is not None:
        return dict(current.rules)
    return as_dict(parse_house_rules(game, None))


@transaction.atomic
def create_invitation(
    *,
    club: Club,
    by,
    role: str = Role.MEMBER,
    player: Player | None = None,
    max_uses: int = 1,
    expires_at=None,
    email: str = "",
) -> Invitation:
    """A new invitation link; with ``email``, the link is mailed (by a task, after commit)."""

    invitation = Invitation(
        club=club, created_by=by, role=role, player=player, max_uses=max_uses, email=email
    )
    if expires_at is not None:
        if expires_at <= timezone.now():
            raise ValidationError({"expires_at": _("An invitation must expire in the future.")})
        invitation.expires_at = expires_at
    if player is not None and (player.club_id != club.pk or not player.is_guest):
        claim = _("Only a guest of this club can be claimed.")
        if player.club_id == club.pk:  # a member (or merged): the player is not a guest now
            raise conflict("player", claim)
        raise not_found("player", _("No such player in this club."))
    if player is not None and max_uses != 1:
        raise ValidationError({"max_uses": _("An invitation to claim a guest can be used once.")})
    invitation.full_clean()
    invitation.save()
    if invitation.email:
        send_invitation_email.delay_on_commit(invitation.pk)
        invitation_inbox.delay_on_commit(invitation_id=invitation.pk)
    club_changed(invitation.club_id)
    return invitation


@transaction.atomic
def accept_invitation(*, token: str, user) -> Membership:
    """``user`` joins the invitation's club; safe against two people using the last use at once."""
    invitation = Invitation.objects.select_for_update().filter(token=token).first()
    if invitation is None:
        raise not_found("token", _("No invitation has this code."))
    if not invitation.is_usable():
        raise conflict("token", _("This invitation is not valid any more."))
    membership = add_member(
        club=invitation.club, user=user, role=invitation.role, player=invitation.player
    )
    updated = Invitation.objects.filter(pk=invitation.pk, uses__lt=F("max_uses")).update(
        uses=F("uses") + 1
    )
    if updated != 1:
        # Another acceptance took the last use between our read and this write.
        raise conflict("token", _("This invitation is not valid any more."))
    invitation_inbox.delay_on_commit(invitation_id=invitation.pk)
    return membership


def revoke_invitation(*, invitation: Invitation) -> Invitation:
    if invitation.revoked_at is None:
        invitation.revoked_at = timezone.now()
        invitation.save(update_fields=["revoked_at"])
        invitation_inbox.delay_on_commit(invitation_id=invitation.pk)
        club_changed(invitation.club_id)
    return invitation
