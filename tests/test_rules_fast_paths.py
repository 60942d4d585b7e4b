"""The checker's fast paths for full logs agree with the phases they stand in for.

Sputo and Spazz'u'mazz logs are first replayed in one pass on card codes
(``_replay_legal_log``), which gives up (``None``) at anything that is not plainly legal;
the checker then runs every phase (``_check_log``). So the fast path must accept only what
the phases accept, with the same result. These tests replay bot logs, and logs with one
event or turn changed, moved, repeated or removed, both ways.
"""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest

from rules import spazzumazz, sputo
from rules.bots.spazzumazz import play_game, play_log
from rules.bots.sputo import random_game, random_record
from rules.cards import decks, format_cards
from rules.errors import RulesError
from rules.spazzumazz import GameLog, Pickup, Play, Table
from rules.sputo import Flip, Game, Options, Restock, Splash, Variant
from rules.sputo import Play as SputoPlay

CARDS = format_cards(decks(1, jokers_per_deck=1))


def _phases(check: Any, *args: Any) -> object:
    try:
        return check(*args)
    except RulesError as error:
        return [e.as_dict() for e in error.errors]


def _change(rng: random.Random, steps: list[Any], edit: Any) -> None:
    """Remove, repeat, swap, cut at, or edit one step of a log."""
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


def _edit_event(rng: random.Random) -> Any:
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


def _edit_turn(rng: random.Random, players: list[str]) -> Any:
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


def _sputo_both_ways(record: dict[str, Any]) -> tuple[object, object]:
    players = record["players"]
    variant, options = Variant.parse(record["variant"]), Options.parse(record["options"])
    hands = sputo._read_deal_structure(record["deal"], players)
    fast = sputo._replay_legal_log(hands, record["events"], players, variant, options)
    return fast, _phases(sputo._check_log, hands, record["events"], players, variant, options)


def _spazzumazz_both_ways(record: dict[str, Any]) -> tuple[object, object]:
    players = record["players"]
    fast = spazzumazz._replay_legal_log(record, players)
    return fast, _phases(spazzumazz._check_log, record, players)


SPUTO_LOGS = [
    json.loads(json.dumps({"game": "sputo", **random_record(seed)})) for seed in range(45)
]
SPAZZUMAZZ_LOGS = [json.loads(json.dumps(play_game(seed, 2 + seed % 6))) for seed in range(24)]


@pytest.mark.parametrize("record", SPUTO_LOGS, ids=lambda r: f"{r['variant']}-{len(r['events'])}")
def test_a_sputo_bot_log_takes_the_fast_path_to_the_same_result(record: dict[str, Any]) -> None:
    fast, phases = _sputo_both_ways(record)
    assert fast is not None
    assert fast == phases


@pytest.mark.parametrize("record", SPAZZUMAZZ_LOGS, ids=lambda r: f"{len(r['players'])}p")
def test_a_spazzumazz_bot_log_takes_the_fast_path_to_the_same_result(
    record: dict[str, Any],
) -> None:
    fast, phases = _spazzumazz_both_ways(record)
    assert fast is not None
    assert fast == phases


@pytest.mark.parametrize("seed", range(4))
def test_a_changed_sputo_log_is_accepted_by_the_fast_path_only_as_the_phases_accept_it(
    seed: int,
) -> None:
    rng = random.Random(seed)
    taken = refused = 0
    for _ in range(150):
        record = copy.deepcopy(rng.choice(SPUTO_LOGS))
        for _ in range(rng.randint(1, 2)):
            _change(rng, record["events"], _edit_event(rng))
        fast, phases = _sputo_both_ways(record)
        if fast is None:
            refused += 1
        else:
            taken += 1
            assert fast == phases, record
    assert taken and refused  # both ways were exercised


@pytest.mark.parametrize("seed", range(4))
def test_a_changed_spazzumazz_log_is_accepted_by_the_fast_path_only_as_the_phases_accept_it(
    seed: int,
) -> None:
    rng = random.Random(seed)
    taken = refused = 0
    for _ in range(60):
        record = copy.deepcopy(rng.choice(SPAZZUMAZZ_LOGS))
        for _ in range(rng.randint(1, 2)):
            _change(rng, record["turns"], _edit_turn(rng, record["players"]))
        fast, phases = _spazzumazz_both_ways(record)
        if fast is None:
            refused += 1
        else:
            taken += 1
            assert fast == phases, record
    assert taken and refused  # both ways were exercised


