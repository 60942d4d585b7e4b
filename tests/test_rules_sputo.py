"""Sputo's rules of play, event by event (RULES.md "Sputo" and "Details of the records").

Deals are built by hand: the cards that matter are named, the rest of the decks fill
the piles underneath and the stocks behind them, so every deal is a legal one.
"""

from __future__ import annotations

import pytest

from rules.cards import Card
from rules.check import check_record as check
from rules.sputo import (
    LAYOUT_TOTALS,
    Deal,
    Flip,
    Game,
    Options,
    Play,
    Restock,
    Splash,
    Variant,
    deal_from_json,
    goes_on,
    replay,
)

ANNA, BRUNO = "Anna", "Bruno"
PLAYERS = [ANNA, BRUNO]
LAYOUT = {
    "classic": [2, 3, 4, 5, 4, 3, 2],
    "modern": [7, 6, 5, 4, 3, 2, 1],
    "single_deck": [5, 4, 3, 2, 1],
}
RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
ONE_DECK = [rank + suit for rank in RANKS for suit in "SHDC"]


# -- building records -----------------------------------------------------------------


def build_deal(
    variant: str,
    piles: dict[str, list[list[str]]] | None = None,
    stocks: dict[str, list[str]] | None = None,
    exact: tuple[str, ...] = (),
) -> dict[str, dict[str, list]]:
    """A legal deal of ``variant`` whose piles end with the given cards (bottom -> top,
    one list per pile) and whose stocks start with the given cards (top first).

    A player named in ``exact`` has exactly the given stock; the unused cards fill the
    piles from below and the other stocks from behind (``classic``: each player's own
    deck; otherwise both share the decks, the first open stock taking half, rounded up).
    """
    piles = piles or {}
    stocks = stocks or {}
    if variant == "classic":
        pools = {name: list(ONE_DECK) for name in PLAYERS}
    else:
        decks = 1 if variant == "single_deck" else 2
        shared = (ONE_DECK + ["JK", "JK"]) * decks
        pools = {name: shared for name in PLAYERS}
    for name in PLAYERS:
        for card in [c for pile in piles.get(name, []) for c in pile] + stocks.get(name, []):
            pools[name].remove(card)  # a ValueError here is a mistake in the test
    deal: dict[str, dict[str, list]] = {}
    for name in PLAYERS:
        given = piles.get(name, [])
        built = []
        for index, size in enumerate(LAYOUT[variant]):
            top = given[index] if index < len(given) else []
            below = [pools[name].pop() for _ in range(size - len(top))]
            built.append(below + top)
        deal[name] = {"piles": built, "stock": list(stocks.get(name, []))}
    if variant == "classic":
        for name in PLAYERS:
            deal[name]["stock"] += pools[name]
    else:
        rest = pools[ANNA]
        open_stocks = [name for name in PLAYERS if name not in exact]
        if len(open_stocks) == 2:
            half = (len(rest) + 1) // 2
            deal[ANNA]["stock"] += rest[:half]
            deal[BRUNO]["stock"] += rest[half:]
        else:
            deal[open_stocks[0]]["stock"] += rest
    return deal


def record(variant: str, deal: dict, events: list[dict], **options: bool) -> dict:
    return {
        "game": "sputo",
        "variant": variant,
        "options": options,
        "players": PLAYERS,
        "deal": deal,
        "events": events,
    }


def flip() -> dict:
    return {"type": "flip"}


def play(player: str, pile: int, center: int) -> dict:
    return {"type": "play", "player": player, "pile": pile, "center": center}


def splash(player: str) -> dict:
    return {"type": "splash", "player": player}


def restock(anna: list[str], bruno: list[str]) -> dict:
    return {"type": "restock", "stocks": {ANNA: anna, BRUNO: bruno}}


def codes(result: dict) -> list[tuple[str, object]]:
    return [(error["code"], error["at"]) for error in result["errors"]]


def game_of(variant: str, deal: dict, **options: bool) -> Game:
    return Game(deal_from_json(deal, PLAYERS), Variant(variant), Options(**options))


