"""The house is wired by imports: each game declares its parts in one ``Game`` (its folder's
``game.py``), the floors below get what the apps lend through ``plumbing.parts``, and the
settings hold settings. Dotted names are resolved in one module alone: a guest merge's
policies, which models declare before the services they name can be imported."""

import re
from pathlib import Path

from django.conf import settings

from clubs.club_page import providers
from matches import games
from matches.results.adapters import adapter_for, adapter_of_game
from matches.singapore.models import Hand
from matches.spazzumazz.models import SpazzumazzGame
from matches.sputo.models import TournamentMatch
from plumbing.parts import parts

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


def test_each_subject_finds_its_games_adapter():
    assert adapter_for(TournamentMatch).game == "sputo"
    assert adapter_for(Hand).game == "singapore"
    assert adapter_for(SpazzumazzGame) is adapter_of_game("spazzumazz")
    assert adapter_of_game("sputo") is games.by_name("sputo").adapter


def test_the_club_page_has_the_clubs_the_games_and_the_ledgers_parts():
    tabs = {tab.__module__ for tab in providers("club_tabs")}
    assert tabs == {
        "clubs.club_page",
        "matches.spazzumazz.sections",
        "matches.sputo.sections",
        "matches.singapore.sections",
        "matches.boards.sections",
        "ledger.club_page",
    }
    assert parts("ledger_sources")[0][0] == "hand"
    assert [part.__name__ for part in parts("house_rules_changed")] == ["house_rules_changed"]
