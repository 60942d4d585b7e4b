from celery import shared_task

from ledger import check


@shared_task(name="ledger.check", acks_late=True)
def check_ledger() -> dict[str, object]:
    """Hourly (beat): recompute the ledger and store the result where ``/health/`` reads it.

    Read only but for the stored result: running it twice just records two runs."""

    result = check.run()
    check.record(result)
    return {"ok": result.ok, "problems": result.problems[: check.MAX_PROBLEMS]}