def tops(game: Game) -> list[str | None]:
    return [None if card is None else str(card) for card in game.center_tops]


# A single-deck deal Anna can empty in one run on centre 0, which starts with an ace:
# pile 4 (2H), then pile 3 (3H 4H), pile 2 (5H..7H), pile 1 (8H..JH), pile 0 (QH..3D).
RUN_PILES = [
    ["3D", "2D", "AH", "KH", "QH"],
    ["JH", "10H", "9H", "8H"],
    ["7H", "6H", "5H"],
    ["4H", "3H"],
    ["2H"],
]
RUN_PLAYS = [play(ANNA, pile, 0) for pile in (4, 3, 3, 2, 2, 2, 1, 1, 1, 1, 0, 0, 0, 0, 0)]


def run_deal(**extra_piles: list[list[str]]) -> dict:
    bruno = extra_piles.get("bruno", [["QC"], ["QS"], ["QD"], ["KS"], ["KD"]])
    return build_deal(
        "single_deck",
        piles={ANNA: RUN_PILES, BRUNO: bruno},
        stocks={ANNA: ["AS", "9S"], BRUNO: ["9C"]},
    )


# -- which card goes on which ---------------------------------------------------------


@pytest.mark.parametrize(
    ("card", "top", "suit_match", "fits"),
    [
        ("5H", "4S", False, True),
        ("3H", "4S", False, True),
        ("AS", "2D", False, True),
        ("2D", "AS", False, True),
        ("AS", "KD", False, True),
        ("KC", "AH", False, True),
        ("QH", "KH", False, True),
        ("10C", "JD", False, True),
        ("JD", "10C", False, True),
        ("2S", "KD", False, False),
        ("QS", "AS", False, False),
        ("5H", "5S", False, False),
        ("6H", "4H", False, False),
        ("3C", "9H", False, False),
        ("JK", "7C", False, True),
        ("7C", "JK", False, True),
        ("JK", "JK", False, True),
        ("6H", "4H", True, True),
        ("9S", "2S", True, True),
        ("9S", "2D", True, False),
        ("5H", "5S", True, False),
        ("th", "JC", False, True),
        ("Q♠", "K♥", False, True),
    ],
)
def test_a_card_goes_on_a_neighbouring_rank_a_joker_or_with_suit_match_its_suit(
    card, top, suit_match, fits
):
    assert goes_on(Card.parse(card), Card.parse(top), suit_match=suit_match) is fits


@pytest.mark.parametrize(
    ("card", "top", "options", "outcome"),
    [
        ("5H", "4S", {}, "not_finished"),
        ("KC", "AH", {}, "not_finished"),
        ("JK", "8D", {}, "not_finished"),
        ("8D", "JK", {}, "not_finished"),
        ("3C", "9H", {}, "illegal_play"),
        ("QC", "QH", {}, "illegal_play"),
        ("3C", "9C", {"suit_match": True}, "not_finished"),
        ("3C", "9C", {}, "illegal_play"),
        ("3C", "9D", {"suit_match": True}, "illegal_play"),
    ],
)
def test_a_play_in_a_log_is_checked_against_the_centre_top(card, top, options, outcome):
    # The log ends after the play: a legal play leaves the game unfinished.
    deal = build_deal("modern", piles={ANNA: [[card]]}, stocks={ANNA: [top]})
    exit_code, result = check(record("modern", deal, [flip(), play(ANNA, 0, 0)], **options))
    assert exit_code == 1
    at = None if outcome == "not_finished" else 1
    assert codes(result) == [(outcome, at)]


def test_a_play_uncovers_the_next_card_of_the_pile():
    deal = build_deal(
        "single_deck", piles={ANNA: [["9S", "5H"]]}, stocks={ANNA: ["4S"], BRUNO: ["10D"]}
    )
    game = game_of("single_deck", deal)
    game.apply(Flip(), 0)
    game.apply(Play(ANNA, 0, 0), 1)
    assert tops(game) == ["5H", "10D"]
    assert str(game.pile_tops(0)[0]) == "9S"
    game.apply(Play(ANNA, 0, 1), 2)  # 9S on 10D: the card underneath is now playable
    assert tops(game) == ["5H", "9S"]


