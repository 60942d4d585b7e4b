"""How the result cycle reaches a game: one adapter per game, declared in its ``Game``.

The cycle (``matches.results.steps``), its API (``matches.results.api``) and its pages
(``matches.results.views``) never name a game: they ask the subject's adapter, which the
game declares in its folder's ``game.py`` (``adapter=SputoAdapter()``; ``matches.games``).

An adapter says, for its subject model (a tournament match, a hand, a game):

- how to load a subject with what the steps read, and how to lock it for one step;
- who its players are, and whether a result can be reported now (``ready``);
- how to check a payload (``check``: the canonical payload and the records to store);
- what happens when an outcome comes into force (``applied``) or is voided
  (``voided``), and what a correction would change (``preview_correction``);
- **who may take which step**: its ``roles`` table, read by the cycle, the API (its early
  403) and the pages (which buttons show). Nothing else decides it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from django.utils.translation import gettext as _

from clubs.access import ClubAccess, access_club
from clubs.models import HouseRuleSet, Player, Role, Season
from matches import games
from matches.results.models import Outcome, OutcomeSubject

# --- Who may take a step -------------------------------------------------------------------


@dataclass(frozen=True)
class Actor:
    """The person acting on a subject: their club role, whether they play in it."""

    user: Any
    access: ClubAccess
    plays: bool

    @property
    def is_scorer(self) -> bool:
        return self.access.is_scorer


@dataclass(frozen=True)
class Who:
    """Who may take a step: anyone of at least ``role`` in the club, and also the players of
    the game when ``players``; or, with ``reporter``, only whoever reported the result."""

    role: str | None = None
    players: bool = False
    reporter: bool = False

    def allows(self, actor: Actor, *, reported_by: int | None = None) -> bool:
        if self.reporter:
            return reported_by is not None and actor.user.pk == reported_by
        return (self.players and actor.plays) or (
            self.role is not None and actor.access.has(self.role)
        )

    @property
    def least_role(self) -> str | None:
        """The least club role that can pass (the API's early 403, before the subject is
        read): a member, where players or the reporter may; else the role itself."""
        return Role.MEMBER if (self.players or self.reporter) else self.role

    def refusal(self, what: str) -> str:
        """Why someone else may not: ``what`` is the step in words ("report a result")."""
        if self.reporter:
            return _("Only whoever reported the result may %(what)s.") % {"what": what}
        admins_only = self.role == Role.ADMIN
        if self.players:
            sentence = (
                _("Only the players or an admin may %(what)s.")
                if admins_only
                else _("Only the players, a scorer or an admin may %(what)s.")
            )
        else:
            sentence = (
                _("Only an admin may %(what)s.")
                if admins_only
                else _("Only a scorer or an admin may %(what)s.")
            )
        return sentence % {"what": what}


#: The cycle's steps and who takes them unless a game says otherwise.
ROLES: Mapping[str, Who] = {
    "report": Who(Role.SCORER, players=True),
    "confirm": Who(Role.SCORER, players=True),
    "dispute": Who(Role.SCORER, players=True),
    "withdraw": Who(reporter=True),
    "decide": Who(Role.SCORER),
    "correct": Who(Role.SCORER),
    "void": Who(Role.SCORER),
}


def actor(subject: OutcomeSubject, user, access: ClubAccess | None = None) -> Actor:
    """``user`` as an actor on ``subject``: 404 if they may not see its club. ``access``:
    the caller's own check of ``user`` in the subject's club, made for this request."""
    if access is None or access.club.pk != subject.club_id:
        access = access_club(user, subject.club)
    players = adapter_for(subject).players(subject)
    plays = user.is_authenticated and any(p.user_id == user.pk for p in players)
    return Actor(user=user, access=access, plays=plays)


# --- What a game's check answers ------------------------------------------------------------


@dataclass
class CheckedRecord:
    """A record the rules engine will check, and the club player behind each of its names.

    A game that has already checked the record (with its house rules in ``record``) passes
    the engine's ``result`` on, and it is stored without a second check."""

    record: dict
    players: dict[str, Player]
    result: dict | None = None


@dataclass
class CheckedOutcome:
    """A game's verdict on a reported result: the canonical payload, the records to store
    as ``GameRecord``s (checked by the engine when stored), and details to keep. ``extra``
    is the game's own (what it read on the way), handed back to its ``applied``."""

    payload: dict
    records: list[CheckedRecord] = field(default_factory=list)
    detail: dict = field(default_factory=dict)
    extra: Any = None


# --- The protocol ----------------------------------------------------------------------------


