"""The one confirmation page before a step that cannot be taken back, for every app's pages.

A plain page, no JavaScript needed: GET says what will happen (and, where something is
lost, what), changing nothing; its button POSTs to the same address, which runs the
service. A refusal (bad input, the wrong moment) shows on the page again, never a 500; a
``PermissionDenied`` stays a 403.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.shortcuts import redirect, render

from clubs.access import ClubAccess
from plumbing.errors import Conflict


def confirm_page(
    request,
    access: ClubAccess,
    *,
    act: Callable[[], object],
    done: str,
    then: str,
    title: str,
    question: str,
    consequence: str,
    button: str,
    back: str | None = None,
    lost: Iterable[str] = (),
    reason: str | None = None,
    hidden: dict | None = None,
    refused: str | None = None,
):
    """GET asks ``question`` (with ``consequence`` and the list of what is ``lost``); POST
    runs ``act()`` (the service) and, done, goes to the URL ``then`` with the message
    ``done``; the page's way ``back`` (not taking the step) leads there too unless given.
    ``reason``: the label of a required "why?" field the service reads from
    ``request.POST["reason"]``. A service's refusal shows on the page again (as
    ``refused``, where given, instead of the service's own words)."""
    error = None
    if request.method == "POST":
        try:
            act()
        except (ValidationError, Conflict) as refusal:
            if refused:
                error = ValidationError(refused)
            elif isinstance(refusal, Conflict):
                error = ValidationError(refusal.message)
            else:
                error = refusal
        else:
            messages.success(request, done)
            return redirect(then)
    context = {
        "access": access,
        "club": access.club,
        "title": title,
        "question": question,
        "consequence": consequence,
        "lost": list(lost),
        "reason_label": reason,
        "reason": request.POST.get("reason", "") if request.method == "POST" else "",
        "button": button,
        "error": error,
        "hidden": hidden or {},
        "back": back or then,
    }
    return render(request, "clubs/confirm.html", context)