def test_either_player_may_play_on_either_centre_pile_and_arrival_order_counts():
    deal = build_deal(
        "modern",
        piles={ANNA: [["6H"], ["3S"]], BRUNO: [["4D"], ["5C"]]},
        stocks={ANNA: ["5S"], BRUNO: ["4C"]},
    )
    # Centre tops 5S | 4C: 5C on 4C, 6H on 5C, 4D on 5S, 3S on 4D.
    log = [flip(), play(BRUNO, 1, 1), play(ANNA, 0, 1), play(BRUNO, 0, 0), play(ANNA, 1, 0)]
    assert codes(check(record("modern", deal, log))[1]) == [("not_finished", None)]
    # Anna's 6H reaching the 4C before Bruno's 5C does not go.
    log[1], log[2] = log[2], log[1]
    assert codes(check(record("modern", deal, log))[1]) == [("illegal_play", 1)]


def test_a_play_from_an_emptied_pile_is_illegal():
    deal = build_deal("single_deck", piles={ANNA: [[], [], [], [], ["5H"]]}, stocks={ANNA: ["4S"]})
    events = [flip(), play(ANNA, 4, 0), play(ANNA, 4, 0)]
    assert codes(check(record("single_deck", deal, events))[1]) == [("illegal_play", 2)]


# -- the start and the flips -------------------------------------------------------------


@pytest.mark.parametrize(
    ("first", "code"),
    [
        (play(ANNA, 0, 0), "illegal_play"),
        (splash(ANNA), "illegal_splash"),
        (restock([], []), "illegal_flip"),
    ],
)
def test_the_game_starts_with_a_flip(first, code):
    deal = build_deal("modern")
    exit_code, result = check(record("modern", deal, [first, flip()], splash=True))
    assert (exit_code, codes(result)) == (1, [(code, 0)])


def test_a_flip_turns_each_stock_onto_its_own_centre_pile():
    deal = build_deal("classic", stocks={ANNA: ["7C", "8C"], BRUNO: ["KD", "QD"]})
    game = game_of("classic", deal)
    game.apply(Flip(), 0)
    assert tops(game) == ["7C", "KD"]
    assert game.flips == 1


# Classic: every pile top of both players is an ace or a 7, the stocks start 4S/10D and
# then JS/JD, so after the first flip nobody can play and the second flip is allowed.
STUCK_PILES = {
    ANNA: [["AS"], ["AH"], ["AD"], ["AC"], ["7S"], ["7H"], ["7D"]],
    BRUNO: [["AS"], ["AH"], ["AD"], ["AC"], ["7S"], ["7H"], ["7D"]],
}


@pytest.mark.parametrize(
    ("anna_stock", "bruno_stock", "second_flip_ok"),
    [
        (["4S", "JS"], ["10D", "JD"], True),  # nothing fits 4S or 10D
        (["2S", "JS"], ["10D", "JD"], False),  # Anna's AS goes on 2S
        (["4S", "JS"], ["8D", "JD"], False),  # a 7 goes on 8D
        (["4S", "JS"], ["KD", "JD"], False),  # an ace goes on a king
        (["6C", "JS"], ["10D", "JD"], False),  # 7S on 6C
    ],
)
def test_in_classic_a_flip_needs_both_players_unable_to_play(
    anna_stock, bruno_stock, second_flip_ok
):
    deal = build_deal("classic", piles=STUCK_PILES, stocks={ANNA: anna_stock, BRUNO: bruno_stock})
    exit_code, result = check(record("classic", deal, [flip(), flip()]))
    assert exit_code == 1
    expected = [("not_finished", None)] if second_flip_ok else [("illegal_flip", 1)]
    assert codes(result) == expected


