"""Erasing a club's ledger: the deliberate path, and the one way past the append-only
triggers (``ledger.triggers``), recorded as an :class:`~ledger.models.Erasure`."""

from __future__ import annotations

from django.db import transaction as db_transaction
from django.utils import timezone

from clubs.models import Club
from ledger.models import Entry, Erasure, Leg, Payment, Transaction
from ledger.services import user_or_none


@db_transaction.atomic
def erase_club_ledger(*, club: Club, by=None) -> Erasure:
    """Delete a club's whole ledger (transactions, entries, payments), on purpose: the one
    way past the append-only triggers, recorded as an :class:`Erasure`. The club itself can
    then be deleted (it cannot while it has a ledger)."""
    Club.objects.select_for_update().get(pk=club.pk)
    erasure = Erasure.objects.create(club_id=club.pk, club_name=club.name, by=user_or_none(by))
    payments, _ = Payment.objects.filter(club=club).delete()
    Leg.objects.filter(transaction__club=club).delete()
    Entry.objects.filter(transaction__club=club).delete()
    reversals, _ = Transaction.objects.filter(club=club, reverses__isnull=False).delete()
    others, _ = Transaction.objects.filter(club=club).delete()
    erasure.transactions, erasure.payments = reversals + others, payments
    erasure.finished_at = timezone.now()
    erasure.save(update_fields=["transactions", "payments", "finished_at"])
    return erasure
