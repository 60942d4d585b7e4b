"""The demo's Singapore hands, each with its stake: a dealer, an opponent and who covers
the opponent's quotas."""

from clubs.demo import Demo
from matches.demo import evening, people, record
from rules.bots import singapore as bot

HANDS = 30


def build(demo: Demo) -> None:
    rng = demo.rng("singapore")
    everyone = people(demo)
    for n in range(HANDS):
        dealer, opponent, bystander = (p.display_name for p in rng.sample(everyone, 3))
        hand = bot.random_record(rng.randrange(10**9))
        quotas = rng.randint(2, 6)
        cover = rng.randint(1, quotas - 1)
        hand["stake"] = {
            "dealer": dealer,
            "opponent": opponent,
            "dealer_quotas": quotas,
            "covers": {opponent: cover, bystander: quotas - cover},
            "winner": rng.choice([dealer, opponent]),
        }
        record(demo, hand, played_at=evening(demo, rng, n, HANDS))