def test_in_classic_with_suit_match_a_same_suit_top_forbids_the_flip():
    deal = build_deal("classic", piles=STUCK_PILES, stocks={ANNA: ["4S", "JS"], BRUNO: ["10D"]})
    events = [flip(), flip()]
    assert codes(check(record("classic", deal, events))[1]) == [("not_finished", None)]
    assert codes(check(record("classic", deal, events, suit_match=True))[1]) == [
        ("illegal_flip", 1)
    ]


@pytest.mark.parametrize("variant", ["modern", "single_deck"])
def test_outside_classic_the_players_may_flip_whenever_they_agree(variant):
    deal = build_deal(variant, piles={ANNA: [["5H"]]}, stocks={ANNA: ["4S", "9C"]})
    exit_code, result = check(record(variant, deal, [flip(), flip(), flip()]))
    assert codes(result) == [("not_finished", None)]


def test_in_classic_a_flip_is_allowed_when_the_only_player_who_could_play_is_splashed():
    # Centre tops 4S and 4D match; Bruno could play his 5C, but Anna calls splash.
    piles = {ANNA: STUCK_PILES[ANNA], BRUNO: [["5C"], *STUCK_PILES[BRUNO][1:]]}
    deal = build_deal("classic", piles=piles, stocks={ANNA: ["4S", "JS"], BRUNO: ["4D", "JD"]})
    without = [flip(), flip()]
    assert codes(check(record("classic", deal, without, splash=True))[1]) == [("illegal_flip", 1)]
    splashed = [flip(), splash(ANNA), flip()]
    assert codes(check(record("classic", deal, splashed, splash=True))[1]) == [
        ("not_finished", None)
    ]


# -- stocks running out: the split ---------------------------------------------------------


def test_when_one_stock_is_empty_the_other_is_split_top_half_rounded_up_to_its_owner():
    # Single deck: the stocks hold 24 cards; Anna's cut gave her none at all.
    deal = build_deal("single_deck", stocks={ANNA: []}, exact=(ANNA,))
    bruno = deal[BRUNO]["stock"]
    assert len(bruno) == 24
    game = game_of("single_deck", deal)
    game.apply(Flip(), 0)
    # Bruno keeps bruno[0:12] and turns bruno[0]; Anna gets bruno[12:24] and turns bruno[12].
    assert tops(game) == [bruno[12], bruno[0]]
    game.apply(Flip(), 1)
    assert tops(game) == [bruno[13], bruno[1]]


def joker_drained() -> tuple[dict, list[dict], Game]:
    """Single deck, Anna's cut without a stock; after the first flip Anna plays her joker,
    then the flips drain both stocks: the centre holds 25 cards and a restock is due."""
    deal = build_deal("single_deck", piles={ANNA: [[], [], [], [], ["JK"]]}, exact=(ANNA,))
    events = [flip(), play(ANNA, 4, 0), *[flip() for _ in range(12)]]
    game = game_of("single_deck", deal)
    for index, event in enumerate(events):
        game.apply(Flip() if event["type"] == "flip" else Play(ANNA, 4, 0), index)
    assert game.awaiting_restock and len(game.center_cards) == 25
    return deal, events, game


def cards(tokens: list[str]) -> tuple[Card, ...]:
    return tuple(Card.parse(token) for token in tokens)


def test_an_odd_stock_splits_with_the_extra_card_staying_with_its_owner():
    _, events, game = joker_drained()
    centre = [str(card) for card in game.center_cards]
    game.apply(Restock(((ANNA, ()), (BRUNO, cards(centre)))), len(events))
    # Bruno keeps the top 13 and turns centre[0]; Anna's 12 start at centre[13].
    assert tops(game) == [centre[13], centre[0]]
    assert [len(stock) for stock in game.stocks] == [11, 12]


def test_a_lone_card_stays_with_its_owner_and_only_that_card_is_turned():
    _, events, game = joker_drained()
    centre = [str(card) for card in game.center_cards]
    start = len(events)
    game.apply(Restock(((ANNA, cards(centre[:13])), (BRUNO, cards(centre[13:])))), start)
    for index in range(start + 1, start + 12):
        game.apply(Flip(), index)
    assert [len(stock) for stock in game.stocks] == [1, 0]
    bruno_top = tops(game)[1]
    game.apply(Flip(), start + 12)
    assert tops(game) == [centre[12], bruno_top]
    assert game.stocks == [[], []] and not game.awaiting_restock
    game.apply(Flip(), start + 13)
    assert game.awaiting_restock


