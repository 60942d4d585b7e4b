from celery import shared_task
from django.urls import reverse

from clubs.inbox.models import Kind
from clubs.inbox.services import Waiting, sync_on
from ledger import check
from ledger.models import Payment, PaymentStatus


@shared_task(name="ledger.check", acks_late=True)
def check_ledger() -> dict[str, object]:
    """Hourly (beat): recompute the ledger and store the result where ``/health/`` reads it.

    Read only but for the stored result: running it twice just records two runs."""

    result = check.run()
    check.record(result)
    return {"ok": result.ok, "problems": result.problems[: check.MAX_PROBLEMS]}


@shared_task(name="ledger.payment_inbox", acks_late=True)
def payment_inbox(payment_id: int) -> str:
    """After a payment was recorded, confirmed or cancelled: while it is pending it waits
    for the payee to confirm it (unless the payee recorded it); then for nobody."""
    payment = Payment.objects.select_related("club", "payer", "payee").filter(pk=payment_id).first()
    if payment is None:
        return "gone"
    waiting = []
    if (
        payment.status == PaymentStatus.PENDING
        and payment.payee.user_id
        and payment.payee.user_id != payment.recorded_by_id
    ):
        url = reverse("ledger:club", args=[payment.club.slug]) + f"?unit={payment.unit}"
        data = {
            "who": payment.payer.display_name,
            "minor": payment.amount_minor,
            "unit": payment.unit,
        }
        waiting.append(Waiting(payment.payee.user_id, Kind.CONFIRM_PAYMENT, url, data))
    return sync_on(payment, kind=Kind.CONFIRM_PAYMENT, waiting=waiting)
