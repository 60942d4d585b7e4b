"""Whole pages for the public: a public club's page, leaderboards and player pages, as an
anonymous visitor sees them, served from the cache.

What an anonymous visitor sees of a public club is the same for every anonymous visitor
(in one language, at one address), so :func:`public_page` keeps such a page whole and
answers the next visitor with it in one query and one cache read, instead of the page's
dozen queries and its templates. What keeps it honest:

- **The access check still runs on every request**, as one lean query (the club's row by
  its slug): a club that is private, or gone, is never answered from the cache; the page's
  own view answers (a 404 like any club that does not exist).
- **Only anonymous GET requests** without a session or pending messages use the cache:
  anyone logged in (every role) gets the live page, built for them; nothing a role sees
  is ever stored, nor served to anyone else. So no page stored here carries money (a
  club's money is for its members: ``clubs.access.ClubAccess.sees_money``).
- **The club's row is part of the entry**: any change to the club (its name, description,
  meeting times, privacy) shows at once. The club is the model ``PUBLIC_PAGE_CLUB`` names
  (``clubs.Club``: a ``slug`` and ``is_public``); this module imports no app, so that
  every app's pages may use it.
- **The versions of what the page shows are part of the entry**: a club's pages are kept by
  *area* (:data:`CLUB`, the club's ledger, a game's boards, one table, tonight: the names
  are the apps'), and each page names the areas it shows (``@public_page("ledger")``; a
  name may hold the view's arguments, ``"singapore-table:{session_id}"``). The service
  that writes names what it changed (:func:`changed`), in the write's own transaction;
  the areas' versions move once it commits, and only that club's pages of those areas are
  built again. A write that is refused, or that rolls back, changes nothing. Every page
  shows :data:`CLUB` (the club's people, roles, seasons and house rules), and
  :data:`ANYTHING` moves with every change (for a page that shows all of a club).
- **Everything else reaches the public within** ``PUBLIC_PAGE_SECONDS`` (60 s): what a task
  or a command writes without bumping a version.
- **Each process answers from its own memory for a second** (``PUBLIC_PAGE_RECHECK_SECONDS``)
  a page it has just checked: no query and no cache read at all, which is what lets a busy
  page keep pace with a bare view. So a change, even a club turning private, reaches the
  public within that second (at once in the process that made it); the page it shows
  meanwhile is the one that was public a moment before, and never anything a role sees.
  0 turns this off (every request checks the club).
- **Each visitor gets their own CSRF token** (the language form): the page is stored with a
  hole where the token goes, filled in per request (:func:`csrf_hole` is the context
  processor that makes the hole while such a page is rendered).

**What the members see** (:func:`shared`): a member's page is built per request, but what
every member of one role sees of a club (a section of the club page, a table's hands, the
ledger's rows) is kept once per club state, under the versions of the areas it shows. The
page adds only the member's own part (their next match, their seat) live. A write outside
the services (a command's raw SQL) shows within ``PUBLIC_PAGE_SECONDS``. A cache that
fails is a miss: the page is built from the database, never a 500.

A cache shared by the server's processes (Redis, in production) sees a version bump at
once everywhere; with the default per-process memory cache each process has its own
versions, so a process that did not serve the change shows it once its entry expires.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable
from functools import cache, wraps

from django.apps import apps
from django.conf import settings
from django.core.cache import cache as django_cache
from django.core.signals import setting_changed
from django.db import connection, transaction
from django.dispatch import receiver
from django.http import HttpResponse
from django.middleware.csrf import get_token
from django.utils import translation

from plumbing.parts import parts

log = logging.getLogger(__name__)

CSRF_HOLE = "csrf-hole-8c1f2e"
CLUB = "club"  # a club's own area: its row, people, roles, seasons, house rules (every page)
ANYTHING = "anything"  # moves with every change to the club: a page that shows all of it
# A session's last write (``circolo.middleware.WritesForgetOwnPages``): the pages a process
# keeps in memory for a session are kept under it, so a write misses them in every process.
WROTE_COOKIE = "circolo_wrote"
WROTE_SECONDS = 60  # far longer than a page is kept in memory
MEMORY_PAGES = 500  # pages each process keeps in memory at most (then it starts afresh)

# (slug, language, path) -> (when it was checked, on the monotonic clock; the page); for a
# member's page (session:<its cookie>, language, path)
_memory: dict[tuple[str, ...], tuple[float, str]] = {}
# A club's id by its slug, for a member's page (its versions are by id)
_club_ids: dict[str, int] = {}


@cache
def _club_query() -> tuple[str, int]:
    """The lean query of the club's row by slug (no ORM: it runs on every request), and
    the position of ``is_public`` in the row."""
    club = apps.get_model(settings.PUBLIC_PAGE_CLUB)
    fields = club._meta.concrete_fields
    quote = connection.ops.quote_name
    columns = ", ".join(quote(field.column) for field in fields)
    table = quote(club._meta.db_table)
    public = [field.name for field in fields].index("is_public")
    return f"SELECT {columns} FROM {table} WHERE {quote('slug')} = %s", public


def forget() -> None:
    """What the public sees changed (a feature bumped a version, the club was changed):
    this process forgets the pages it keeps in memory; the others do within
    ``PUBLIC_PAGE_RECHECK_SECONDS``."""
    _memory.clear()
    _club_ids.clear()


def forget_session(session: str) -> None:
    """This process forgets the pages it keeps in memory for one session (it wrote)."""
    for remembered in [key for key in list(_memory) if key[0] == f"session:{session}"]:
        _memory.pop(remembered, None)


@receiver(setting_changed)
def _forget(*, setting, **kwargs):
    _memory.clear()
    if setting in ("DATABASES", "PUBLIC_PAGE_CLUB"):
        _club_query.cache_clear()


def _club_row(slug: str) -> tuple | None:
    """The club's row by its slug (the lean query), None if there is no such club."""
    sql, _public = _club_query()
    with connection.cursor() as cursor:
        cursor.execute(sql, [slug])
        row = cursor.fetchone()
    return tuple(row) if row is not None else None


