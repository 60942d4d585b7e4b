"""Preparing a posting (``ledger.services``): its labels and key checked, its people the
club's, its legs (or its entries) in minor units, netted pair by pair and bounded; and what
makes two postings under one key the same one (:class:`Body`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

from clubs.models import Club, Player
from ledger.amounts import MAX_MINOR, Amount, from_minor, to_minor
from ledger.legs import Legs, legs_of_nets, net_legs, nets_of
from ledger.models import Transaction

KEY_MAX_LENGTH = 150  # room for the derived keys ("reversal:<key>") within the column's 200
SCOPE_MAX_LENGTH = 100
SOURCE_MAX_LENGTH = 100
MEMO_MAX_LENGTH = 200


class KeyReused(ValidationError):
    """An idempotency key already posted with a different body."""


def user_or_none(by):
    return by if by is not None and getattr(by, "is_authenticated", False) else None


def checked_label(value: object, name: str, limit: int) -> str:
    if not isinstance(value, str):
        raise ValidationError({name: _("This must be text.")})
    if len(value) > limit:
        raise ValidationError({name: _("At most %(limit)s characters.") % {"limit": limit}})
    return value


def checked_key(value: object, limit: int = KEY_MAX_LENGTH) -> str:
    key = checked_label(value, "key", limit)
    if not key or key != key.strip():
        raise ValidationError({"key": _("A posting needs a key without surrounding spaces.")})
    return key


# A leg as the services take it: (debtor, creditor, amount), a person a Player or their id.
LegIn = tuple[Player | int, Player | int, Amount]


def check_person(club: Club, player: object, field: str) -> int:
    if not isinstance(player, Player) or player.pk is None or player.club_id != club.pk:
        raise ValidationError(
            {field: _("%(player)s is not a player of this club.") % {"player": player}}
        )
    if player.merged_into_id is not None:
        raise ValidationError(
            {
                field: _("%(player)s was merged into another player.")
                % {"player": player.display_name}
            }
        )
    return player.pk


def bounded(legs: Legs, unit: str, field: str) -> Legs:
    """Refuse a netted leg or an entry beyond the ledger's bound (many legs of one pair)."""
    if any(abs(m) > MAX_MINOR for m in [*legs.values(), *nets_of(legs).values()]):
        raise ValidationError({field: _("This amount is too large.")})
    if not nets_of(legs):
        raise ValidationError({field: _("A posting needs an amount other than zero.")})
    return legs


def minor_legs(
    unit: str, legs: Iterable[LegIn], person: Callable[[object], int], field: str = "legs"
) -> Legs:
    found = []
    for leg in legs:
        if not isinstance(leg, tuple | list) or len(leg) != 3:
            raise ValidationError({field: _("A leg is a debtor, a creditor and an amount.")})
        debtor, creditor, amount = person(leg[0]), person(leg[1]), leg[2]
        if debtor == creditor:
            raise ValidationError({field: _("A leg is between two different people.")})
        minor = to_minor(amount, unit, field=field)
        if minor < 0:
            raise ValidationError({field: _("A leg's amount is not below zero.")})
        found.append((debtor, creditor, minor))
    return bounded(net_legs(found), unit, field)


def minor_nets(
    unit: str, entries: Mapping, person: Callable[[object], int], field: str = "entries"
) -> Legs:
    if not isinstance(entries, Mapping) or len(entries) < 2:
        raise ValidationError({field: _("A posting needs at least two people.")})
    minor: dict[int, int] = {}
    for player, amount in entries.items():
        minor[person(player)] = to_minor(amount, unit, field=field)
    total = sum(minor.values())
    if total:
        raise ValidationError(
            {
                field: _("The amounts must sum to zero; they sum to %(total)s.")
                % {"total": from_minor(total, unit)}
            }
        )
    if not any(minor.values()):
        raise ValidationError({field: _("A posting needs an amount other than zero.")})
    return bounded(legs_of_nets(minor), unit, field)


def prepare(
    club: Club,
    unit: str,
    *,
    entries: Mapping | None,
    legs: Iterable[LegIn] | None,
    person: Callable[[object], int] | None = None,
) -> Legs:
    """The legs of a posting given as ``legs`` or as ``entries`` (exactly one of them)."""
    if (entries is None) == (legs is None):
        raise ValidationError({"legs": _("A posting gives either its legs or its entries.")})
    if person is None:

        def person(player, field="legs" if legs is not None else "entries"):
            return check_person(club, player, field)

    if legs is not None:
        return minor_legs(unit, legs, person)
    return minor_nets(unit, entries, person)


@dataclass(frozen=True)
class Body:
    """What makes two postings under one key the same posting (not the memo, time or poster).
    ``legs`` is None for a transaction posted before legs (compared by its entries alone)."""

    club_id: int
    unit: str
    scope: str
    source: str
    kind: str
    reverses_id: int | None
    entries: tuple[tuple[int, int], ...]
    legs: tuple[tuple[int, int, int], ...] | None

    @classmethod
    def of(cls, tx: Transaction) -> Body:
        return cls(
            club_id=tx.club_id,
            unit=tx.unit,
            scope=tx.scope,
            source=tx.source,
            kind=tx.kind,
            reverses_id=tx.reverses_id,
            entries=tuple(
                sorted(tx.entries.exclude(amount_minor=0).values_list("player_id", "amount_minor"))
            ),
            legs=None
            if tx.n_legs is None
            else tuple(sorted(tx.legs.values_list("debtor_id", "creditor_id", "amount_minor"))),
        )


def same_or_refuse(existing: Transaction, body: Body) -> Transaction:
    found = Body.of(existing)
    if found.legs is None:
        body = replace(body, legs=None)
    if found != body:
        raise KeyReused(
            {
                "key": _("The key %(key)s was already used for a different posting.")
                % {"key": existing.key}
            }
        )
    return existing


def body_of(club_id, unit, scope, source, kind, reverses_id, legs: Legs) -> Body:
    return Body(
        club_id=club_id,
        unit=unit,
        scope=scope,
        source=source,
        kind=kind,
        reverses_id=reverses_id,
        entries=tuple(nets_of(legs).items()),
        legs=tuple((d, c, m) for (d, c), m in sorted(legs.items())),
    )
