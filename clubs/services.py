"""Writes that touch the clubs' models: each one a keyword-only function in one transaction."""

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone
from django.utils.text import slugify
from django.utils.translation import gettext as _

from clubs.models import Club, HouseRuleSet, Invitation, Membership, Player, Role
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
    club = Club(name=name, slug=fields.pop("slug", None) or unique_slug(name), **fields)
    club.full_clean()
    club.save()
    add_member(club=club, user=founder, role=Role.ADMIN)
    return club


def display_name_for(user) -> str:
    return user.get_full_name() or user.get_username()


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
            _("%(user)s is already a member of %(club)s.") % {"user": user, "club": club}
        )
    membership = Membership.objects.create(club=club, user=user, role=role)
    own = club.players.filter(user=user).first()
    if player is not None:
        if player.club_id != club.pk or not player.is_guest or player.merged_into_id:
            raise ValidationError({"player": _("Only a guest of this club can be claimed.")})
        if own is not None:
            merge_players(source=player, target=own)
        else:
            player.user = user
            player.save(update_fields=["user"])
    elif own is None:
        Player.objects.create(
            club=club, user=user, display_name=_free_name(club, display_name_for(user))
        )
    return membership


@transaction.atomic
def add_guest(*, club: Club, display_name: str) -> Player:
    name = display_name.strip()
    if not name:
        raise ValidationError({"display_name": _("A guest needs a name.")})
    taken = ValidationError({"display_name": _("This club already has a player with this name.")})
    if club.players.active().filter(display_name=name).exists():
        raise taken
    try:
        with transaction.atomic():
            return Player.objects.create(club=club, display_name=name)
    except IntegrityError as error:  # another request added the same name meanwhile
        raise taken from error


@transaction.atomic
def change_role(*, membership: Membership, role: str) -> Membership:
    if role not in Role.values:
        raise ValidationError({"role": _("Unknown role.")})
    locked = Membership.objects.select_for_update().get(pk=membership.pk)
    if locked.role == Role.ADMIN and role != Role.ADMIN:
        _keep_an_admin(locked.club)
    locked.role = role
    locked.save(update_fields=["role"])
    return locked


def _keep_an_admin(club: Club) -> None:
    # Lock every admin row so two admins demoting each other at once cannot both succeed.
    admins = list(Membership.objects.select_for_update().filter(club=club, role=Role.ADMIN))
    if len(admins) <= 1:
        raise ValidationError({"role": _("A club must keep at least one admin.")})


@transaction.atomic
def remove_member(*, membership: Membership) -> None:
    """The user leaves; their player stays in the club's history as a guest."""
    locked = Membership.objects.select_for_update().get(pk=membership.pk)
    if locked.role == Role.ADMIN:
        _keep_an_admin(locked.club)
    Player.objects.filter(club=locked.club, user=locked.user).update(user=None)
    locked.delete()


def _player_references():
    """Every foreign key to Player in any app: what a merge moves.

    A guest's pending invitations are revoked rather than moved, and the merge
    bookkeeping itself (``merged_into``) is handled by the merge.
    """
    for relation in Player._meta.related_objects:
        if relation.many_to_many or relation.related_model in (Player, Invitation):
            continue
        yield relation.related_model, relation.field.name


@transaction.atomic
def merge_players(*, source: Player, target: Player) -> Player:
    """Move everything that points at ``source`` (a guest) to ``target`` and retire ``source``.

    Works for every model of every app that references a player, so history recorded by
    later features moves too. If both played in the same game the merge would make one
    player face themself: it is refused and nothing changes.
    """
    if source.pk == target.pk:
        raise ValidationError({"target": _("A player cannot be merged into themself.")})
    if source.club_id != target.club_id:
        raise ValidationError({"target": _("Players of different clubs cannot be merged.")})
    source, target = (
        Player.objects.select_for_update().get(pk=source.pk),
        Player.objects.select_for_update().get(pk=target.pk),
    )
    if not source.is_guest:
        raise ValidationError({"source": _("Only a guest can be merged into another player.")})
    if source.merged_into_id or target.merged_into_id:
        raise ValidationError({"source": _("This player has already been merged.")})
    Invitation.objects.filter(player=source, revoked_at__isnull=True).update(
        revoked_at=timezone.now()
    )
    try:
        with transaction.atomic():
            for model, field_name in _player_references():
                model.objects.filter(**{field_name: source}).update(**{field_name: target})
    except IntegrityError as error:
        raise ValidationError(
            {
                "target": _(
                    "%(source)s and %(target)s played in the same game: they cannot be merged."
                )
                % {"source": source, "target": target}
            }
        ) from error
    source.merged_into = target
    source.save(update_fields=["merged_into"])
    Player.objects.filter(merged_into=source).update(merged_into=target)
    return target


@transaction.atomic
def update_house_rules(*, club: Club, game: str, values: dict, by=None) -> HouseRuleSet:
    """Validate ``values`` with the rules engine and store them as a new version.

    Saving the same rules again adds no version.
    """
    try:
        rules = as_dict(parse_house_rules(game, values))
    except RulesError as error:
        field = str(error.at or "rules").removeprefix("house_rules.")
        raise ValidationError({field: [error.message]}) from error
    Club.objects.select_for_update().get(pk=club.pk)  # one version number at a time
    current = club.current_house_rules(game)
    if current is not None and current.rules == rules:
        return current
    return HouseRuleSet.objects.create(
        club=club,
        game=game,
        version=(current.version + 1) if current else 1,
        rules=rules,
        created_by=by if by is not None and by.is_authenticated else None,
    )


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
    from clubs.tasks import send_invitation_email

    invitation = Invitation(
        club=club, created_by=by, role=role, player=player, max_uses=max_uses, email=email
    )
    if expires_at is not None:
        if expires_at <= timezone.now():
            raise ValidationError({"expires_at": _("An invitation must expire in the future.")})
        invitation.expires_at = expires_at
    if player is not None and (player.club_id != club.pk or not player.is_guest):
        raise ValidationError({"player": _("Only a guest of this club can be claimed.")})
    if player is not None and max_uses != 1:
        raise ValidationError({"max_uses": _("An invitation to claim a guest can be used once.")})
    invitation.full_clean()
    invitation.save()
    if invitation.email:
        send_invitation_email.delay_on_commit(invitation.pk)
    return invitation


@transaction.atomic
def accept_invitation(*, token: str, user) -> Membership:
    """``user`` joins the invitation's club; safe against two people using the last use at once."""
    invitation = Invitation.objects.select_for_update().filter(token=token).first()
    if invitation is None or not invitation.is_usable():
        raise ValidationError({"token": _("This invitation is not valid any more.")})
    membership = add_member(
        club=invitation.club, user=user, role=invitation.role, player=invitation.player
    )
    updated = Invitation.objects.filter(pk=invitation.pk, uses__lt=F("max_uses")).update(
        uses=F("uses") + 1
    )
    if updated != 1:
        # Another acceptance took the last use between our read and this write.
        raise ValidationError({"token": _("This invitation is not valid any more.")})
    return membership


def revoke_invitation(*, invitation: Invitation) -> Invitation:
    if invitation.revoked_at is None:
        invitation.revoked_at = timezone.now()
        invitation.save(update_fields=["revoked_at"])
    return invitation
