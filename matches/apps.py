from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class MatchesConfig(AppConfig):
    name = "matches"
    verbose_name = _("Games and matches")

    def ready(self):
        # The games, imported once the models are loaded (``matches.games.all()``), and what
        # they lend the floors below (``plumbing.parts``).
        from matches.boards import players_changed, sections
        from matches.boards.tonight_views import at_my_clubs
        from matches.championship import demo as championship_demo
        from matches.championship import sections as championship
        from matches.nights import sections as nights
        from matches.singapore.game import GAME as SINGAPORE
        from matches.spazzumazz.game import GAME as SPAZZUMAZZ
        from matches.sputo.game import GAME as SPUTO

        self.games = (SPAZZUMAZZ, SPUTO, SINGAPORE)
        self.club_sections = (
            *(section for game in self.games for section in game.club_sections),
            sections.recent_games,
            championship.top_of_the_standings,
            nights.next_night,
        )
        self.club_tabs = (
            *(game.club_tab for game in self.games),
            sections.leaderboards_tab,
            championship.championship_tab,
            sections.nights_tab,
        )
        self.home_tonight = (at_my_clubs,)
        self.house_rules_changed = tuple(
            game.house_rules_changed for game in self.games if game.house_rules_changed
        )
        self.players_changed = (players_changed,)
        self.ledger_sources = tuple(pair for game in self.games for pair in game.ledger_sources)
        self.ledger_legs = tuple(pair for game in self.games for pair in game.ledger_legs)
        self.demo = (*(game.demo for game in self.games), championship_demo)
