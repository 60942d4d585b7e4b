"""Tonight at the club: everything happening now, for the big screen and the phone
(``/clubs/<slug>/tonight/``), kept live by ``matches/boards/live.py``.

Each game declares a pane provider in its ``Game`` (``matches.games``), shown in the
evening's order (``Game.tonight_place``):

``tonight_pane(club, *, night, sees_money) -> Pane | None``
    what the game has on tonight (None: nothing, no pane). ``night`` is the club night
    (:func:`matches.boards.night_of` of now), ``sees_money`` whether the visitor may see money
    (a member, never a public screen). It reads in a constant number of queries whatever the
    night's size, and gives the night's latest confirmed results as ``ticks`` for the ticker.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime

from matches import games

TICKER_LENGTH = 8


@dataclass(frozen=True)
class Tick:
    """One confirmed result in the ticker: when, and what in words."""

    at: datetime
    text: str
    url: str = ""


@dataclass
class Pane:
    slug: str
    title: str
    template: str
    context: dict = field(default_factory=dict)
    ticks: list[Tick] = field(default_factory=list)
    banner: str = ""  # a moment to announce on the screen (the game's name changing hands)


@dataclass
class Tonight:
    night: date
    panes: list[Pane]
    ticker: list[Tick]

    @property
    def banners(self) -> list[str]:
        return [pane.banner for pane in self.panes if pane.banner]


def tonight(club, *, night: date, sees_money: bool) -> Tonight:
    panes = []
    for game in sorted(games.all(), key=lambda game: game.tonight_place):
        pane = game.tonight_pane(club, night=night, sees_money=sees_money)
        if pane is not None:
            panes.append(pane)
    ticks = sorted((t for pane in panes for t in pane.ticks), key=lambda t: t.at, reverse=True)
    return Tonight(night=night, panes=panes, ticker=ticks[:TICKER_LENGTH])
