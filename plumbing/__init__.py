"""The plumbing every app stands on, below ``clubs``: the API's strict input and errors, the
form and API writes sent once (``plumbing.once``), the transactional task outbox
(``plumbing.outbox``), the kept public and member pages, CSV exports, parsers, pagination and
the rules engine's errors in the reader's language.

It imports ``rules`` and itself, never an app: the apps import it. The project on top
(``circolo``: settings, urls, the Celery app, health, the site's commands) imports anything.
"""
