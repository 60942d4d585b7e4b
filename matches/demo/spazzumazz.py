"""The demo's Spazz'u'mazz evenings: a dozen regulars, three to five at a table."""

from clubs.demo import Demo
from matches.demo import evening, people, record
from rules.bots import spazzumazz as bot

GAMES = 40


def build(demo: Demo) -> None:
    rng = demo.rng("spazzumazz")
    regulars = rng.sample(people(demo), 12)
    for n in range(GAMES):
        table = [player.display_name for player in rng.sample(regulars, rng.randint(3, 5))]
        game = bot.play_game(rng.randrange(10**9), table)
        record(demo, game, played_at=evening(demo, rng, n, GAMES))
