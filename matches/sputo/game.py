"""Sputo in the house: what the knockout game lends each part of the site."""

from matches.games import Game
from matches.sputo import boards, sections, tonight
from matches.sputo import demo as sputo_demo
from matches.sputo.adapter import ADAPTER
from matches.sputo.tasks import recompute_from_scratch

GAME = Game(
    name="sputo",
    adapter=ADAPTER,
    leaderboard=boards.leaderboard,
    columns=boards.COLUMNS,
    player_section=boards.player_section,
    club_night_section=boards.club_night_section,
    tonight_pane=tonight.tonight_pane,
    tonight_place=1,
    club_sections=(sections.club_section, sections.next_match),
    club_tab=sections.club_tab,
    rebuild=recompute_from_scratch,
    demo=sputo_demo,
)
