"""The webhooks' actions on the club's settings page (its section is drawn by the
``webhooks_section`` tag): add one, pause, resume, delete. Admins only."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from clubs.access import club_page
from clubs.models import Role
from clubs.webhooks import services
from clubs.webhooks.forms import WebhookForm
from clubs.webhooks.models import Webhook


def _back(club) -> str:
    return reverse("clubs:settings", args=[club.slug]) + "#webhooks"


@require_POST
@club_page(at_least=Role.ADMIN)
def add_webhook(request, access):
    club = access.club
    form = WebhookForm(request.POST)
    if form.is_valid():
        try:
            webhook = services.create_webhook(club=club, by=request.user, **form.cleaned_data)
        except ValidationError as error:
            for field, errors in error.message_dict.items():
                form.add_error(field if field in form.fields else None, errors)
        else:
            messages.success(
                request, _("Webhook added: %(url)s. Its secret is below.") % {"url": webhook.url}
            )
            return redirect(_back(club).replace("#webhooks", f"#webhook-{webhook.pk}"))
    return render(
        request, "webhooks/webhook_form.html", {"access": access, "club": club, "form": form}
    )


def _act(request, access, webhook_id: int, act, done: str):
    webhook = get_object_or_404(Webhook, club=access.club, pk=webhook_id)
    act(webhook=webhook)
    messages.success(request, done % {"url": webhook.url})
    return redirect(_back(access.club))


@require_POST
@club_page(at_least=Role.ADMIN)
def pause_webhook(request, access, webhook_id: int):
    return _act(request, access, webhook_id, services.pause_webhook, _("Webhook paused: %(url)s."))


@require_POST
@club_page(at_least=Role.ADMIN)
def resume_webhook(request, access, webhook_id: int):
    return _act(
        request, access, webhook_id, services.resume_webhook, _("Webhook resumed: %(url)s.")
    )


@club_page(at_least=Role.ADMIN)
def delete_webhook(request, access, webhook_id: int):
    """GET asks first (no JavaScript needed); POST deletes."""
    if request.method == "POST":
        return _act(
            request, access, webhook_id, services.delete_webhook, _("Webhook deleted: %(url)s.")
        )
    webhook = get_object_or_404(Webhook, club=access.club, pk=webhook_id)
    return render(
        request,
        "clubs/confirm.html",
        {
            "access": access,
            "club": access.club,
            "title": _("Delete a webhook"),
            "question": _("Delete the webhook sending to %(url)s?") % {"url": webhook.url},
            "consequence": _("Nothing more is sent to it, and its delivery log is deleted."),
            "button": _("Delete"),
            "back": _back(access.club),
        },
    )