def test_a_valid_log_with_lenient_card_notation_leaves_the_fast_path_for_the_same_result() -> None:
    record = copy.deepcopy(SPAZZUMAZZ_LOGS[0])
    record["stock"] = [card.lower() for card in record["stock"]]
    fast, phases = _spazzumazz_both_ways(record)
    assert fast is None
    assert phases == _spazzumazz_both_ways(SPAZZUMAZZ_LOGS[0])[0]
    record = copy.deepcopy(SPUTO_LOGS[0])
    record["deal"]["Anna"]["stock"] = [" " + card for card in record["deal"]["Anna"]["stock"]]
    fast, phases = _sputo_both_ways(record)
    assert fast is None
    assert phases == _sputo_both_ways(SPUTO_LOGS[0])[0]


# A log that a sloppy scorer let through: one illegal turn or event, then the game played on
# legally from the state it left. The phases refuse it at that turn; the fast path must
# give up, not replay on.


def _spazzumazz_forced(phase: Any, force: Any) -> tuple[dict[str, Any], int]:
    """A bot game in which, at the first moment ``phase`` holds, ``force`` makes an illegal
    turn happen; then random legal turns to the end."""
    for seed in range(200):
        log = play_log(seed, 2)
        table = Table(log.players, log.deal, log.stock)
        rng = random.Random(seed)
        turns: list[Any] = []
        for turn in log.turns:
            seat = table._seats[table._turn]
            if phase(table, seat):
                at = len(turns)
                turns.append(force(table, seat))
                while not table.finished and len(turns) < 5000:
                    turns.append(rng.choice(table.legal_turns()))
                    table.apply(turns[-1], len(turns) - 1)
                if table.finished:
                    record = GameLog(log.players, log.deal, log.stock, tuple(turns)).as_record()
                    return json.loads(json.dumps(record)), at
                break
            table.apply(turn, len(turns))
            turns.append(turn)
    raise AssertionError("no bot game came to that moment")


def _goes(table: Table, code: int) -> bool:
    return bool(spazzumazz._OK[table._top][spazzumazz._RANK_OF[code]])


def _forced_pickup(table: Table, seat: Any) -> Any:
    table._pick_up(seat)
    table._pass()
    return Pickup(seat.name)


def _forced_face_up_alone(table: Table, seat: Any) -> Any:
    code = next(c for c in seat.face_up if _goes(table, c))
    seat.face_up.remove(code)
    table._laid(seat, spazzumazz._RANK_OF[code], (code,))
    return Play(seat.name, (), (spazzumazz._CARDS[code],))


FORCED_SPAZZUMAZZ = {
    "a pickup while a card in hand can go": (
        lambda t, s: t.can_play() and s.size > 0,
        _forced_pickup,
        "must_play",
    ),
    "a pickup while a face-up card can go": (
        lambda t, s: t.can_play() and s.size == 0 and not t.stock_left and s.face_up,
        _forced_pickup,
        "must_play",
    ),
    "a pickup instead of a blind card": (
        lambda t, s: s.size == 0 and not t.stock_left and not s.face_up and s.face_down,
        _forced_pickup,
        "must_play",
    ),
    "a face-up card alone while the hand holds cards": (
        lambda t, s: s.size > 0 and any(_goes(t, c) for c in s.face_up),
        _forced_face_up_alone,
        "face_up_not_allowed",
    ),
}


@pytest.mark.parametrize("case", FORCED_SPAZZUMAZZ, ids=list(FORCED_SPAZZUMAZZ))
def test_a_spazzumazz_log_with_one_illegal_turn_leaves_the_fast_path(case: str) -> None:
    phase, force, code = FORCED_SPAZZUMAZZ[case]
    record, at = _spazzumazz_forced(phase, force)
    fast, phases = _spazzumazz_both_ways(record)
    assert [(e["code"], e["at"]) for e in phases] == [(code, at)]  # type: ignore[union-attr, index]
    assert fast is None


