"""People's accounts: signing up, confirming the e-mail address (a link mailed by a task),
the display name carried in every club, which clubs' end-of-evening reports to get. One
service per write, for the pages and the API alike (``clubs.services`` has the clubs')."""

from datetime import timedelta

from django.contrib.auth import get_user_model, password_validation
from django.core import signing
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from clubs.links import CONFIRMATION_MAX_AGE, CONFIRMATION_SALT
from clubs.models import (
    EmailConfirmation,
    Invitation,
    Membership,
    Player,
    Profile,
)
from clubs.services import accept_invitation, player_name, rename_player
from clubs.tasks import send_confirmation_email

User = get_user_model()

# A link is mailed again at most this often for one sign-up.
RESEND_INTERVAL = timedelta(minutes=1)


def _username_taken() -> str:
    return User._meta.get_field("username").error_messages["unique"]


@transaction.atomic
def sign_up(
    *,
    username: str,
    email: str,
    password: str,
    first_name: str = "",
    last_name: str = "",
    language: str = "it",
    invitation: str | None = None,
):
    """A new account, for the sign-up page and for joining through an invitation link.

    The account cannot log in until its e-mail address is confirmed: a link (signed, valid
    for ``CONFIRMATION_MAX_AGE``) is mailed by a task after commit, in ``language``.

    With ``invitation`` (a token) the new account also joins that club, in the same
    transaction: no account without the membership it was made for. An invitation that was
    e-mailed to this very address already proves the address works, so that account is
    active at once; an invitation link shared some other way proves nothing about the
    address typed here, so that account is confirmed by e-mail like any other.
    """

    email = User.objects.normalize_email(str(email).strip())
    user = User(
        username=str(username).strip(),
        email=email,
        first_name=" ".join(str(first_name).split()),
        last_name=" ".join(str(last_name).split()),
    )
    user.set_password(password)
    problems: dict[str, list[str]] = {}
    try:
        user.full_clean()
    except ValidationError as error:
        problems.update(error.message_dict)
    if not email:
        problems["email"] = [_("An e-mail address is needed to confirm the account.")]
    if "username" not in problems and User.objects.filter(username__iexact=user.username).exists():
        problems["username"] = [_username_taken()]
    try:
        password_validation.validate_password(password, user)
    except ValidationError as error:
        problems["password"] = error.messages
    if problems:
        raise ValidationError(problems)

    welcomed = False
    if invitation is not None:
        found = Invitation.objects.filter(token=invitation).only("email", "emailed_at").first()
        welcomed = bool(
            found and found.emailed_at and found.email and found.email.lower() == email.lower()
        )
    user.is_active = welcomed
    try:
        with transaction.atomic():
            user.save()
    except IntegrityError as error:  # the same username signed up meanwhile
        raise ValidationError({"username": [_username_taken()]}) from error
    if invitation is not None:
        accept_invitation(token=invitation, user=user)
    if not user.is_active:
        confirmation = EmailConfirmation.objects.create(user=user, email=email, language=language)
        send_confirmation_email.delay_on_commit(confirmation.pk)
    return user


def _link_not_valid() -> ValidationError:
    return ValidationError(
        _("This confirmation link is not valid. Ask for a new one below."), code="invalid"
    )


@transaction.atomic
def confirm_email(*, token: str):
    """Confirm a sign-up's address and activate its account; returns the user.

    Safe to run twice (a second click finds it confirmed). Raises ``ValidationError`` with
    the code ``"expired"`` (its ``params["email"]`` is the address, to ask for a new link)
    or ``"invalid"``.
    """
    max_age = CONFIRMATION_MAX_AGE.total_seconds()
    try:
        data = signing.loads(token, salt=CONFIRMATION_SALT, max_age=max_age)
    except signing.SignatureExpired as error:
        data = signing.loads(token, salt=CONFIRMATION_SALT)
        raise ValidationError(
            _("This confirmation link has expired. Ask for a new one below."),
            code="expired",
            params={"email": data.get("e", "")},
        ) from error
    except signing.BadSignature as error:
        raise _link_not_valid() from error
    if not isinstance(data, dict):
        raise _link_not_valid()
    confirmation = (
        EmailConfirmation.objects.select_for_update()
        .select_related("user")
        .filter(user_id=data.get("u"), email=data.get("e"))
        .first()
    )
    if confirmation is None:  # the sign-up is gone, or its address changed since
        raise _link_not_valid()
    user = confirmation.user
    if not confirmation.is_pending and not user.is_active:
        raise _link_not_valid()  # confirmed long ago, deactivated by an admin since
    if confirmation.is_pending:
        confirmation.confirmed_at = timezone.now()
        confirmation.save(update_fields=["confirmed_at"])
        user.is_active = True
        user.save(update_fields=["is_active"])
    return user


def resend_confirmation(*, email: str, at=None) -> int:
    """Mail a new confirmation link to each sign-up waiting with this address (none if the
    last link was asked for less than ``RESEND_INTERVAL`` ago); returns how many.

    Pages answer the same whatever the count: they never tell who has an account.
    """

    at = at or timezone.now()
    with transaction.atomic():
        waiting = list(
            EmailConfirmation.objects.pending()
            .select_for_update()
            .filter(email__iexact=str(email).strip(), requested_at__lte=at - RESEND_INTERVAL)
            .values_list("pk", flat=True)
        )
        EmailConfirmation.objects.filter(pk__in=waiting).update(requested_at=at)
        for pk in waiting:
            send_confirmation_email.delay_on_commit(pk)
    return len(waiting)


def waiting_for_confirmation(*, username: str, password: str):
    """The account, if ``username`` and ``password`` are right but its address is not
    confirmed yet (for the login page to say so); else None."""
    confirmation = (
        EmailConfirmation.objects.pending()
        .select_related("user")
        .filter(user__username=username, user__is_active=False)
        .first()
    )
    if confirmation is not None and confirmation.user.check_password(password):
        return confirmation.user
    return None


@transaction.atomic
def change_display_name(*, user, display_name: str) -> Profile:
    """The name the user's players carry in every club, and in the clubs they join later.

    Refused, changing nothing, if another player of one of their clubs has the name.
    """
    name = player_name(display_name)
    players = list(
        Player.objects.select_for_update().filter(user=user, merged_into=None).order_by("pk")
    )
    clubs = [player.club_id for player in players]
    taken = sorted(
        Player.objects.active()
        .filter(club__in=clubs, display_name=name)
        .exclude(user=user)
        .values_list("club__name", flat=True)
    )
    if taken:
        raise ValidationError(
            {
                "display_name": _("%(clubs)s already has a player with this name.")
                % {"clubs": ", ".join(taken)}
            }
        )
    for player in players:
        if player.display_name != name:
            rename_player(player=player, display_name=name)
    profile, _created = Profile.objects.update_or_create(user=user, defaults={"display_name": name})
    return profile


@transaction.atomic
def choose_night_reports(*, user, club_ids: set[int]) -> int:
    """Get the end-of-evening report by e-mail from the clubs ``club_ids`` (of the user's
    memberships; any other id is ignored) and from no other. How many clubs send it now."""
    mine = Membership.objects.filter(user=user)
    mine.exclude(club_id__in=club_ids).update(night_report=False)
    return mine.filter(club_id__in=club_ids).update(night_report=True)
