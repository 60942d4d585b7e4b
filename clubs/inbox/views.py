"""The inbox page (``/inbox/``), the bell's number on every page, and the club page's
"waiting for you" section."""

from __future__ import annotations

import json

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from clubs.club_page import Section, own_part
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
    # A callable: the template asks for it only where it shows the bell (not in fragments).
    return {"inbox_unread": lambda: services.unread_count(user)}


@own_part  # about the user asking: never kept for other members
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


@login_required
@require_POST
def save_choices(request):
    """The profile's form: how to hear of what waits, club by club."""

    def ids(name: str) -> set[int]:
        return {int(v) for v in request.POST.getlist(name) if v.isdigit() and len(v) < 19}

    services.save_choices(user=request.user, push=ids("push"), email=ids("email"))
    messages.success(request, _("Your notification choices are saved."))
    return redirect(reverse("clubs:profile") + "#notifications")


@login_required
@require_POST
def subscribe(request):
    """``POST /inbox/push/`` from this phone's browser: ``{"endpoint", "keys": {"p256dh",
    "auth"}}`` (its push subscription, as ``PushSubscription.toJSON()`` gives it)."""
    try:
        body = json.loads(request.body or b"{}")
        keys = body.get("keys") or {}
        services.subscribe(
            user=request.user,
            endpoint=body.get("endpoint"),
            p256dh=keys.get("p256dh"),
            auth=keys.get("auth"),
            device=request.headers.get("User-Agent", ""),
        )
    except (ValueError, AttributeError):
        return JsonResponse({"detail": _("The body is not a push subscription.")}, status=400)
    except ValidationError as error:
        return JsonResponse(error.message_dict, status=400)
    return JsonResponse({"detail": _("This phone will be notified.")}, status=201)


@login_required
@require_POST
def unsubscribe(request):
    endpoint = request.POST.get("endpoint", "")
    services.unsubscribe(user=request.user, endpoint=endpoint)
    messages.success(request, _("That phone will not be notified any more."))
    return redirect(reverse("clubs:profile") + "#notifications")


def profile_context(user) -> dict:
    """What the profile page shows of the inbox: the choices and the phones."""
    return {
        "inbox_choices": services.choices_of(user),
        "push_phones": list(user.push_subscriptions.order_by("-created")),
        "vapid_public_key": settings.VAPID_PUBLIC_KEY,
    }
