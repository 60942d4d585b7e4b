"""The result cycle's steps in the REST API, once for every game.

A game's viewset mixes in ``result_steps(...)``: one action per step it offers (``report/``,
``confirm/``, ``dispute/``, ``withdraw/``, ``decide/``, ``correct/``, ``void/``), each thin:
read the body with the game's serializer, hand it to the step in
``matches.results.steps``, answer the subject as the game shows it. Who may take a step
is the game's roles table (``matches.results.adapters``): the early 403 of
``ClubAccessMixin`` reads it too (:meth:`ResultSteps.step_role`).

The viewset says how to reach its subject and how to answer it::

    def step_subject(self, request, **kwargs): ...       # the subject, or a 404
    def step_answer(self, subject, step, code, taken): ...  # the Response; ``taken``:
                                                         # the step's outcome (or None)
    def step_payload(self, step, data, request): ...     # the result in a report,
                                                         # decide or correct body
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from django.db import transaction
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.decorators import action
from rest_framework.response import Response

from matches.results import steps as cycle
from matches.results.adapters import adapter_of_game

DOCS = {
    "report": "Report the result; from someone who may decide disputes it is in force at once. "
    "A result the rules refuse is a 400 naming the field, with the engine's ``code``, "
    "``message`` and ``at``.",
    "confirm": "Confirm the reported result (never your own report).",
    "dispute": "Dispute the reported result, saying why; a dispute is then decided.",
    "withdraw": "Take back your own report, before anyone confirms it.",
    "decide": "Decide a dispute: uphold the report, or reject it and optionally give the "
    "right result.",
    "correct": "Correct the result in force; the old one is kept in the history.",
    "void": "Void the result in force: it no longer counts (the history is kept).",
}

#: The steps whose body carries a result.
WITH_RESULT = ("report", "decide", "correct")

WHO = {
    (None, True, False): "the players of the game",
    ("member", False, False): "any member",
    ("scorer", False, False): "scorers and admins",
    ("admin", False, False): "admins",
    ("scorer", True, False): "the players of the game, scorers and admins",
    ("admin", True, False): "the players of the game and admins",
    (None, False, True): "whoever reported it",
}


def _doc(game: str, step: str, note: str) -> str:
    rule = adapter_of_game(game).who(step)
    who = WHO.get((rule.role, rule.players, rule.reporter), "")
    return " ".join(part for part in (DOCS[step], note, f"Who may: {who}." if who else "") if part)


class ResultSteps:
    """What the generated actions share; the game's viewset implements the three hooks."""

    result_game: str = ""

    def step_role(self, step: str) -> str | None:
        """The least club role that may take ``step`` (the early 403)."""
        return adapter_of_game(self.result_game).who(step).least_role

    def step_subject(self, request, **kwargs):
        raise NotImplementedError

    def step_answer(
        self, subject, step: str, code: int = status.HTTP_200_OK, taken=None
    ) -> Response:
        """The answer to ``step`` on ``subject`` (as the request read it, before the step:
        the answer reads it again). ``taken``: the outcome the step stored or moved, if it
        returns one."""
        raise NotImplementedError

    def step_payload(self, step: str, data: dict, request) -> dict | None:
        return None

    def step_preview(self, preview: dict) -> Response:
        return Response({"preview": preview})

    def _step_body(self, step: str, request) -> dict:
        serializer_class = self.step_bodies.get(step)
        if serializer_class is None:
            return {}
        body = serializer_class(data=request.data, context={"request": request})
        body.is_valid(raise_exception=True)
        return dict(body.validated_data)

    def take_step(self, step: str, request, **kwargs) -> Response:
        subject = self.step_subject(request, **kwargs)
        data = self._step_body(step, request)
        payload = None
        if step in WITH_RESULT:
            payload = self.step_payload(step, data, request)
        if step == "correct" and data.get("preview"):
            preview = cycle.preview_correct_outcome(
                subject=subject, by=request.user, payload=payload
            )
            return self.step_preview(preview)
        code = status.HTTP_201_CREATED if step == "report" else status.HTTP_200_OK
        # The answer is read in the step's own transaction: a connection lost right after
        # the commit costs only the after-commit sending (which the outbox keeps).
        with transaction.atomic():
            taken = cycle.take(
                step,
                subject=subject,
                by=request.user,
                payload=payload,
                reason=data.get("reason", ""),
                note=data.get("note", "") or "",
                uphold=bool(data.get("uphold")),
                access=getattr(self, "club_access", None),
                within=True,  # this transaction: no savepoint of its own
            )
            return self.step_answer(subject, step, code, taken=taken)


def _action(step: str, *, url_path: str, schema: dict, doc: str):
    def take(self, request, *args, **kwargs):
        return self.take_step(step, request, **kwargs)

    take.__name__ = take.__qualname__ = step
    take.__doc__ = doc
    return extend_schema(**schema)(action(detail=True, methods=["post"], url_path=url_path)(take))


def result_steps(
    game: str,
    *,
    steps: Sequence[str],
    bodies: Mapping[str, type],
    answer,
    prefix: str = "",
    parameters: Sequence = (),
    answers: Mapping[str, object] | None = None,
    notes: Mapping[str, str] | None = None,
) -> type:
    """A mixin with one action per step of ``steps`` for the viewset of ``game``'s subjects.

    ``bodies``: the request serializer of each step that has a body; ``answer``: the
    response serializer (``answers`` overrides it per step); ``prefix``: the actions' path
    before the step (``hands/(?P<hand_id>\\d+)/``), whose ``parameters`` the schema lists;
    ``notes``: what the game adds to a step's description (who may is the roles table's).
    """
    answers, notes = answers or {}, notes or {}
    actions = {}
    for step in steps:
        code = status.HTTP_201_CREATED if step == "report" else status.HTTP_200_OK
        schema = {
            "request": bodies.get(step),
            "responses": answers.get(step, {code: answer}),
            "parameters": list(parameters) or None,
        }
        doc = _doc(game, step, notes.get(step, ""))
        actions[step] = _action(step, url_path=f"{prefix}{step}", schema=schema, doc=doc)
    return type(
        f"{game.title()}ResultSteps",
        (ResultSteps,),
        {"result_game": game, "step_bodies": dict(bodies), **actions},
    )
