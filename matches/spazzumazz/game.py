"""Spazz'u'mazz in the house: what the shedding game lends each part of the site."""

from matches.games import Game
from matches.spazzumazz import boards, sections, stats, tonight
from matches.spazzumazz import demo as spazzumazz_demo
from matches.spazzumazz.adapter import ADAPTER
from matches.spazzumazz.tasks import house_rules_changed

GAME = Game(
    name="spazzumazz",
    adapter=ADAPTER,
    leaderboard=boards.leaderboard,
    columns=boards.COLUMNS,
    player_section=boards.player_section,
    club_night_section=boards.club_night_section,
    tonight_pane=tonight.tonight_pane,
    tonight_place=3,
    club_sections=(sections.club_section,),
    club_tab=sections.club_tab,
    rebuild=stats.rebuild_club,
    demo=spazzumazz_demo,
    # The game's name follows the house rules that set it.
    house_rules_changed=house_rules_changed,
)
