"""Singapore in the house: what the tables' game lends each part of the site."""

from matches.games import Game
from matches.singapore import boards, sections, stats, tonight
from matches.singapore import demo as singapore_demo
from matches.singapore.adapter import ADAPTER
from matches.singapore.posting import describe_hands, describe_sessions, legs_of_postings

GAME = Game(
    name="singapore",
    adapter=ADAPTER,
    leaderboard=boards.leaderboard,
    columns=boards.COLUMNS,
    player_section=boards.player_section,
    club_night_section=boards.club_night_section,
    tonight_pane=tonight.tonight_pane,
    tonight_place=2,
    club_sections=(sections.club_section,),
    club_tab=sections.club_tab,
    rebuild=stats.rebuild_club,
    demo=singapore_demo,
    # The ledger's statements link to the hands, and name a table's ledger by the table;
    # postings made before the ledger kept legs get them back from the hands' records.
    ledger_sources=(("hand", describe_hands), ("session", describe_sessions)),
    ledger_legs=(("hand", legs_of_postings),),
)