def _public_club_row(slug: str) -> tuple | None:
    """The club's row if the club exists and is public; None otherwise."""
    row = _club_row(slug)
    return row if row is not None and row[_club_query()[1]] else None


def _remember(remembered: tuple, now: float, html: str) -> None:
    """Keep a page in this process's memory (at most ``MEMORY_PAGES``, then afresh)."""
    if settings.PUBLIC_PAGE_RECHECK_SECONDS:
        if len(_memory) >= MEMORY_PAGES:
            _memory.clear()
        _memory[remembered] = (now, html)


def _versions(club_id: int, found: dict, keys: list[str]) -> tuple:
    """The club's version numbers; a missing one (a cleared cache) starts from the clock,
    as ``matches.boards.version`` does."""
    values = []
    for key in keys:
        value = found.get(key)
        if value is None:
            value = time.time_ns()
            if not django_cache.add(key, value, timeout=None):
                value = django_cache.get(key, value)
        values.append(value)
    return tuple(values)


def area_key(club_id: int, area: str) -> str:
    """The cache key of one of a club's areas' versions."""
    return f"club-area:{club_id}:{area}"


def _area_keys(club_id: int, areas) -> list[str]:
    """The version keys a page of these areas is kept under (the club's own always)."""
    return [area_key(club_id, area) for area in dict.fromkeys((CLUB, *areas))]


def changed(club_id: int, *areas: str) -> None:
    """A write changed what the club ``club_id`` shows in ``areas``: once the write's
    transaction commits (at once outside one), the pages of those areas, and of
    :data:`ANYTHING`, are built again; a write that rolls back changes nothing. A cache that
    fails leaves the pages to expire (``PUBLIC_PAGE_SECONDS``), never fails the write."""
    keys = [area_key(club_id, area) for area in dict.fromkeys((*areas, ANYTHING))]

    def bump() -> None:
        try:
            django_cache.set_many(dict.fromkeys(keys, time.time_ns()), timeout=None)
        except Exception as error:  # noqa: BLE001 - the write stands; the pages expire
            log.warning("changed: the cache failed to move %s: %s", keys, error)
        _memory.clear()  # this process's pages at once (the clubs' ids stay as they are)

    transaction.on_commit(bump)


def version(club_id: int, area: str) -> int:
    """One area's version now (for a cache of the app's own, keyed on it); a cache that
    fails gives a version of its own, so that what is keyed on it is built afresh."""
    key = area_key(club_id, area)
    try:
        return _versions(club_id, {key: django_cache.get(key)}, [key])[0]
    except Exception as error:  # noqa: BLE001 - any cache failure is a miss, never a 500
        log.warning("version: the cache failed, a version of its own: %s", error)
        return time.time_ns()


def _named(areas: tuple[str, ...], kwargs: dict) -> tuple[str, ...]:
    """The areas a view names, with its arguments filled in (``"table:{session_id}"``)."""
    return tuple(area.format(**kwargs) if "{" in area else area for area in areas)


