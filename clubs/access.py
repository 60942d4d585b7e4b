"""Who may see and do what in a club: the one door, for the web pages and the API alike.

The policy, everywhere:

- **404, "not found"**: a club the user may not see (a private club they are not in) reads
  exactly like a club that does not exist. So does any object the user may not see (an
  invitation to a non-admin, another club's membership): lists leave them out, and
  fetching one by id or slug is a 404.
- **403, "forbidden"**: a club the user may see, where the action needs a role they lack
  (a member adding a guest, an outsider opening a public club's members page or writing
  to it).
- **Log in first**: an anonymous user asking for anything that needs a role is asked to
  log in before anything else is looked at (the page redirects to the login page, the API
  answers 401), whether or not the club exists. Reading what the public may read needs no
  login; a private club is then a 404 like any club that does not exist.

The roles rank ``member < scorer < admin``: a scorer may do what a member may, an admin
what a scorer may.

- :func:`access_club` is the check: ``access_club(user, slug, at_least=Role.SCORER)``
  returns a :class:`ClubAccess` or raises ``Http404`` / ``PermissionDenied``.
- :class:`ClubOwnedQuerySet` gives every model that belongs to a club ``visible_to(user)``
  and ``where_role(user, at_least)``, the same rules for lists.
- :func:`club_page` wraps a page view; ``clubs.api.ClubAccessMixin`` does it for viewsets.

**Money** (balances, winnings, running balances, payments: the ledger, the money columns
and charts of the games' boards, a night's money) is the club's members' business:
:meth:`ClubAccess.sees_money` is the one decision, for the pages, the API and the
templates alike. Never the public nor other clubs' members; the club's members unless the
club hides it from them (``Club.members_see_money`` off: then its admins only); and
everyone their own figures.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import wraps

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.utils.translation import gettext as _

from clubs.models import (  # noqa: F401 - re-exported: the queryset rules live with the models
    RANK,
    Club,
    ClubOwnedQuerySet,
    Membership,
    Role,
    club_ids_showing_money,
    club_ids_where,
    role_in_club,
    roles_at_least,
)


def has_role(role: str | None, needed: str | None) -> bool:
    """Whether ``role`` (or no role) is enough for ``needed`` (None: nothing needed)."""
    if needed is None:
        return True
    return role is not None and RANK[role] >= RANK[needed]


@dataclass(frozen=True)
class ClubAccess:
    """A club the user may see, and their role in it (None for the public)."""

    club: Club
    role: str | None
    user_id: int | None = None  # who is looking (None: an anonymous visitor)

    def has(self, needed: str | None) -> bool:
        return has_role(self.role, needed)

    @property
    def is_member(self) -> bool:
        return self.has(Role.MEMBER)

    @property
    def is_scorer(self) -> bool:
        """A scorer or an admin: who records and decides results."""
        return self.has(Role.SCORER)

    @property
    def is_admin(self) -> bool:
        return self.has(Role.ADMIN)

    def sees_money(self, player=None) -> bool:
        """Whether this user may see money in the club: everyone's (``player`` None: a
        leaderboard's money column, a night's totals, the club's balances) or ``player``'s
        (their page, their statement). Their own figures, always; everyone's, the club's
        admins, and its members unless the club hides money from them. (Lists of many clubs
        filter by the same rule: :func:`club_ids_showing_money`.)"""
        if player is not None and self.user_id is not None and player.user_id == self.user_id:
            return True
        return self.is_admin or (self.is_member and self.club.members_see_money)

    @property
    def role_label(self) -> str | None:
        return Role(self.role).label if self.role else None

    def require(self, needed: str | None) -> ClubAccess:
        """This access if the role is enough, else ``PermissionDenied`` naming the role."""
        if not self.has(needed):
            raise PermissionDenied(
                _("This needs the %(role)s role in %(club)s.")
                % {"role": Role(needed).label, "club": self.club.name}
            )
        return self


def access_with_role(
    club: Club | None,
    role: str | None,
    *,
    at_least: str | None = None,
    user_id: int | None = None,
):
    """:func:`access_club`'s decision for a club and role already read (``user_id``: who
    is looking, for what is theirs)."""
    if club is None or not (club.is_public or role is not None):
        raise Http404(_("No such club."))
    return ClubAccess(club=club, role=role, user_id=user_id).require(at_least)


def read_with_role(club: Club, user) -> Club:
    """Mark ``club``, read with ``user``'s role in it as ``role_here``
    (``Club.objects.visible_with_role``), so that :func:`access_club` asks no more."""
    club.role_read_for = user.pk
    return club


def access_club(
    user, club: str | Club, *, at_least: str | None = None, annotate: dict | None = None
) -> ClubAccess:
    """The club (a slug, or a club already fetched) as ``user`` may see it.

    ``Http404`` if the user may not see it (or it does not exist); ``PermissionDenied`` if
    they may see it but their role is below ``at_least``. One query (none for an anonymous
    user and a club already fetched, nor for a club read with the user's role:
    :func:`read_with_role`). ``annotate``: more of the club read in that same
    query (a page's counts), as attributes of ``access.club``.
    """
    user_id = user.pk if user.is_authenticated else None
    if isinstance(club, Club) and not annotate and vars(club).get("role_read_for", 0) == user_id:
        return access_with_role(club, club.role_here, at_least=at_least, user_id=user_id)
    lookup = {"pk": club.pk} if isinstance(club, Club) else {"slug": club}
    if user.is_authenticated:
        clubs = Club.objects.annotate(my_role=role_in_club(user, "pk"), **(annotate or {}))
        found = clubs.filter(**lookup).order_by().first()
        role = found.my_role if found is not None else None
    else:
        if isinstance(club, Club) and not annotate:
            found = club
        else:
            found = Club.objects.annotate(**(annotate or {})).filter(**lookup).order_by().first()
        role = None
    return access_with_role(found, role, at_least=at_least, user_id=user_id)


def club_page(at_least: str | None = None, *, annotate: dict | None = None):
    """Decorate a page view ``view(request, access, *args)`` reached by ``<slug:slug>``.

    Anonymous users are sent to the login page when the page needs a role. ``annotate``:
    as for :func:`access_club` (what the page reads of the club, in the access query).
    """

    def decorator(view):
        @wraps(view)
        def wrapper(request, slug, *args, **kwargs):
            if at_least is not None and not request.user.is_authenticated:
                return redirect_to_login(request.get_full_path())
            access = access_club(request.user, slug, at_least=at_least, annotate=annotate)
            return view(request, access, *args, **kwargs)

        return wrapper

    return decorator


def roles_by_club(request) -> dict[int, str]:
    """The requesting user's role in each of their clubs, looked up once per request (for
    lists that show a role per row)."""
    roles = getattr(request, "_circolo_roles", None)
    if roles is None:
        user = request.user
        roles = (
            dict(Membership.objects.filter(user=user).values_list("club_id", "role"))
            if user.is_authenticated
            else {}
        )
        request._circolo_roles = roles
    return roles