def test_a_log_through_odd_splits_and_a_lone_card_checks_out():
    deal, events, game = joker_drained()
    centre = [str(card) for card in game.center_cards]
    log = [*events, restock(centre[:13], centre[13:]), *[flip() for _ in range(13)]]
    # The second restock is due: the same 25 cards, in any order, are fine again.
    again = [*log, restock(centre[::-1], [])]
    assert codes(check(record("single_deck", deal, again))[1]) == [("not_finished", None)]
    short = [*log, restock(centre[1:], [])]
    assert codes(check(record("single_deck", deal, short))[1]) == [("bad_deal", len(log))]


# -- restocking -----------------------------------------------------------------------------


def drained(variant: str = "single_deck") -> tuple[dict, list[dict], list[str]]:
    """A deal and a log of flips after which both stocks are empty and a restock is due,
    with the centre cards."""
    deal = build_deal(variant, stocks={ANNA: []}, exact=(ANNA,))
    count = len(deal[BRUNO]["stock"]) // 2 + 1
    events = [flip() for _ in range(count)]
    return deal, events, list(deal[BRUNO]["stock"])


def test_a_flip_that_finds_both_stocks_empty_waits_for_a_restock():
    deal, events, _ = drained()
    game = game_of("single_deck", deal)
    for index in range(len(events)):
        game.apply(Flip(), index)
    assert game.awaiting_restock
    assert game.flips == 13


@pytest.mark.parametrize(
    ("event", "code"),
    [
        (play(ANNA, 0, 0), "illegal_play"),
        (splash(BRUNO), "illegal_splash"),
        (flip(), "illegal_flip"),
    ],
)
def test_anything_but_a_restock_after_the_flip_that_emptied_both_stocks_is_illegal(event, code):
    deal, events, _ = drained()
    exit_code, result = check(record("single_deck", deal, [*events, event], splash=True))
    assert codes(result) == [(code, len(events))]


def test_a_restock_with_exactly_the_centre_cards_lets_the_flip_complete():
    deal, events, centre = drained()
    new_anna, new_bruno = centre[1::2], centre[0::2]
    log = [*events, restock(new_anna, new_bruno)]
    assert codes(check(record("single_deck", deal, log))[1]) == [("not_finished", None)]
    game = game_of("single_deck", deal)
    for index in range(len(events)):
        game.apply(Flip(), index)
    game.apply(
        Restock(
            ((ANNA, tuple(map(Card.parse, new_anna))), (BRUNO, tuple(map(Card.parse, new_bruno))))
        ),
        len(events),
    )
    assert tops(game) == [new_anna[0], new_bruno[0]]
    assert len(game.center_cards) == 2


@pytest.mark.parametrize(
    "change",
    ["drop a card", "add a card", "swap a card for another", "duplicate a card"],
)
def test_a_restock_that_is_not_exactly_the_centre_cards_is_a_bad_deal(change):
    deal, events, centre = drained()
    anna, bruno = centre[:12], centre[12:]
    # Piles hold the cards missing from the centre; take one of Anna's pile cards as "other".
    other = deal[ANNA]["piles"][0][0]
    if change == "drop a card":
        bruno = bruno[1:]
    elif change == "add a card":
        bruno = [*bruno, other]
    elif change == "swap a card for another":
        bruno = [other, *bruno[1:]]
    else:
        bruno = [anna[0], *bruno[1:]]
    log = [*events, restock(anna, bruno)]
    assert codes(check(record("single_deck", deal, log))[1]) == [("bad_deal", len(events))]


def test_a_restock_that_no_flip_called_for_is_an_illegal_flip():
    deal, events, centre = drained()
    log = [*events[:-1], restock(centre, [])]
    assert codes(check(record("single_deck", deal, log))[1]) == [("illegal_flip", len(events) - 1)]


