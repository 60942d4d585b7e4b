"""Damaged bot logs for the replay's golden tests: one event or turn of a legal log
removed, repeated, swapped, cut at, or edited (a field changed to a wrong value or type).

Deterministic for a seed; shared by ``tests/test_rules_replay_golden.py`` and the script
that wrote its expected results, ``tests/make_rules_replay_golden.py``.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable, Iterator
from typing import Any

from rules.bots.spazzumazz import play_game
from rules.bots.sputo import random_record
from rules.cards import decks, format_cards

CARDS = format_cards(decks(1, jokers_per_deck=1))

SPUTO_LOGS = 40
SPUTO_DAMAGED = 400
SPAZZUMAZZ_LOGS = 16
SPAZZUMAZZ_DAMAGED = 200


def _change(rng: random.Random, steps: list[Any], edit: Callable[[list[Any], int], None]) -> None:
    """Remove, repeat, swap, cut at, or edit one step of a log."""
    if not steps:
        return
    index = rng.randrange(len(steps))
    roll = rng.random()
    if roll < 0.15:
        del steps[index]
    elif roll < 0.25:
        steps.insert(index, copy.deepcopy(rng.choice(steps)))
    elif roll < 0.35:
        other = rng.randrange(len(steps))
        steps[index], steps[other] = steps[other], steps[index]
    elif roll < 0.4:
        del steps[index:]
    else:
        edit(steps, index)


def _edit_event(rng: random.Random) -> Callable[[list[Any], int], None]:
    def edit(events: list[Any], index: int) -> None:
        event = events[index]
        roll = rng.random()
        if roll < 0.3:
            event["pile"] = rng.choice([-1, 0, 1, 2, 3, 4, 5, 6, 7, True, 1.0])
        elif roll < 0.45:
            event["center"] = rng.choice([0, 1, 2, False])
        elif roll < 0.6:
            event["player"] = rng.choice(["Anna", "Bruno", "Carla", None])
        elif roll < 0.7:
            event["t"] = rng.choice([None, 5, 2.5, "5", True])
        elif roll < 0.85:
            events[index] = rng.choice(
                [
                    {"type": "flip"},
                    {"type": "splash", "player": rng.choice(["Anna", "Bruno"])},
                    {"type": "play", "player": "Anna", "pile": rng.randrange(7), "center": 0},
                    {"type": "restock", "stocks": {"Anna": [], "Bruno": []}},
                ]
            )
        else:
            event["type"] = rng.choice(["flip", "play", "splash", "restock", "deal"])

    return edit


def _edit_turn(rng: random.Random, players: list[str]) -> Callable[[list[Any], int], None]:
    def edit(turns: list[Any], index: int) -> None:
        turn = turns[index]
        roll = rng.random()
        if roll < 0.25 and "play" in turn:
            turn["play"] = [rng.choice(CARDS)] * rng.randint(1, 2)
        elif roll < 0.35 and "play" in turn:
            turn["face_up"] = [rng.choice(CARDS)]
        elif roll < 0.5:
            turns[index] = {"player": turn["player"], "pickup": True}
        elif roll < 0.65:
            turns[index] = {"player": turn["player"], "blind": rng.randint(-2, 3)}
        elif roll < 0.8:
            turn["player"] = rng.choice(players)
        elif roll < 0.9:
            turns[index] = {"player": turn["player"], "play": [], "face_up": [rng.choice(CARDS)]}
        else:
            turns[index] = {**turn, rng.choice(["pickup", "blind", "play"]): None}

    return edit


def _damage_cards(rng: random.Random, cards: list[Any]) -> None:
    """Now and then, the deal's cards too: lenient notation, a bad token, one card less."""
    roll = rng.random()
    if roll < 0.05:
        cards[:] = [" " + card.lower() for card in cards]
    elif roll < 0.08 and cards:
        cards[0] = rng.choice(["XX", "11H", "KS", "JK", 5, "th"])
    elif roll < 0.1:
        del cards[:1]


def cases() -> Iterator[tuple[str, dict[str, Any]]]:
    """``(name, record)``: every bot log as it is, then the damaged ones."""
    sputo = [
        json.loads(json.dumps({"game": "sputo", **random_record(seed)}))
        for seed in range(SPUTO_LOGS)
    ]
    spazzumazz = [
        json.loads(json.dumps(play_game(seed, 2 + seed % 4))) for seed in range(SPAZZUMAZZ_LOGS)
    ]
    for seed, record in enumerate(sputo):
        yield f"sputo log {seed}", record
    for seed, record in enumerate(spazzumazz):
        yield f"spazzumazz log {seed}", record
    for number in range(SPUTO_DAMAGED):
        rng = random.Random(f"sputo {number}")
        record = copy.deepcopy(rng.choice(sputo))
        for _ in range(rng.randint(1, 3)):
            _change(rng, record["events"], _edit_event(rng))
        _damage_cards(rng, record["deal"][rng.choice(record["players"])]["stock"])
        yield f"sputo damaged {number}", record
    for number in range(SPAZZUMAZZ_DAMAGED):
        rng = random.Random(f"spazzumazz {number}")
        record = copy.deepcopy(rng.choice(spazzumazz))
        for _ in range(rng.randint(1, 3)):
            _change(rng, record["turns"], _edit_turn(rng, record["players"]))
        _damage_cards(
            rng, rng.choice([record["stock"], record["deal"][record["players"][0]]["hand"]])
        )
        yield f"spazzumazz damaged {number}", record
