"""Errors every floor may raise that the pages and the API answer the same way.

``ValidationError`` (Django's) is bad input: a 400 naming the field. :class:`Conflict` is a
request that was fine but comes too late or too early for the state of things (a second
confirmation of a result, a report on a match already decided, a payment confirmed twice):
the API answers 409 with the message, the pages show it.
"""


class Conflict(Exception):
    """The request conflicts with the current state; ``str(error)`` says why, to the user."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
