"""The tonight pages: ``/clubs/<slug>/tonight/`` (``?screen=1`` for a TV, ``?panes=1`` the
panes alone, which the live page fetches again) and its event stream
``/clubs/<slug>/tonight/events/`` (``text/event-stream``, ``matches/boards/live.py``).

Who sees it: the club's members, and everyone on a public club (the access check's 404
otherwise). Money (the tables' running balances) only for members, never on the screen view."""

from __future__ import annotations

from django.db import close_old_connections
from django.db.models import Count, OuterRef, Q, Subquery
from django.db.models.functions import Coalesce
from django.http import HttpResponse, StreamingHttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.safestring import mark_safe

from clubs.access import club_page
from clubs.models import Club
from matches import games
from matches.boards import live, night_bounds, night_of
from matches.boards.tonight import tonight as tonight_of
from matches.singapore.models import TableSession
from matches.spazzumazz.models import SpazzumazzGame
from matches.sputo.models import Tournament, TournamentStatus
from plumbing import public_pages


def _panes(request, club, *, night, sees_money: bool) -> str:
    """The night's panes, rendered: the same for everyone who sees the club's money, and
    for everyone who does not (nothing in them names who asks; no form, no token)."""
    found = tonight_of(club, night=night, sees_money=sees_money)
    panes = [
        (pane, render_to_string(pane.template, {**pane.context, "club": club}, request))
        for pane in found.panes
    ]
    context = {"club": club, "tonight": found, "panes": panes}
    return render_to_string("matches/boards/_tonight_panes.html", context, request)


@club_page()
def tonight(request, access):
    """Every game's pane of the night. The panes are built once for all who see them
    alike (``public_pages.shared``), until a write changes one of the games' areas: the
    members' phones and the screens of a club night share one build after each result."""
    club = access.club
    screen = request.GET.get("screen") == "1"
    night = night_of(timezone.now())
    sees_money = access.sees_money() and not screen
    panes = public_pages.shared(
        club,
        ("tonight", night.isoformat(), sees_money),
        lambda: _panes(request, club, night=night, sees_money=sees_money),
        areas=tuple(game.name for game in games.all()),
    )
    if request.GET.get("panes") == "1":
        return HttpResponse(panes)
    context = {
        "club": club,
        "access": access,
        "night": night,
        "panes": mark_safe(panes),  # noqa: S308 - rendered by the templates above
        "screen": screen,
        "version": live.version(club.pk),
        "events_url": reverse("boards:tonight_events", args=[club.slug]),
    }
    return render(request, "matches/boards/tonight.html", context)


@club_page()
def tonight_events(request, access):
    """The live stream: an event ``changed`` each time the club's tonight screen changed."""
    since = request.headers.get("Last-Event-ID") or request.GET.get("since")
    try:
        since_version = int(since) if since is not None else None
    except ValueError:
        since_version = None
    club_id = access.club.pk
    close_old_connections()  # a stream holds no database connection while it waits
    response = StreamingHttpResponse(
        live.stream(club_id, since=since_version), content_type="text/event-stream"
    )
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # a proxy in front passes each event at once
    return response


def at_my_clubs(user) -> list[dict]:
    """``HOME_TONIGHT``: the home page's "tonight at your clubs" for a logged-in member, one
    query: each of their clubs with its open tables, running tournaments and tonight's
    games."""
    start, end = night_bounds(night_of(timezone.now()))

    def count(queryset):
        return Coalesce(
            Subquery(
                queryset.filter(club=OuterRef("pk"))
                .order_by()
                .values("club")
                .annotate(n=Count("pk"))
                .values("n")[:1]
            ),
            0,
        )

    clubs = (
        Club.objects.filter(memberships__user=user)
        .annotate(
            open_tables=count(TableSession.objects.filter(closed_at__isnull=True)),
            running=count(Tournament.objects.filter(status=TournamentStatus.RUNNING)),
            games=count(
                SpazzumazzGame.objects.filter(Q(played_at__gte=start) & Q(played_at__lt=end))
            ),
        )
        .order_by("name")
        .distinct()
    )
    return [
        {
            "club": club,
            "url": reverse("boards:tonight", args=[club.slug]),
            "open_tables": club.open_tables,
            "running": club.running,
            "games": club.games,
        }
        for club in clubs
    ]