def shared(
    club,
    parts: tuple,
    build: Callable[[], object],
    *,
    areas: tuple[str, ...],
    seconds: int | None = None,
):
    """What ``build()`` returns for this club and ``parts`` (say: the page, the role), kept
    in the cache while the versions of the club's ``areas`` stay (and at most
    ``seconds``, ``PUBLIC_PAGE_SECONDS`` by default), in the language of the request. One
    cache read when kept; ``build()`` must return something the cache can store (rows,
    rendered HTML), and nothing about who asks but ``parts``. A failing cache builds."""
    language = translation.get_language()
    name = hashlib.sha256(repr((club.pk, language, parts)).encode()).hexdigest()[:32]
    key = f"shared:{club.pk}:{name}"
    version_keys = _area_keys(club.pk, areas)
    try:
        found = django_cache.get_many([key, *version_keys])
        state = _versions(club.pk, found, version_keys)
    except Exception as error:  # noqa: BLE001 - any cache failure is a miss, never a 500
        log.warning("shared: the cache failed, built afresh: %s", error)
        return build()
    stored = found.get(key)
    if stored is not None and stored[0] == state:
        return stored[1]
    value = build()
    try:
        django_cache.set(key, (state, value), seconds or settings.PUBLIC_PAGE_SECONDS)
    except Exception as error:  # noqa: BLE001
        log.warning("shared: the cache failed to keep an entry: %s", error)
    return value


def _anonymous_get(request) -> bool:
    cookies = request.COOKIES
    return (
        request.method == "GET"
        and settings.SESSION_COOKIE_NAME not in cookies
        and "messages" not in cookies
        and not request.headers.get("HX-Request")
        and not request.user.is_authenticated
    )


def public_page(*areas: str):
    """Serve ``view(request, slug, ...)`` (a page of the club ``slug``, behind its access
    check, showing ``areas``) from the cache for anonymous visitors of a public club: see
    the module."""
    return lambda view: _public_page(view, areas)


def _public_page(view, areas: tuple[str, ...]):
    @wraps(view)
    def wrapper(request, slug, *args, **kwargs):
        seconds = settings.PUBLIC_PAGE_SECONDS
        if not seconds or not _anonymous_get(request):
            return view(request, slug, *args, **kwargs)
        language, full_path = translation.get_language(), request.get_full_path()
        remembered = (slug, language, full_path)
        now = time.monotonic()
        kept = _memory.get(remembered)
        if kept is not None and now - kept[0] < settings.PUBLIC_PAGE_RECHECK_SECONDS:
            return HttpResponse(kept[1].replace(CSRF_HOLE, get_token(request)))
        row = _public_club_row(slug)
        if row is None:  # private or missing: the view's access check answers
            _memory.pop(remembered, None)
            return view(request, slug, *args, **kwargs)
        club_id = row[0]
        path = hashlib.sha256(full_path.encode()).hexdigest()[:32]
        key = f"public-page:{club_id}:{language}:{path}"
        version_keys = _area_keys(club_id, _named(areas, kwargs))
        found = django_cache.get_many([key, *version_keys])
        state = (row, _versions(club_id, found, version_keys))
        stored = found.get(key)
        if stored is not None and stored[0] == state:
            html = stored[1]
        else:
            request.csrf_hole = True
            response = view(request, slug, *args, **kwargs)
            if response.status_code != 200 or response.streaming or response.cookies:
                return response
            html = response.content.decode()
            django_cache.set(key, (state, html), seconds)
        _remember(remembered, now, html)
        return HttpResponse(html.replace(CSRF_HOLE, get_token(request)))

    return wrapper


def _member_get(request) -> bool:
    """A member's plain GET of a page: signed in, no message waiting to be shown (in its
    cookie or in the session), not a fragment."""
    return (
        request.method == "GET"
        and "messages" not in request.COOKIES
        and not request.headers.get("HX-Request")
        and request.user.is_authenticated
        and "_messages" not in request.session
    )


def _member_versions(user_id: int) -> list[str]:
    return [version_key(user_id) for version_key in _member_version_functions()]


def _member_version_functions() -> list:
    """The apps' versions of a member's kept page: ``member_page_versions``."""
    return parts("member_page_versions")


