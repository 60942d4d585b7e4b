"""The games of the house, one :class:`Game` each, declared in its folder's ``game.py`` with
the real callables it lends every part of the site::

    from matches import games

    for game in games.all():
        board = game.leaderboard(club, season=season)

``matches.apps`` imports each folder's ``GAME`` once the models are loaded; ``all()`` reads
them from the app's config (this module imports no game, so any module may ask it, the
games' own included). A new game writes its ``game.py`` and adds it in ``matches.apps``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.apps import apps


@dataclass(frozen=True)
class Game:
    """One game: its name (``"sputo"``) and the parts it lends the house."""

    name: str
    # The result cycle's adapter of its subject (a ``matches.results.adapters.GameAdapter``).
    adapter: Any
    # The leaderboard: ``(club, *, season=None, min_games=None) -> Leaderboard | None``, and
    # its columns (the API's ``ordering`` values).
    leaderboard: Callable[..., Any]
    columns: Sequence[Any]
    # A player's page: ``(player, *, season=None, page=1) -> PlayerSection | None``.
    player_section: Callable[..., Any]
    # A club night's report: ``(club, *, day) -> ReportSection | None``.
    club_night_section: Callable[..., Any]
    # The tonight screen: ``(club, *, night, sees_money) -> Pane | None``, and its place
    # there: the evening's order (the tournament and the tables through the night,
    # Spazz'u'mazz at its end), not the order of the other pages.
    tonight_pane: Callable[..., Any]
    tonight_place: int
    # The club page: sections ``(request, access) -> Section | None`` and its tab.
    club_sections: Sequence[Callable[..., Any]]
    club_tab: Callable[..., Any]
    # ``manage.py recompute_stats``: ``(club_id) -> str``, its derived rows from scratch.
    rebuild: Callable[[int], str]
    # ``manage.py demo``: a module with ``build(demo)``.
    demo: Any
    # Called in the transaction that changes the club's house rules: ``(*, club_id, game)``.
    house_rules_changed: Callable[..., Any] | None = None
    # The ledger's statements: ``(prefix, describer)`` and ``(prefix, legs provider)`` pairs.
    ledger_sources: Sequence[tuple[str, Callable[..., Any]]] = field(default_factory=tuple)
    ledger_legs: Sequence[tuple[str, Callable[..., Any]]] = field(default_factory=tuple)


def all() -> tuple[Game, ...]:  # noqa: A001 (read as ``games.all()``)
    """The games, in the order every page lists them: Spazz'u'mazz, Sputo, Singapore."""
    return apps.get_app_config("matches").games


def by_name(name: str) -> Game:
    for game in all():
        if game.name == name:
            return game
    raise LookupError(f"no game named {name!r}")
