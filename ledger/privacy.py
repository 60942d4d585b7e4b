"""Whose figures of the ledger a user sees (``clubs.access.ClubAccess.sees_money``), for the
pages and the API alike: everyone's where they see the club's money, else only their own
(a club that hides money from its members: a member sees their balance, their debts and
payments, their statement, and nobody else's)."""

from __future__ import annotations

from clubs.access import ClubAccess


def shown_players(access: ClubAccess) -> frozenset[int] | None:
    """None: everyone's figures; else the ids of the user's own players in the club."""
    if access.sees_money():
        return None
    if access.user_id is None:
        return frozenset()
    own = access.club.players.filter(user_id=access.user_id).values_list("pk", flat=True)
    return frozenset(own)


def balances(found, shown: frozenset[int] | None) -> list:
    return list(found) if shown is None else [b for b in found if b.player.pk in shown]


def debts(found, shown: frozenset[int] | None) -> list:
    """Debts (or a plan's payments) with one of the shown people on either side."""
    if shown is None:
        return list(found)
    return [d for d in found if d.debtor.pk in shown or d.creditor.pk in shown]


def payments(found, shown: frozenset[int] | None, user) -> list:
    """Payments one of the shown people made or received, or that the user recorded."""
    if shown is None:
        return list(found)
    return [
        p
        for p in found
        if p.payer_id in shown or p.payee_id in shown or p.recorded_by_id == user.pk
    ]