class GameAdapter:
    """What a game implements to go through the result cycle (see the module's docstring).

    The steps call these under a lock on the subject, inside the step's transaction; raising
    ``ValidationError`` (a 400), ``PermissionDenied`` (a 403) or ``Conflict`` (a 409)
    undoes the whole step.
    """

    game: ClassVar[str]
    model: ClassVar[type[OutcomeSubject]]
    #: Who may take which step (``ROLES`` with the game's own rows over it).
    roles: ClassVar[Mapping[str, Who]] = ROLES
    #: The steps offered to people, on the pages and in the API.
    steps: ClassVar[tuple[str, ...]] = (
        "report",
        "confirm",
        "dispute",
        "withdraw",
        "decide",
        "correct",
        "void",
    )
    #: What a subject is read with, for the steps (``select_related``).
    related: ClassVar[tuple[str, ...]] = ("club",)
    #: The game's own steps of an audit trail in words (``matches.results.audit``): a
    #: sentence with ``%(who)s``, by action.
    audit_sentences: ClassVar[Mapping[str, str]] = {}

    def who(self, step: str) -> Who:
        return self.roles[step]

    #: The inbox kinds the game's own :meth:`waiting` opens (``clubs.inbox.models.Kind``).
    inbox_kinds: ClassVar[frozenset[str]] = frozenset()

    def waiting(self, subject: OutcomeSubject) -> list:
        """What the game itself leaves waiting for people on ``subject`` beyond the cycle's
        confirmations and disputes (``clubs.inbox.services.Waiting`` rows of
        :attr:`inbox_kinds`): Sputo's ready matches. Called after commit, in a task."""
        return []

    def inbox_subjects(self, subject: OutcomeSubject) -> list[OutcomeSubject]:
        """The subjects whose inbox a step on ``subject`` may change (a Sputo result moves a
        winner into the next match): ``subject`` alone unless the game says more."""
        return [subject]

    def load(self, subject: OutcomeSubject) -> OutcomeSubject:
        """The subject again, with what the steps read of it."""
        return self.model._default_manager.select_related(*self.related).get(pk=subject.pk)

    def areas(self, subject: OutcomeSubject) -> tuple[str, ...]:
        """The areas of the club's pages a step on ``subject`` changes
        (``plumbing.public_pages.changed``): the game's, by default."""
        return (self.game,)

    def lock(self, subject: OutcomeSubject) -> OutcomeSubject:
        """The subject's row again, locked for one step, with what the steps read
        (:attr:`related`, joined in the locking query). Only the subject's own row is
        locked (``of=("self",)``): PostgreSQL refuses ``FOR UPDATE`` on the nullable side
        of an outer join, and the related rows are only read. A game whose steps write
        other rows too locks what they share first, in the same order every time."""
        return (
            self.model._default_manager.select_for_update(of=("self",))
            .select_related(*self.related)
            .get(pk=subject.pk)
        )

    def players(self, subject: OutcomeSubject) -> list[Player]:
        """The players of the game: each may report; another may confirm."""
        raise NotImplementedError

    def ready(self, subject: OutcomeSubject) -> None:
        """Raise ``Conflict`` when no result can be reported now."""

    def check(self, subject: OutcomeSubject, payload: dict, *, actor: Actor) -> CheckedOutcome:
        """Validate a reported result (``ValidationError`` naming the field otherwise)."""
        raise NotImplementedError

    def applied(
        self,
        subject: OutcomeSubject,
        outcome: Outcome,
        *,
        previous: Outcome | None,
        by,
        checked: CheckedOutcome | None,
    ) -> None:
        """``outcome`` came into force (``previous``: the one a correction replaced;
        ``checked``: the check just made of its payload, when the step made one)."""

    def voided(self, subject: OutcomeSubject, outcome: Outcome, *, by) -> None:
        """``outcome`` was voided: undo its effects."""

    def preview_correction(self, subject: OutcomeSubject, checked: CheckedOutcome, *, by) -> dict:
        """What correcting the result in force to ``checked`` would change, as data, writing
        nothing: exactly what ``applied`` will then do."""
        return {}

    def house_rules(self, subject: OutcomeSubject) -> HouseRuleSet | None:
        """The version the records are checked under (None: the club's current)."""
        return None

    def url(self, subject: OutcomeSubject) -> str | None:
        """The subject's page (a path), for what is sent about it (webhooks)."""
        get = getattr(subject, "get_absolute_url", None)
        return get() if get is not None else None

    def played_at(self, subject: OutcomeSubject):
        return getattr(subject, "played_at", None)

    def season(self, subject: OutcomeSubject) -> Season | None:
        return getattr(subject, "season", None)


def adapter_for(subject: OutcomeSubject | type[OutcomeSubject]) -> GameAdapter:
    model = subject if isinstance(subject, type) else type(subject)
    for game in games.all():
        if game.adapter.model is model._meta.concrete_model:
            return game.adapter
    raise LookupError(f"no game adapter for {model.__name__}")


def adapter_of_game(name: str) -> GameAdapter:
    try:
        return games.by_name(name).adapter
    except LookupError:
        raise LookupError(f"no game adapter for {name!r}") from None
