"""The login lockout (django-axes): nobody can lock anybody else out, nobody can try
password after password.

Two limits, over the last ``AXES_COOLOFF_HOURS``:

- ``AXES_FAILURE_LIMIT`` failed logins of one user name from one address lock that user
  name out from that address only: the people behind a club's wifi or a proxy (one
  address) do not lock each other out, and a stranger elsewhere cannot lock anyone out;
- ``AXES_ADDRESS_FAILURE_LIMIT`` failed logins from one address, whatever the user names,
  lock that address out: one password tried on many user names (password spraying).

The client's address is the connection's, or with ``TRUSTED_PROXIES`` = N the Nth entry
from the right of ``X-Forwarded-For`` (django-ipware, configured in the settings): entries
further left are the client's to write, and cannot pick whom a failure is counted against.
"""

from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_client_ip_address, get_failure_limit
from django.conf import settings
from django.db.models import Sum

# settings.AXES_LOCKOUT_PARAMETERS, in this order.
PER_USER_AND_ADDRESS, PER_ADDRESS = 0, 1


def client_address(request) -> str:
    """The client's address, as the lockout sees it (also the rate limits' key)."""
    return get_client_ip_address(request) or request.META.get("REMOTE_ADDR") or "unknown"


def _failures(attempts) -> int:
    return attempts.aggregate(total=Sum("failures_since_start"))["total"] or 0


class LockoutHandler(AxesDatabaseHandler):
    """axes' database handler with a limit of its own for each group of its lockout
    parameters (axes has one limit for all of them)."""

    def get_failures(self, request, credentials=None) -> int:
        groups = self.get_user_attempts(request, credentials)
        user_failures = _failures(groups[PER_USER_AND_ADDRESS])
        if _failures(groups[PER_ADDRESS]) >= settings.AXES_ADDRESS_FAILURE_LIMIT:
            # axes compares the figure with AXES_FAILURE_LIMIT: at it, the address is out.
            return max(user_failures, get_failure_limit(request, credentials))
        return user_failures

    def reset_user_attempts(self, request, credentials=None) -> int:
        """A good login forgives that user's failures from that address, not the others'
        (axes would forget every failure from the address)."""
        deleted, _per_model = self.filter_user_attempts(request, credentials)[
            PER_USER_AND_ADDRESS
        ].delete()
        return deleted