def test_a_restock_may_be_cut_unevenly_and_then_splits_at_the_flip():
    deal, events, centre = drained()
    log = [*events, restock([], centre), *[flip() for _ in range(11)]]
    assert codes(check(record("single_deck", deal, log))[1]) == [("not_finished", None)]


def test_unknown_cards_in_a_restock_are_reported_before_any_rule():
    deal, events, centre = drained()
    log = [flip(), play(ANNA, 0, 1), *events, restock(["11H", *centre[1:]], ["JOKER"])]
    exit_code, result = check(record("single_deck", deal, log))
    at = len(events) + 2
    assert (exit_code, codes(result)) == (
        1,
        [
            ("unknown_card", f"events[{at}].stocks.Anna[0]"),
            ("unknown_card", f"events[{at}].stocks.Bruno[0]"),
        ],
    )


# -- splash -----------------------------------------------------------------------------------


def splash_deal(anna_top: str = "7S", bruno_top: str = "7D") -> dict:
    return build_deal(
        "modern",
        piles={ANNA: [["6H"], ["8C"]], BRUNO: [["6C"], ["8H"]]},
        stocks={ANNA: [anna_top, "QS"], BRUNO: [bruno_top, "QH"]},
    )


@pytest.mark.parametrize(
    ("anna_top", "bruno_top", "legal"),
    [
        ("7S", "7D", True),
        ("KH", "KC", True),
        ("JK", "JK", True),
        ("JK", "7D", False),
        ("7S", "JK", False),
        ("7S", "8D", False),
        ("10S", "10H", True),
    ],
)
def test_splash_may_be_called_only_when_the_centre_tops_have_the_same_rank(
    anna_top, bruno_top, legal
):
    deal = splash_deal(anna_top, bruno_top)
    exit_code, result = check(record("modern", deal, [flip(), splash(ANNA)], splash=True))
    assert codes(result) == [("not_finished", None) if legal else ("illegal_splash", 1)]


def test_splash_is_illegal_when_the_option_is_off():
    deal = splash_deal()
    exit_code, result = check(record("modern", deal, [flip(), splash(ANNA)]))
    assert codes(result) == [("illegal_splash", 1)]


def test_the_splashed_player_is_blocked_until_the_next_flip_and_the_caller_plays_on():
    deal = splash_deal()
    blocked = [flip(), splash(ANNA), play(BRUNO, 0, 0)]
    assert codes(check(record("modern", deal, blocked, splash=True))[1]) == [("blocked", 2)]
    caller_plays = [flip(), splash(ANNA), play(ANNA, 0, 0), play(ANNA, 1, 1)]
    assert codes(check(record("modern", deal, caller_plays, splash=True))[1]) == [
        ("not_finished", None)
    ]
    # After the next flip (QS, QH), Bruno plays again: 6C? no; the block is gone though.
    after_flip = [flip(), splash(ANNA), flip(), play(BRUNO, 0, 0)]
    assert codes(check(record("modern", deal, after_flip, splash=True))[1]) == [("illegal_play", 3)]


def test_a_blocked_play_is_blocked_even_when_the_card_would_not_fit():
    deal = splash_deal()
    log = [flip(), splash(BRUNO), play(ANNA, 3, 0)]
    assert codes(check(record("modern", deal, log, splash=True))[1]) == [("blocked", 2)]


def test_a_blocked_player_may_still_call_splash_and_then_both_are_blocked():
    deal = splash_deal()
    log = [flip(), splash(ANNA), splash(BRUNO), play(ANNA, 0, 0)]
    assert codes(check(record("modern", deal, log, splash=True))[1]) == [("blocked", 3)]
    game = game_of("modern", deal, splash=True)
    for index, event in enumerate([Flip(), Splash(ANNA), Splash(BRUNO)]):
        game.apply(event, index)
    assert game.blocked == [True, True]
    assert not game.can_play(0) and not game.can_play(1)


