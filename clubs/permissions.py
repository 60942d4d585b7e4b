"""Who may do what in a club. One place for the web pages and the API alike.

- the public sees public clubs;
- a member sees the private pages of their club and reports their own results;
- a scorer also records results and adds guests;
- an admin manages the club.

A club the user may not see is a 404 (never a 403 that reveals it exists).
"""

from django.http import Http404
from django.shortcuts import get_object_or_404

from clubs.models import Club, Role

RANK = {Role.MEMBER: 1, Role.SCORER: 2, Role.ADMIN: 3}


def has_role(role: str | None, needed: str) -> bool:
    return role is not None and RANK[role] >= RANK[needed]


def visible_club(user, slug: str) -> Club:
    """The club ``slug`` if ``user`` may see it, else 404."""
    return get_object_or_404(Club.objects.visible_to(user), slug=slug)


def club_for_role(user, slug: str, needed: str) -> tuple[Club, str]:
    """The club and ``user``'s role in it, if at least ``needed``; else 404.

    Private pages of a club you don't belong to are 404 whether the club is public or
    not; a member lacking the role gets a 403 from the caller (they know the club).
    """
    club = visible_club(user, slug)
    role = club.role_of(user)
    if role is None:
        raise Http404
    return club, role
