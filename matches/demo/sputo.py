"""The demo's Sputo games: two players at a time, from anyone in the club."""

from clubs.demo import Demo
from matches.demo import evening, people, record
from rules.bots import sputo as bot

GAMES = 16


def build(demo: Demo) -> None:
    rng = demo.rng("sputo")
    everyone = people(demo)
    for n in range(GAMES):
        pair = [player.display_name for player in rng.sample(everyone, 2)]
        game = bot.random_record(rng.randrange(10**9), players=pair)
        record(demo, game, played_at=evening(demo, rng, n, GAMES))