def _sputo_forced(variant: str, options: dict[str, bool], moment: Any, force: Any) -> Any:
    """A bot deal played at random, with one illegal event forced at the first ``moment``."""
    for seed in range(200):
        rng = random.Random(seed)
        bot = random_game(seed, variant=variant, options=options)
        game = Game(bot.deal, bot.variant, bot.options)
        events: list[Any] = []
        forced_at = None
        while game.winner is None and len(events) < 3000:
            if forced_at is None and moment(game):
                forced_at = len(events)
                events.append(force(game))
                continue
            if game.awaiting_restock:
                cards = game.center_cards
                rng.shuffle(cards)
                half = len(cards) // 2
                names = bot.deal.players
                event: Any = Restock(
                    ((names[0], tuple(cards[:half])), (names[1], tuple(cards[half:])))
                )
            elif game.may_splash() and not game.blocked[1] and rng.random() < 0.5:
                event = Splash(bot.deal.players[0])
            else:
                plays = [(seat, *play) for seat in (0, 1) for play in game.legal_plays(seat)]
                if plays:
                    seat, pile, center = rng.choice(plays)
                    event = SputoPlay(bot.deal.players[seat], pile, center)
                else:
                    event = Flip()
            game.apply(event, len(events))
            events.append(event)
        if forced_at is not None and game.winner is not None:
            record = {
                "game": "sputo",
                "variant": variant,
                "options": options,
                "players": list(bot.deal.players),
                "deal": bot.deal.as_dict(),
                "events": [event.as_dict() for event in events],
            }
            return json.loads(json.dumps(record)), forced_at
    raise AssertionError("no bot game came to that moment")


def _forced_flip(game: Game) -> Any:
    # Game._flip without its classic check.
    game.started = True
    game.flips += 1
    game.blocked[0] = game.blocked[1] = False
    if game.stocks[0] or game.stocks[1]:
        game._turn()
    else:
        game.awaiting_restock = True
    return Flip()


def _forced_blocked_play(game: Game) -> Any:
    seat = 0 if game.blocked[0] else 1
    pile, center = next(
        (pile, center)
        for pile, cards in enumerate(game.piles[seat])
        for center in (0, 1)
        if cards and game.centers[center] and game._fits[cards[-1]][game.centers[center][-1]]
    )
    game.blocked[seat] = False
    game.apply(SputoPlay(game.players[seat], pile, center), 0)
    game.blocked[seat] = True
    return SputoPlay(game.players[seat], pile, center)


def _blocked_and_could_play(game: Game) -> bool:
    if game.winner is not None or not game.started or game.awaiting_restock:
        return False
    for seat in (0, 1):
        if game.blocked[seat]:
            game.blocked[seat] = False
            could = game.can_play(seat)
            game.blocked[seat] = True
            if could:
                return True
    return False


def _splash_without_a_match(game: Game) -> bool:
    tops = game.center_tops
    return game._playing() and None not in tops and tops[0].rank != tops[1].rank  # type: ignore[union-attr]


def _forced_splash(game: Game) -> Any:
    game.blocked[1] = True
    return Splash(game.players[0])


FORCED_SPUTO = {
    "a classic flip while a play exists": (
        "classic",
        {},
        lambda game: game.started and not game.awaiting_restock and game.can_play(0),
        _forced_flip,
        "illegal_flip",
    ),
    "a play by a splashed player": (
        "modern",
        {"splash": True},
        _blocked_and_could_play,
        _forced_blocked_play,
        "blocked",
    ),
    "a splash on tops that do not match": (
        "single_deck",
        {"splash": True},
        _splash_without_a_match,
        _forced_splash,
        "illegal_splash",
    ),
}


@pytest.mark.parametrize("case", FORCED_SPUTO, ids=list(FORCED_SPUTO))
def test_a_sputo_log_with_one_illegal_event_leaves_the_fast_path(case: str) -> None:
    variant, options, moment, force, code = FORCED_SPUTO[case]
    record, at = _sputo_forced(
        variant, {"suit_match": False, "splash": False, **options}, moment, force
    )
    fast, phases = _sputo_both_ways(record)
    assert [(e["code"], e["at"]) for e in phases] == [(code, at)]  # type: ignore[union-attr, index]
    assert fast is None
