"""The club nights' writes, one service each for the pages and the API: scheduling a night
(admins), cancelling it, and an answer (a member's own; an admin's for a guest).

**The cap** works as a tournament's: while fewer than ``capacity`` people say yes, a yes
is a place; past it, a yes waits on the list, in the order answered. A place freed (a yes
turned no or maybe) goes to the first who waits, who is told in their inbox and by push
(``tasks.sync_night``). A night that is over, or cancelled, takes no more answers.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from clubs.access import access_club
from clubs.models import Club, Game, Player, Role
from matches import boards
from matches.nights.models import Answer, ClubNight, NightAnswer
from matches.nights.tasks import sync_night
from plumbing import public_pages
from plumbing.errors import Conflict, conflict

AREA = "nights"  # the club's pages that show its scheduled nights (``plumbing.public_pages``)
MAX_CAPACITY = 10_000
NIGHT_LENGTH = timedelta(hours=12)  # a night's list keeps it among the coming ones this long


def _clean_games(games) -> list[str]:
    if not isinstance(games, list) or not games or any(g not in Game.values for g in games):
        raise ValidationError(
            {
                "games": _("A list of what will be played: %(games)s.")
                % {"games": ", ".join(Game.values)}
            }
        )
    return [g for g in Game.values if g in games]  # each once, in the site's order


def _clean_capacity(capacity) -> int | None:
    if capacity is None:
        return None
    if isinstance(capacity, bool) or not isinstance(capacity, int):
        raise ValidationError({"capacity": _("A whole number of places, or empty.")})
    if not 1 <= capacity <= MAX_CAPACITY:
        raise ValidationError(
            {"capacity": _("From 1 to %(most)s places.") % {"most": MAX_CAPACITY}}
        )
    return capacity


def ends_at(night: ClubNight) -> datetime:
    """When the night is over: 06:00 the morning after (``boards.night_bounds``)."""
    return boards.night_bounds(boards.night_of(night.starts_at))[1]


def is_over(night: ClubNight, *, at=None) -> bool:
    return (at or timezone.now()) >= ends_at(night)


@transaction.atomic
def schedule_night(
    *, club: Club, by, starts_at: datetime, games, capacity=None, note: str = ""
) -> ClubNight:
    access_club(by, club, at_least=Role.ADMIN)
    if not isinstance(starts_at, datetime) or timezone.is_naive(starts_at):
        raise ValidationError({"starts_at": _("A date and time with its time zone.")})
    if boards.night_bounds(boards.night_of(starts_at))[1] <= timezone.now():
        raise conflict("starts_at", _("This night is over already."))
    note = " ".join(str(note or "").split())
    if len(note) > 200:
        raise ValidationError({"note": _("At most 200 characters.")})
    night = ClubNight.objects.create(
        club=club,
        starts_at=starts_at,
        games=_clean_games(games),
        capacity=_clean_capacity(capacity),
        note=note,
        created_by=by,
    )
    public_pages.changed(club.pk, AREA)
    sync_night.delay_on_commit(night_id=night.pk)
    return night


@transaction.atomic
def cancel_night(*, night: ClubNight, by) -> ClubNight:
    access_club(by, night.club, at_least=Role.ADMIN)
    night = ClubNight.objects.select_for_update().get(pk=night.pk)
    if night.cancelled_at is None:
        night.cancelled_at = timezone.now()
        night.save(update_fields=["cancelled_at"])
        public_pages.changed(night.club_id, AREA)
        sync_night.delay_on_commit(night_id=night.pk)
    return night


def _player_for(night: ClubNight, by, player: Player | None) -> Player:
    """Whose answer it is: the member's own, or (an admin's) a guest's."""
    access = access_club(by, night.club, at_least=Role.MEMBER)
    own = Player.objects.filter(club=night.club, user=by, merged_into__isnull=True).first()
    if player is None or (own is not None and player.pk == own.pk):
        if own is None:
            raise ValidationError({"player": _("You have no player in this club.")})
        return own
    if player.club_id != night.club_id or player.merged_into_id is not None:
        raise ValidationError({"player": _("This is not a player of this club.")})
    if not access.is_admin:
        raise PermissionDenied(_("Members answer for themselves; an admin answers for guests."))
    if not player.is_guest:
        raise PermissionDenied(_("A member answers for themselves."))
    return player


def places_taken(night: ClubNight) -> int:
    return night.answers.filter(answer=Answer.YES, waiting=False).count()


def _promote(night: ClubNight) -> NightAnswer | None:
    """The first who waits takes the place freed."""
    first = night.answers.filter(waiting=True).order_by("answered_at", "pk").first()
    if first is not None:
        first.waiting, first.promoted_at = False, timezone.now()
        first.save(update_fields=["waiting", "promoted_at"])
    return first


@transaction.atomic
def answer(*, night: ClubNight, by, answer: str, player: Player | None = None) -> NightAnswer:
    """``player``'s answer (yes, no, maybe) to the night; a yes past the cap waits."""
    if answer not in Answer.values:
        raise ValidationError({"answer": _("Answer yes, no or maybe.")})
    who = _player_for(night, by, player)
    night = ClubNight.objects.select_for_update().get(pk=night.pk)
    if night.cancelled_at is not None:
        raise Conflict(_("This club night is cancelled."))
    if is_over(night):
        raise Conflict(_("This club night is over."))
    row = NightAnswer.objects.filter(night=night, player=who).first()
    had_place = row is not None and row.answer == Answer.YES and not row.waiting
    if row is not None and row.answer == answer:
        return row
    full = (
        answer == Answer.YES
        and night.capacity is not None
        and places_taken(night) >= night.capacity
    )
    if row is None:
        row = NightAnswer(night=night, player=who)
    row.answer, row.waiting, row.answered_at, row.by = answer, full, timezone.now(), by
    row.promoted_at = None
    row.save()
    if had_place and answer != Answer.YES:
        _promote(night)
    public_pages.changed(night.club_id, AREA)
    sync_night.delay_on_commit(night_id=night.pk)
    return row