def test_calling_splash_again_on_the_same_tops_changes_nothing():
    deal = splash_deal()
    log = [flip(), splash(ANNA), splash(ANNA), play(ANNA, 0, 0), play(BRUNO, 1, 1)]
    assert codes(check(record("modern", deal, log, splash=True))[1]) == [("blocked", 4)]


def test_a_splash_no_longer_matches_once_a_card_covers_a_top():
    deal = splash_deal()
    log = [flip(), play(ANNA, 0, 0), splash(BRUNO)]
    assert codes(check(record("modern", deal, log, splash=True))[1]) == [("illegal_splash", 2)]


# -- the end ------------------------------------------------------------------------------------


def test_the_first_player_to_empty_all_his_piles_wins():
    exit_code, result = check(record("single_deck", run_deal(), [flip(), *RUN_PLAYS]))
    assert exit_code == 0
    assert result == {
        "valid": True,
        "winner": ANNA,
        "loser_cards_left": 15,
        "plays": 15,
        "flips": 1,
    }


def test_the_loser_cards_left_count_his_piles_not_his_stock():
    # Bruno plays his 10C on the 9C his stock turned, and JC on it; then Anna runs out.
    deal = run_deal(bruno=[["QC"], ["QS"], ["QD"], ["JC", "10C"]])
    log = [flip(), play(BRUNO, 3, 1), play(BRUNO, 3, 1), *RUN_PLAYS]
    exit_code, result = check(record("single_deck", deal, log))
    assert (exit_code, result["loser_cards_left"], result["plays"]) == (0, 13, 17)
    assert len(deal[BRUNO]["stock"]) > 0


def test_a_flip_in_the_middle_of_a_run_can_break_it():
    # The second flip covers Anna's 4H on centre 0 with her 9S: her 5H no longer goes.
    log = [flip(), *RUN_PLAYS[:3], flip(), *RUN_PLAYS[3:]]
    assert codes(check(record("single_deck", run_deal(), log))[1]) == [("illegal_play", 5)]


@pytest.mark.parametrize("extra", [flip(), play(BRUNO, 0, 1), splash(BRUNO), restock([], [])])
def test_any_event_after_the_end_is_after_end(extra):
    exit_code, result = check(
        record("single_deck", run_deal(), [flip(), *RUN_PLAYS, extra], splash=True)
    )
    assert codes(result) == [("after_end", 16)]


def test_a_log_that_stops_before_anyone_has_won_is_not_finished():
    exit_code, result = check(record("single_deck", run_deal(), [flip(), *RUN_PLAYS[:-1]]))
    assert (exit_code, codes(result)) == (1, [("not_finished", None)])


def test_the_replay_stops_at_the_first_illegal_event():
    log = [flip(), *RUN_PLAYS]
    log[3] = play(ANNA, 0, 1)  # QH on 9C: illegal; later events would be illegal too
    exit_code, result = check(record("single_deck", run_deal(), log))
    assert codes(result) == [("illegal_play", 3)]


def test_the_typed_replay_gives_the_same_outcome_as_the_checker():
    deal = deal_from_json(run_deal(), PLAYERS)
    events = [
        Flip(t=0),
        *(Play(ANNA, e["pile"], e["center"], t=i) for i, e in enumerate(RUN_PLAYS)),
    ]
    outcome = replay(deal, events, Variant.SINGLE_DECK, Options())
    assert (outcome.winner, outcome.loser_cards_left, outcome.plays, outcome.flips) == (
        ANNA,
        15,
        15,
        1,
    )
    assert isinstance(deal, Deal)
    assert [event.as_dict()["type"] for event in events[:2]] == ["flip", "play"]


def test_the_layout_totals_bound_loser_cards_left():
    assert LAYOUT_TOTALS == {"classic": 23, "modern": 28, "single_deck": 15}
    assert {v.value: v.layout_total for v in Variant} == LAYOUT_TOTALS


@pytest.mark.parametrize("module", ["rules.sputo", "rules.bots.sputo"])
def test_the_docstring_examples_hold(module):
    import doctest
    import importlib

    failed, attempted = doctest.testmod(importlib.import_module(module))
    assert attempted > 0 and failed == 0
