"""The ledger's event for the clubs' webhooks (``clubs.webhooks``): a payment confirmed
(``payment.confirmed``), announced in the transaction that posts it."""

from __future__ import annotations

from clubs.webhooks.services import emit
from ledger.amounts import from_minor
from ledger.models import Payment


def _player(player) -> dict:
    return {"id": player.pk, "name": player.display_name}


def announce_payment(payment: Payment) -> None:
    emit(
        club_id=payment.club_id,
        event="payment.confirmed",
        data={
            "payment": {
                "id": payment.pk,
                "amount": str(from_minor(payment.amount_minor, payment.unit)),
                "unit": payment.unit,
                "payer": _player(payment.payer),
                "payee": _player(payment.payee),
                "confirmed_at": payment.decided_at,
            }
        },
    )