def member_page(*areas: str):
    """Serve ``view(request, slug, ...)`` to a signed-in user from the cache while nothing
    they see there changed: the page as they last got it, kept per user, language and
    address, under the versions of the club's ``areas`` the page shows (the services that
    write them move them: :func:`changed`), the user's own versions (the apps'
    ``member_page_versions``: what waits for them), and at most ``MEMBER_PAGE_SECONDS``
    (0: never kept).

    - **Signing in still runs on every request** (the session and the user), except that a
      process answers the same session the page it has just served for up to
      ``PUBLIC_PAGE_RECHECK_SECONDS``, as for the public; a write request in that process
      (a sign-out included) forgets them all at once.
    - **The access check runs when the page is built**: a change of who may see what (a
      member removed, a role changed, the club made private) changes :data:`CLUB`, which
      every entry is kept under.
    - **Forms stay true**: the CSRF token is a hole filled in per request. A form's write
      changes an area its page shows, so the page is built again with a fresh one-time
      token (``plumbing.once``); a kept page whose token was used sends, at worst, the same
      fields with the same token, which records nothing twice. A page that shows a message,
      a fragment (``HX-Request``), or anything but a plain 200 is never kept.
    """
    return lambda view: _member_page(view, areas)


def _member_page(view, areas: tuple[str, ...]):
    @wraps(view)
    def wrapper(request, slug, *args, **kwargs):
        seconds = settings.MEMBER_PAGE_SECONDS
        session = request.COOKIES.get(settings.SESSION_COOKIE_NAME)
        if not seconds or not session or request.method != "GET":
            return view(request, slug, *args, **kwargs)
        language, full_path = translation.get_language(), request.get_full_path()
        wrote = request.COOKIES.get(WROTE_COOKIE, "")
        remembered = (f"session:{session}", language, full_path, wrote)
        now = time.monotonic()
        kept = _memory.get(remembered)
        recheck = settings.PUBLIC_PAGE_RECHECK_SECONDS
        if kept is not None and now - kept[0] < recheck and "messages" not in request.COOKIES:
            return HttpResponse(kept[1].replace(CSRF_HOLE, get_token(request)))
        if not _member_get(request):
            return view(request, slug, *args, **kwargs)
        club_id = _club_id(slug)
        if club_id is None:  # no such club: the view answers
            return view(request, slug, *args, **kwargs)
        user_id = request.user.pk
        path = hashlib.sha256(full_path.encode()).hexdigest()[:32]
        key = f"member-page:{club_id}:{user_id}:{language}:{path}"
        version_keys = [*_area_keys(club_id, _named(areas, kwargs)), *_member_versions(user_id)]
        try:
            found = django_cache.get_many([key, *version_keys])
            state = _versions(club_id, found, version_keys)
        except Exception as error:  # noqa: BLE001 - any cache failure is a miss, never a 500
            log.warning("member_page: the cache failed, built afresh: %s", error)
            return view(request, slug, *args, **kwargs)
        stored = found.get(key)
        if stored is not None and stored[0] == state:
            html = stored[1]
        else:
            request.csrf_hole = True
            try:
                response = view(request, slug, *args, **kwargs)
            finally:  # a refusal (a 404, a 403) is rendered with a token of its own
                request.csrf_hole = False
            if (
                response.status_code != 200
                or response.streaming
                or response.cookies
                or _shows_messages(request)
            ):
                return _filled(response, request)
            html = response.content.decode()
            try:
                django_cache.set(key, (state, html), seconds)
            except Exception as error:  # noqa: BLE001
                log.warning("member_page: the cache failed to keep an entry: %s", error)
        _remember(remembered, now, html)
        return HttpResponse(html.replace(CSRF_HOLE, get_token(request)))

    return wrapper


def _club_id(slug: str) -> int | None:
    """The club's id by its slug: one lean query, then kept by the process until a write
    (:func:`forget`)."""
    found = _club_ids.get(slug)
    if found is None:
        row = _club_row(slug)
        if row is None:
            return None
        found = _club_ids[slug] = row[0]
    return found


def _shows_messages(request) -> bool:
    """Whether the page just built showed messages (they are not for the next visit)."""
    storage = getattr(request, "_messages", None)
    return bool(storage is not None and getattr(storage, "used", False))


def _filled(response, request):
    """A page built with a CSRF hole, answered only to this request: the hole filled."""
    if not response.streaming and CSRF_HOLE.encode() in response.content:
        response.content = response.content.replace(CSRF_HOLE.encode(), get_token(request).encode())
    return response


def csrf_hole(request) -> dict:
    """A context processor: while a page for the public is rendered to be stored, its CSRF
    token is a hole, filled in per visitor."""
    return {"csrf_token": CSRF_HOLE} if getattr(request, "csrf_hole", False) else {}
