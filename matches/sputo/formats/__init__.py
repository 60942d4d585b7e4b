"""How the formats of a Sputo tournament beyond one bracket make their matches: plain Python
on players' ids, no database (``bracket.py`` is the single elimination's).

- :mod:`.round_robin`: everyone meets everyone, in one or two legs, rounds by the circle
  method;
- :mod:`.groups`: near-equal groups seeded in a snake, so that the top seeds are spread;
- :mod:`.swiss`: a round paired by score with no rematch, the FIDE Dutch system of
  ``caissify-pairings``, each pairing with its reasons;
- :mod:`.double_elimination`: the winners' and losers' brackets and the grand final, where
  each seat comes from and where each loser goes;
- :mod:`.standings`: the table of a round robin, a group or a Swiss, each row with why it
  stands above the next.

Each takes and gives ids in seed order (the first the top seed); a rest is ``None``.
"""

#: The kinds of match of a stage of standings (``TournamentMatch.kind``); a knockout's are
#: ``bracket.MAIN`` and ``bracket.THIRD``.
ROUND_ROBIN = "round_robin"
GROUP = "group"
SWISS = "swiss"
TABLE_KINDS = frozenset({ROUND_ROBIN, GROUP, SWISS})
