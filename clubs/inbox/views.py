"""The inbox page (``/inbox/``), the bell's number on every page, and the club page's
"waiting for you" section."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from clubs.club_page import Section
from clubs.inbox import services
from clubs.inbox.models import Notification


@login_required
def inbox(request):
    rows = list(services.waiting_for(request.user)[:200])
    items = [(n, services.sentence(n)) for n in rows]
    return render(request, "clubs/inbox.html", {"items": items})


@login_required
@require_POST
def open_notification(request, notification_id: int):
    """Mark it read and go where its action is."""
    notification = get_object_or_404(Notification, pk=notification_id, user=request.user)
    services.mark_read(notification=notification)
    if url_has_allowed_host_and_scheme(notification.url, allowed_hosts={request.get_host()}):
        return redirect(notification.url)
    return redirect("clubs:inbox")


@login_required
@require_POST
def read_all(request):
    services.mark_all_read(user=request.user)
    return redirect("clubs:inbox")


def bell(request) -> dict:
    """Context processor: the unread count for the bell (from the cache; no query when
    it is known)."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    return {"inbox_unread": services.unread_count(user)}


def waiting_section(request, access) -> Section | None:
    """``CLUB_PAGE_SECTIONS``: what waits for the visitor in this club."""
    if not request.user.is_authenticated or not access.is_member:
        return None
    rows = list(services.waiting_for(request.user, club=access.club)[:8])
    if not rows:
        return None
    return Section(
        slug="waiting",
        title=_("Waiting for you"),
        template="clubs/sections/waiting.html",
        context={"items": [(n, services.sentence(n)) for n in rows]},
        order=5,
    )
