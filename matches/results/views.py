"""The result cycle's steps on the pages, once for every game.

A game's ``urls.py`` points its step addresses at :func:`step` with the game's
:class:`StepPage` (how to find the subject, read its result form, where to go after)::

    path("<int:game_id>/<str:step>/", views.step, {"page": GamePage()}, name="step")

The step itself is ``matches.results.steps.take``, as in the API; a refusal (bad input,
the wrong moment, not allowed) is shown as a message on the subject's page, never a 500,
unless the game's page shows it by its form (:meth:`StepPage.refused`).
"""

from __future__ import annotations

import json

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpResponse, HttpResponseNotAllowed
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from clubs.access import ClubAccess, club_page
from clubs.confirm import confirm_page
from clubs.models import Role
from matches.results import steps
from matches.results.adapters import adapter_of_game
from plumbing.errors import Conflict
from plumbing.once.sent import once_per_form
from plumbing.rule_errors import for_people

DONE = {
    "report": gettext_lazy("Result reported."),
    "confirm": gettext_lazy("Result confirmed."),
    "dispute": gettext_lazy("Result disputed: a scorer or an admin will decide."),
    "withdraw": gettext_lazy("Report withdrawn."),
    "decide": gettext_lazy("Dispute decided."),
    "correct": gettext_lazy("Result corrected."),
    "void": gettext_lazy("Result voided."),
}


class Refused(Exception):
    """A game's form did not read: ``response`` shows it again with its errors."""

    def __init__(self, response: HttpResponse):
        super().__init__("form refused")
        self.response = response


class StepPage:
    """What a game's pages tell :func:`step`."""

    game: str = ""
    #: Other names a page posts to, for a step with a fixed choice:
    #: ``{"uphold": ("decide", True)}``.
    aliases: dict[str, tuple[str, bool]] = {}
    #: The field holding a decision's note.
    note_field = "note"
    #: Whether a correction is previewed first (:meth:`preview`).
    previews_corrections = False
    #: The steps that have a page of their own (:meth:`form`): the others take POST only.
    form_steps: tuple[str, ...] = ()

    @property
    def adapter(self):
        return adapter_of_game(self.game)

    def subject(self, access: ClubAccess, **ids):
        """The subject the address names, in the club (or ``Http404``)."""
        raise NotImplementedError

    def url(self, subject) -> str:
        """Where the person goes after a step: the subject's page."""
        return subject.get_absolute_url()

    def payload(self, step: str, request, access: ClubAccess, subject) -> dict | None:
        """The result a report, decide or correct form gives (None: none given), or
        :class:`Refused` with the form shown again."""
        return None

    def done(self, step: str, subject) -> str:
        return str(DONE[step])

    def preview(self, request, access, subject, payload: dict, preview: dict) -> HttpResponse:
        """The preview page of a correction (``previews_corrections``), with a form that
        posts ``payload`` (as JSON) and the reason back."""
        raise NotImplementedError

    def form(self, request, access: ClubAccess, subject, step: str) -> HttpResponse:
        """The page of a step that has one of its own (GET), such as a correction form."""
        raise Http404(_("No such step."))

    def refused(self, request, access, subject, step: str, error) -> HttpResponse | None:
        """Show a refusal by the form instead of as a message (None: as a message)."""
        return None

    def void_words(self, subject) -> dict:
        """The confirmation page of a void: its ``title``, ``question`` and
        ``consequence`` (a game says what voiding its result undoes)."""
        return {
            "title": _("Void the result"),
            "question": _("Void this result?"),
            "consequence": _(
                "The result stops counting everywhere it counted. The void is kept in the "
                "history and cannot be undone: a new result would have to be entered again."
            ),
        }


def _void(request, access, page: StepPage, subject) -> HttpResponse:
    """A void asks first, on the one confirmation page (GET changes nothing; POST, with
    the reason, voids)."""
    url = page.url(subject)
    return confirm_page(
        request,
        access,
        act=lambda: steps.take(
            "void", subject=subject, by=request.user, reason=request.POST.get("reason", "")
        ),
        done=page.done("void", subject),
        then=url,
        button=_("Yes, void it"),
        reason=_("Why?"),
        **page.void_words(subject),
    )


def _message(request, error) -> None:
    if isinstance(error, ValidationError):
        for text in for_people(error):
            messages.error(request, text)
    elif isinstance(error, Conflict):
        messages.error(request, error.message)
    else:
        messages.error(request, str(error))


def _kwargs(step: str, request, access, page: StepPage, subject, uphold: bool | None) -> dict:
    post = request.POST
    if step == "decide":
        uphold = post.get("uphold") == "yes" if uphold is None else uphold
        payload = None if uphold else page.payload(step, request, access, subject)
        return {"uphold": uphold, "payload": payload, "note": post.get(page.note_field, "")}
    payload = None
    if step in ("report", "correct"):
        payload = page.payload(step, request, access, subject)
    return {"payload": payload, "reason": post.get("reason", "")}


def _correct_with_preview(request, access, page: StepPage, subject):
    """A previewed correction: the form's result is previewed first (nothing changes);
    the preview page posts it back as JSON with the reason, and exactly that is applied."""
    post = request.POST
    if post.get("payload"):
        try:
            payload = json.loads(post["payload"])
        except ValueError:
            payload = None
        if not isinstance(payload, dict):
            messages.error(request, _("The correction was lost; start again."))
            return redirect(page.url(subject))
        return {"payload": payload, "reason": post.get("reason", "")}
    payload = page.payload("correct", request, access, subject)
    preview = steps.preview_correct_outcome(subject=subject, by=request.user, payload=payload)
    return page.preview(request, access, subject, payload, preview)


@once_per_form
def step(request, slug: str, *, page: StepPage, step: str, **ids):
    """One step of the result cycle from a game's page (POST; GET shows the step's own
    page, for the steps that have one)."""
    name = page.aliases.get(step, (step, None))[0]
    if request.method != "POST" and name not in (*page.form_steps, "void"):
        return HttpResponseNotAllowed(["POST"])
    return _step(request, slug, page=page, step=step, **ids)


@club_page(at_least=Role.MEMBER)
def _step(request, access, *, page: StepPage, step: str, **ids):
    name, uphold = page.aliases.get(step, (step, None))
    if name not in page.adapter.steps:
        raise Http404(_("No such step."))
    subject = page.subject(access, **ids)
    rule = page.adapter.who(name)
    if not (rule.players or rule.reporter):
        access.require(rule.role)  # a 403 before any form is read
    if name == "void":
        return _void(request, access, page, subject)
    if request.method != "POST":
        return page.form(request, access, subject, name)
    try:
        if name == "correct" and page.previews_corrections:
            kwargs = _correct_with_preview(request, access, page, subject)
            if isinstance(kwargs, HttpResponse):
                return kwargs
        else:
            kwargs = _kwargs(name, request, access, page, subject, uphold)
        steps.take(name, subject=subject, by=request.user, **kwargs)
    except Refused as refusal:
        return refusal.response
    except (ValidationError, Conflict, PermissionDenied) as error:
        shown = page.refused(request, access, subject, name, error)
        if shown is not None:
            return shown
        if isinstance(error, PermissionDenied):
            raise
        _message(request, error)
        return redirect(page.url(subject))
    messages.success(request, page.done(name, subject))
    return redirect(page.url(subject))
