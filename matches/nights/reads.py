"""The club nights as their pages and the API read them: who is coming, who waits, who was
there, each shown by what the reader may see (names to members, counts to everyone)."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.utils import timezone

from matches.nights import attendance, services
from matches.nights.models import Answer, ClubNight, NightAnswer


@dataclass
class NightView:
    night: ClubNight
    member: bool  # the reader is a member of the club: names, not only counts
    coming: list[NightAnswer] = field(default_factory=list)
    waiting: list[NightAnswer] = field(default_factory=list)
    maybe: list[NightAnswer] = field(default_factory=list)
    attended: set[int] | None = None  # after the night
    mine: NightAnswer | None = None

    @property
    def over(self) -> bool:
        return services.is_over(self.night)

    @property
    def full(self) -> bool:
        return self.night.capacity is not None and len(self.coming) >= self.night.capacity

    @property
    def said_yes_and_missed(self) -> bool:
        """The reader's own record: they said yes and played nowhere that night."""
        return (
            self.attended is not None
            and self.mine is not None
            and self.mine.answer == Answer.YES
            and not self.mine.waiting
            and self.mine.player_id not in self.attended
        )


def views_of(nights, *, user, member) -> list[NightView]:
    """The nights as the reader sees them: every night's answers in one query, and who was
    there (two queries) for each night that has started. ``member``: whether the reader is
    a member of the nights' club, or a function of a night saying it."""
    nights = list(nights)
    views = {
        n.pk: NightView(night=n, member=member(n) if callable(member) else member) for n in nights
    }
    answers = NightAnswer.objects.filter(night__in=nights).select_related("player")
    for row in answers.order_by("answered_at", "pk"):
        view = views[row.night_id]
        if row.answer == Answer.YES:
            (view.waiting if row.waiting else view.coming).append(row)
        elif row.answer == Answer.MAYBE:
            view.maybe.append(row)
        if user.is_authenticated and row.player.user_id == user.pk:
            view.mine = row
    now = timezone.now()
    for view in views.values():
        if view.night.starts_at <= now:
            view.attended = attendance.attended(view.night)
    return [views[n.pk] for n in nights]


def view_of(night: ClubNight, *, user, member: bool) -> NightView:
    return views_of([night], user=user, member=member)[0]


def body(view: NightView) -> dict:
    night, member = view.night, view.member
    return {
        "id": night.pk,
        "club": night.club.slug,
        "starts_at": night.starts_at,
        "games": night.games,
        "capacity": night.capacity,
        "note": night.note,
        "cancelled": night.cancelled_at is not None,
        "over": view.over,
        "coming": [a.player_id for a in view.coming] if member else [],
        "coming_count": len(view.coming),
        "waiting": [a.player_id for a in view.waiting] if member else [],
        "waiting_count": len(view.waiting),
        "attended": sorted(view.attended) if member and view.attended is not None else [],
        "attended_count": len(view.attended) if view.attended is not None else None,
        "mine": view.mine.answer if view.mine else None,
    }


def bodies(nights, *, user, member_of: set[int]) -> list[dict]:
    views = views_of(nights, user=user, member=lambda night: night.club_id in member_of)
    return [body(view) for view in views]
