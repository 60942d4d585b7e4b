"""A write's transaction, its own or its caller's.

A service that writes runs in a transaction of its own (``transaction.atomic``: inside a
caller's, a savepoint). An API view that reads its answer in the write's own transaction,
so that a connection lost right after the commit never costs the answer, opens the
transaction itself; the service's savepoint inside it then costs two queries a write and
buys nothing, since any refusal ends the view's whole transaction anyway. ``within`` is the
same service without it, for such a caller::

    @own_transaction
    def record_hand(...): ...

    record_hand(...)                 # its own transaction (a savepoint in a caller's)
    with transaction.atomic():
        record_hand.within(...)      # the caller's transaction; refused outside one

A refusal raised by ``within`` leaves the caller's transaction as the write left it: the
caller lets it end the transaction (a view's atomic block rolls back as the error leaves
it), never catches it and writes on.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from django.db import transaction


def own_transaction(function: Callable[..., Any]) -> Callable[..., Any]:
    """``function`` in a transaction of its own, with ``.within`` for a caller's."""
    atomic = transaction.atomic(function)

    @functools.wraps(function)
    def within(*args: Any, **kwargs: Any) -> Any:
        if not transaction.get_connection().in_atomic_block:
            raise RuntimeError(f"{function.__name__}.within needs the caller's transaction")
        return function(*args, **kwargs)

    atomic.within = within  # type: ignore[attr-defined]
    return atomic
