"""The policies a relation to Player declares for a guest merge (see ``clubs.merge``).

Kept apart from the merge itself so that any model, ``clubs.models`` included, can declare
one without importing the service.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from django.db import models


class Policy:
    """What a merge does with the rows of one relation to Player."""


@dataclass(frozen=True)
class Move(Policy):
    recompute: tuple[str, ...] = ()
    # Constraint name -> message (with %(source)s and %(target)s) when a move would break it.
    conflicts: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Carry(Policy):
    carry_over: str  # dotted path of ``f(*, source, target)``


@dataclass(frozen=True)
class Refuse(Policy):
    message: str  # with %(source)s and %(target)s


@dataclass(frozen=True)
class Revoke(Policy):
    revoke: Callable[[models.QuerySet], object]


@dataclass(frozen=True)
class Drop(Policy):
    """Derived rows (ratings, statistics): the source's are deleted, and ``recompute`` (Celery
    task paths, called with ``club_id`` and ``player_ids``) rebuilds the target's after commit."""

    recompute: tuple[str, ...] = ()
