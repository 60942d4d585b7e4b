"""The house is wired by imports: each game declares its parts in one ``Game`` (its folder's
``game.py``), the floors below get what the apps lend through ``plumbing.parts``, and the
settings hold settings. Dotted names are resolved in one module alone: a guest merge's
policies, which models declare before the services they name can be imported."""

import re
from dataclasses import replace
from datetime import date
from pathlib import Path
from types import SimpleNamespace

from django.conf import settings

from matches import games
from matches.boards.tonight import Pane, tonight
from tests.parts import with_games

ROOT = Path(__file__).resolve().parent.parent
APPS = ("plumbing", "clubs", "ledger", "matches", "circolo")
RESOLVES = re.compile(r"\b(import_string|import_module|__import__)\(")


def test_one_module_of_the_apps_resolves_dotted_names():
    found = {
        str(path.relative_to(ROOT))
        for app in APPS
        for path in (ROOT / app).rglob("*.py")
        if RESOLVES.search(path.read_text())
    }
    assert found <= {"clubs/merge.py"}


def test_the_settings_name_no_game_part():
    for name in (
        "GAMES",
        "CLUB_PAGE_SECTIONS",
        "CLUB_TABS",
        "LEADERBOARDS",
        "PLAYER_SECTIONS",
        "TONIGHT_PANES",
        "HOME_TONIGHT",
        "CLUB_NIGHT_SECTIONS",
        "PUBLIC_PAGE_VERSIONS",
        "MEMBER_PAGE_VERSIONS",
        "STATS_REBUILDERS",
        "HOUSE_RULES_CHANGED",
        "PLAYERS_CHANGED",
    ):
        assert not hasattr(settings, name), name


def test_the_games_come_in_the_order_every_page_lists_them():
    assert [game.name for game in games.all()] == ["spazzumazz", "sputo", "singapore"]


def test_tonight_follows_the_evening_spazzumazz_last(monkeypatch):
    def pane_of(name):
        return lambda club, *, night, sees_money: Pane(slug=name, title=name, template="")

    stand_ins = [replace(game, tonight_pane=pane_of(game.name)) for game in games.all()]
    with_games(monkeypatch, *stand_ins)
    night = tonight(SimpleNamespace(pk=1), night=date(2026, 12, 5), sees_money=True)
    assert [pane.slug for pane in night.panes] == ["sputo", "singapore", "spazzumazz"]
