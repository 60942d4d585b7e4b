"""What waits for a person: the actions that are theirs to take (confirm a result, decide a
dispute, play a ready match, confirm a payment), each one tap from done.

The inbox is *synchronised*, not appended to: whoever knows what is pending on a thing (a
result, a match, a payment) calls :func:`clubs.inbox.services.sync` with the people it waits
for, after the write committed (through the outbox); whatever no longer waits is done and
leaves every inbox at once, whoever did it and from whichever phone. The person who acted is
never among those it waits for, so never notified of their own step.
"""
