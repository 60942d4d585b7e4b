"""What an app lends the floors below it.

A floor never imports one above it, yet the club page (``clubs``) shows the games' sections,
a change of house rules (``clubs``) reaches the games' derived rows, and the ledger's
statements name the hands a posting came from. So each app's ``AppConfig`` declares, as
attributes set in its ``ready()``, the real callables it lends, under a few agreed names,
and the floor below asks for them here, in ``INSTALLED_APPS`` order::

    for section in parts("club_sections"):
        section(request, access)

The names, and what each part is called with:

- ``club_sections``: ``(request, access) -> Section | None`` (``clubs.club_page``);
- ``club_tabs``: ``(request, access) -> Tab | None`` (``clubs.club_page``);
- ``home_tonight``: ``(user) -> list``, the home page's "tonight at your clubs";
- ``house_rules_changed``: ``(*, club_id, game)``, in the transaction that changed them;
- ``players_changed``: ``(*, club_id)``, after the commit that changed a club's players;
- ``member_page_versions``: ``(user_id) -> cache key``, versions of what waits for a user,
  which their kept pages show (``plumbing.public_pages``);
- ``ledger_sources``: ``(prefix, describer)`` pairs; ``ledger_legs``: ``(prefix, provider)``
  pairs (``ledger.sources``);
- ``demo``: modules with a ``build(demo)`` (``manage.py demo``).

Nothing is registered at import time and no dotted name is resolved: the parts are the
objects the app config imported.
"""

from __future__ import annotations

from typing import Any

from django.apps import apps


def parts(name: str) -> list[Any]:
    """Every installed app's ``name`` parts, in ``INSTALLED_APPS`` order."""
    return [part for config in apps.get_app_configs() for part in getattr(config, name, ())]
