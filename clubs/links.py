"""The signed links mailed to people: an e-mail address's confirmation link (the service that
mails it and the task that sends it both read it here)."""

from datetime import timedelta

from django.core import signing

from clubs.models import EmailConfirmation

CONFIRMATION_SALT = "circolo.email-confirmation"
# How long a confirmation link works; a new one can be asked for at any time.
CONFIRMATION_MAX_AGE = timedelta(days=3)


def confirmation_token(confirmation: EmailConfirmation) -> str:
    """The signed token of a confirmation link; it names the account and the address, and
    carries the time it was made (it expires after ``CONFIRMATION_MAX_AGE``)."""
    return signing.dumps(
        {"u": confirmation.user_id, "e": confirmation.email}, salt=CONFIRMATION_SALT
    )
