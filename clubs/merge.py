"""Merging a guest into another player, and what the merge does with each relation to Player.

Every model of every app that points at ``Player`` (a foreign key, a one-to-one, or a
many-to-many through a model of its own) declares what a merge does with its rows, in a
class attribute ``player_merge = {"<field name>": <policy>}``. A merge refuses to run if a
relation has no policy (``tests/test_guest_merge.py`` fails first). The policies:

- :class:`Move`: the rows are pointed at the target. Each unique constraint the move could
  break is checked before anything is written and refused with its own message (two seats
  of one game, two entries in one tournament...). ``recompute`` names Celery tasks queued
  after commit to rebuild what is derived from those rows (ratings, statistics).
- :class:`Carry`: the rows stay as they are (append-only rows, such as ledger entries, are
  never rewritten); ``carry_over(source=, target=)`` is called inside the merge to carry
  their effect to the target (the ledger posts a transfer of the guest's balance).
- :class:`Refuse`: a source with such rows cannot be merged; the message says why.
- :class:`Revoke`: rows that only make sense for the guest (an invitation to claim them)
  are revoked, through ``revoke(queryset)``.
- :class:`Drop`: derived rows (ratings, statistics) of the guest are deleted and
  ``recompute`` tasks rebuild the member's from the moved history after commit.

``clubs`` knows no game and no ledger: the policies of the upper floors name their own
functions and tasks as dotted paths, imported when a merge runs.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.db import IntegrityError, models, transaction
from django.db.models import Count
from django.utils.module_loading import import_string
from django.utils.translation import gettext as _

from clubs.changes import players_changed
from clubs.merge_policy import Carry, Drop, Move, Policy, Refuse, Revoke
from clubs.models import Player
from plumbing.errors import CONFLICT, conflict


@dataclass(frozen=True)
class Relation:
    model: type[models.Model]
    field_name: str
    policy: Policy | None

    @property
    def label(self) -> str:
        return f"{self.model._meta.label}.{self.field_name}"


def relations() -> list[Relation]:
    """Every relation to Player in any app, with its declared policy (None if undeclared).

    A many-to-many relation is named by the field of its through model that points at
    Player; an auto-created through model cannot declare a policy, so it shows as undeclared.
    """
    found = []
    for relation in Player._meta.get_fields(include_hidden=True):
        if not relation.is_relation or not relation.auto_created or relation.concrete:
            continue
        model = relation.related_model
        if model is Player:
            continue  # ``merged_into``: the merge's own bookkeeping
        if relation.many_to_many:
            through = relation.through if hasattr(relation, "through") else None
            through = through or relation.remote_field.through
            for through_field in through._meta.get_fields():
                if getattr(through_field, "related_model", None) is Player:
                    declared = getattr(through, "player_merge", {})
                    found.append(
                        Relation(through, through_field.name, declared.get(through_field.name))
                    )
            continue
        declared = getattr(model, "player_merge", {})
        found.append(Relation(model, relation.field.name, declared.get(relation.field.name)))
    unique: dict[str, Relation] = {r.label: r for r in found}
    return sorted(unique.values(), key=lambda r: r.label)


def _words(source: Player, target: Player) -> dict[str, str]:
    return {"source": source.display_name, "target": target.display_name}


def _unique_constraints(model, field_name: str):
    """The unconditional unique field sets of ``model`` that include ``field_name``."""
    for constraint in model._meta.constraints:
        if (
            isinstance(constraint, models.UniqueConstraint)
            and constraint.fields
            and field_name in constraint.fields
            and constraint.condition is None
        ):
            yield constraint.name, list(constraint.fields)
    for n, fields in enumerate(model._meta.unique_together):
        if field_name in fields:
            yield f"{model._meta.db_table}_unique_together_{n}", list(fields)


def _check_move(relation: Relation, source: Player, target: Player) -> list[str]:
    """The message of every unique constraint the move would break."""
    problems = []
    model, name = relation.model, relation.field_name
    policy = relation.policy
    assert isinstance(policy, Move)
    for constraint, fields in _unique_constraints(model, name):
        others = [f for f in fields if f != name]
        rows = model._default_manager.filter(**{f"{name}__in": [source.pk, target.pk]})
        if others:
            clash = (
                rows.values(*others)
                .annotate(players=Count(name, distinct=True))
                .filter(players__gt=1)
                .exists()
            )
        else:  # a one-to-one: both already have one
            clash = rows.count() > 1
        if clash:
            message = policy.conflicts.get(constraint) or _(
                "%(source)s and %(target)s both have a %(what)s that can belong to one player only."
            )
            problems.append(message % {**_words(source, target), "what": model._meta.verbose_name})
    return problems


@transaction.atomic
def merge_players(*, source: Player, target: Player) -> Player:
    """Merge ``source`` (a guest) into ``target``: every relation follows its policy, and
    ``source`` is retired (``merged_into``). Nothing changes if any relation refuses.

    Both players are locked in one query, in id order, so two merges running the opposite
    way wait for each other instead of deadlocking.
    """
    if source.pk == target.pk:
        raise ValidationError({"target": _("A player cannot be merged into themself.")})
    if source.club_id != target.club_id:
        raise ValidationError({"target": _("Players of different clubs cannot be merged.")})
    locked = {
        p.pk: p
        for p in Player.objects.select_for_update()
        .filter(pk__in=[source.pk, target.pk])
        .order_by("pk")
    }
    source, target = locked[source.pk], locked[target.pk]
    if not source.is_guest:
        raise conflict("source", _("Only a guest can be merged into another player."))
    if source.merged_into_id or target.merged_into_id:
        raise conflict("source", _("This player has already been merged."))

    declared = relations()
    undeclared = [r.label for r in declared if r.policy is None]
    if undeclared:  # a programming error, caught by the tests before it ships
        raise RuntimeError(f"no merge policy for {', '.join(undeclared)}")

    problems = []
    for relation in declared:
        rows = relation.model._default_manager.filter(**{relation.field_name: source})
        if isinstance(relation.policy, Refuse) and rows.exists():
            problems.append(relation.policy.message % _words(source, target))
        elif isinstance(relation.policy, Move):
            problems.extend(_check_move(relation, source, target))
    if problems:
        raise ValidationError({"target": [ValidationError(p, code=CONFLICT) for p in problems]})

    recompute: set[str] = set()
    try:
        with transaction.atomic():
            for relation in declared:
                policy = relation.policy
                rows = relation.model._default_manager.filter(**{relation.field_name: source})
                if isinstance(policy, Move):
                    if rows.update(**{relation.field_name: target}):
                        recompute.update(policy.recompute)
                elif isinstance(policy, Drop):
                    rows.delete()
                    recompute.update(policy.recompute)
                elif isinstance(policy, Revoke):
                    policy.revoke(rows)
                elif isinstance(policy, Carry):
                    import_string(policy.carry_over)(source=source, target=target)
    except IntegrityError as error:
        # The checks above ran under the players' locks; a constraint they do not know
        # (a conditional one) can still refuse. Nothing was written.
        raise conflict(
            "target",
            _("%(source)s cannot be merged into %(target)s: %(reason)s")
            % {**_words(source, target), "reason": str(error).splitlines()[0][:200]},
        ) from error
    source.merged_into = target
    source.save(update_fields=["merged_into"])
    Player.objects.filter(merged_into=source).update(merged_into=target)
    for path in sorted(recompute):
        task = import_string(path)
        task.delay_on_commit(club_id=target.club_id, player_ids=[target.pk])
    players_changed(target.club_id)
    return target
