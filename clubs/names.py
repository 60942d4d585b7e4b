"""The name a person goes by in a club, for everything people read (histories, audits,
"reported by", "saved by"): their player's display name in that club, else the one on
their profile, else their full name; a user name only when nothing else is known."""

from __future__ import annotations

from clubs.models import Player, Profile


def names_of(club_id: int, user_ids: set[int]) -> dict[int, str]:
    """The name each user goes by in the club: their player's, else their profile's (two
    queries at most). Users with neither are left out."""
    names = dict(
        Player.objects.filter(club_id=club_id, user_id__in=user_ids).values_list(
            "user_id", "display_name"
        )
    )
    missing = user_ids - set(names)
    if missing:
        names.update(
            (user_id, name)
            for user_id, name in Profile.objects.filter(user_id__in=missing).values_list(
                "user_id", "display_name"
            )
            if name
        )
    return names


def name_in_club(club_id: int, user, names: dict[int, str] | None = None) -> str:
    """``user``'s name in the club (``names``: from :func:`names_of`, else looked up)."""
    if names is None:
        names = names_of(club_id, {user.pk})
    return names.get(user.pk) or user.get_full_name() or user.get_username()
