"""Spazz'u'mazz's rules of play, turn by turn, on small hand-made tables.

A :class:`rules.spazzumazz.Table` takes its deal as given (the checker validates deals;
see test_rules_spazzumazz.py), so each test names only the cards that matter. Turns are
written ``"Anna 7S 7H"`` (cards from the hand), ``"Anna 7S +7H"`` (a ``+`` marks a
face-up card), ``"Anna pickup"`` and ``"Anna blind 1"``.
"""

from __future__ import annotations

import pytest

from rules.cards import Card, Rank
from rules.errors import RuleViolation
from rules.spazzumazz import Blind, Pickup, Play, PlayerDeal, Table, Turn, goes_on

# Keeps a player in the game without playing a part: face-down cards wait for the end.
KEEP = "3S 3H 3D"


def cards(text: str) -> tuple[Card, ...]:
    return tuple(Card.parse(token) for token in text.split())


def seat(hand: str = "", up: str = "", down: str = KEEP) -> PlayerDeal:
    return PlayerDeal(face_down=cards(down), face_up=cards(up), hand=cards(hand))


def turn(text: str) -> Turn:
    player, *rest = text.split()
    if rest == ["pickup"]:
        return Pickup(player)
    if rest[:1] == ["blind"]:
        return Blind(player, int(rest[1]))
    hand = tuple(Card.parse(t) for t in rest if not t.startswith("+"))
    up = tuple(Card.parse(t[1:]) for t in rest if t.startswith("+"))
    return Play(player, hand, up)


def table(stock: str = "", **seats: PlayerDeal) -> Table:
    """A table with the players in keyword order (the first plays first)."""
    return Table(list(seats), seats, cards(stock))


def play(t: Table, *turns: str) -> Table:
    for at, text in enumerate(turns):
        t.apply(turn(text), at)
    return t


def refused(t: Table, *turns: str) -> tuple[str, object]:
    """The code and ``at`` of the error the turns run into."""
    with pytest.raises(RuleViolation) as caught:
        play(t, *turns)
    return caught.value.code, caught.value.at


def top(t: Table) -> str:
    return " ".join(str(card) for card in t.pile)


# -- the order of the ranks ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("played", "on", "goes"),
    [
        ("4C", "3S", True),
        ("3C", "4S", False),
        ("7C", "7S", True),
        ("JC", "9S", True),
        ("9C", "JS", False),
        ("QC", "JS", True),
        ("KC", "QS", True),
        ("QC", "KS", False),
        ("AC", "KS", True),
        ("KC", "AS", False),
        ("3C", "AS", False),
        ("AC", "AS", True),
        ("2C", "AS", True),
        ("2C", "3S", True),
        ("10C", "AS", True),
        ("10C", "3S", True),
        ("3C", "2S", True),
        ("AC", "2S", True),
    ],
)
def test_a_card_goes_on_an_equal_or_lower_one_and_2_and_10_go_on_anything(played, on, goes):
    t = table(Anna=seat(f"{on} 5H"), Bruno=seat(f"{played} 5D"))
    play(t, f"Anna {on}")
    if goes:
        play(t, f"Bruno {played}")
        assert t.current == ("Bruno" if played.startswith("10") else "Anna")
    else:
        assert refused(t, f"Bruno {played}") == ("too_low", 0)
    assert goes_on(Card.parse(played).rank, Card.parse(on).rank) is goes  # type: ignore[arg-type]


@pytest.mark.parametrize("first", ["3S", "AS", "2S", "KD", "9H"])
def test_anything_goes_on_an_empty_pile(first):
    t = play(table(Anna=seat(f"{first} 5H"), Bruno=seat("5D")), f"Anna {first}")
    assert top(t) == first


def test_the_rank_order_puts_the_jack_above_the_nine_and_the_ace_on_top():
    order = [Rank(n) for n in (3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 1)]
    for low, high in zip(order, order[1:], strict=False):
        assert goes_on(high, low) and not goes_on(low, high)


def test_a_too_low_message_names_both_ranks():
    t = play(table(Anna=seat("7S 6H"), Bruno=seat("5C 6D")), "Anna 7S")
    with pytest.raises(RuleViolation, match="5 is lower than 7"):
        play(t, "Bruno 5C")


# -- one or more cards of one rank -----------------------------------------------------------


@pytest.mark.parametrize(
    ("hand", "up", "played", "code"),
    [
        ("7S 7H 7D 4C", "", "7S 7H 7D", None),
        ("7S 7S 4C", "", "7S 7S", None),
        ("7S 8S 4C", "", "7S 8S", "mixed_ranks"),
        ("7S 4C", "8H", "7S +8H", "mixed_ranks"),
        ("7S 4C", "7H", "7S +7H", None),
        ("7S 4C", "7H 7D", "7S +7H +7D", None),
        ("7S 4C", "", "7S 7S", "not_in_hand"),
        ("7S 4C", "", "AS", "not_in_hand"),
        ("7S 4C", "7D", "7S +7H", "not_in_hand"),
        ("7S 4C", "7H", "7S +7H +7H", "not_in_hand"),
        ("7S 4C", "", "JK", "not_in_hand"),
        ("7S 4C", "7H", "+7H", "face_up_not_allowed"),
    ],
)
def test_a_play_is_cards_of_one_rank_that_the_player_holds(hand, up, played, code):
    t = table(Anna=seat(hand, up), Bruno=seat("5D"))
    if code is None:
        play(t, f"Anna {played}")
        assert top(t) == " ".join(c.lstrip("+") for c in played.split())
    else:
        assert refused(t, f"Anna {played}") == (code, 0)


def test_the_hand_is_checked_before_the_ranks_and_the_ranks_before_the_pile():
    t = play(table(Anna=seat("AS 4C"), Bruno=seat("3C 4D 5H")), "Anna AS")
    assert refused(t, "Bruno 3C 9C")[0] == "not_in_hand"
    assert refused(t, "Bruno 3C 4D")[0] == "mixed_ranks"
    assert refused(t, "Bruno 3C")[0] == "too_low"


def test_an_illegal_turn_leaves_the_table_as_it_was():
    t = play(table(Anna=seat("9S 4C"), Bruno=seat("3C 10D")), "Anna 9S")
    refused(t, "Bruno 3C")
    play(t, "Bruno 10D")
    assert t.sweeps == 1 and t.current == "Bruno"


# -- the 2, the 10 and four in a row ---------------------------------------------------------


def test_a_2_resets_the_pile_so_anything_goes_next():
    t = play(table(Anna=seat("AS 3C"), Bruno=seat("2D 5H")), "Anna AS", "Bruno 2D", "Anna 3C")
    assert top(t) == "AS 2D 3C"


def test_a_10_sweeps_the_pile_and_the_same_player_plays_again():
    t = play(table(Anna=seat("9S 4C"), Bruno=seat("10D 5H")), "Anna 9S", "Bruno 10D")
    assert (top(t), t.sweeps, t.current) == ("", 1, "Bruno")
    assert refused(t, "Anna 4C") == ("out_of_turn", 0)
    play(t, "Bruno 5H")
    assert t.current == "Anna"


@pytest.mark.parametrize(
    ("anna", "bruno", "turns", "swept"),
    [
        ("7S 7H 7D 7C 4C", "5H", ["Anna 7S 7H 7D 7C"], True),
        ("7S 7H 4C", "7D 7C 5H", ["Anna 7S 7H", "Bruno 7D 7C"], True),
        ("7S 7H 4C", "7D 5H", ["Anna 7S 7H", "Bruno 7D"], False),
        ("7S 4C", "7D 5H", ["Anna 7S +7H +7C", "Bruno 7D"], True),
        ("7S 7H 7D 4C", "7C 7C 5H", ["Anna 7S 7H 7D", "Bruno 7C 7C"], True),
        ("2S 2H 4C", "2D 2C 5H", ["Anna 2S 2H", "Bruno 2D 2C"], True),
    ],
)
def test_four_or_more_of_a_rank_in_a_row_from_any_players_sweep(anna, bruno, turns, swept):
    t = table(Anna=seat(anna, "7H 7C" if "+" in turns[0] else ""), Bruno=seat(bruno))
    play(t, *turns)
    assert (t.sweeps, top(t) == "") == ((1, True) if swept else (0, False))
    if swept:
        assert t.current == turns[-1].split()[0]


def test_a_card_between_breaks_the_row():
    t = table(Anna=seat("7S 2S 7D 4C"), Bruno=seat("7H 7C 5H"))
    play(t, "Anna 7S", "Bruno 7H", "Anna 2S", "Bruno 7C", "Anna 7D")
    assert (t.sweeps, top(t)) == (0, "7S 7H 2S 7C 7D")


def test_a_10_that_also_makes_four_of_a_rank_is_one_sweep():
    t = play(table(Anna=seat("10S 10H 10D 10C 4C"), Bruno=seat("5H")), "Anna 10S 10H 10D 10C")
    assert t.sweeps == 1 and t.current == "Anna"


def test_sweeping_with_the_last_card_puts_the_player_out_and_passes_the_turn():
    t = table(Anna=seat("9S 4C"), Bruno=seat("10D", down=""), Carla=seat("5H"))
    play(t, "Anna 9S", "Bruno 10D")
    assert (t.sweeps, t.finish_order, t.current) == (1, ("Bruno",), "Carla")


# -- picking up and the main rule ------------------------------------------------------------


def test_a_player_who_cannot_play_picks_up_the_whole_pile_and_the_turn_passes():
    t = table(Anna=seat("KS AS 4C"), Bruno=seat("QH 3H"), Carla=seat("5C"))
    play(t, "Anna KS", "Bruno pickup")
    assert (top(t), t.current, t.pickups()["Bruno"]) == ("", "Carla", 1)
    assert t.hand("Bruno") == sorted(cards("KS QH 3H"))


@pytest.mark.parametrize(
    ("bruno", "why"),
    [
        (seat("QH 2C"), "a 2 goes on anything"),
        (seat("QH 10C"), "a 10 goes on anything"),
        (seat("QH KC"), "an equal card goes"),
        (seat("", up="3C AC"), "a face-up card goes alone once hand and stock are empty"),
        (seat("", down="3C"), "with only face-down cards the player must try one"),
        (seat("", down="AC"), "even when that card would go"),
    ],
)
def test_a_player_who_can_play_may_not_pick_up(bruno, why):
    t = play(table(Anna=seat("KS 4C"), Bruno=bruno), "Anna KS")
    assert refused(t, "Bruno pickup") == ("must_play", 0), why


def test_a_face_up_card_that_could_go_does_not_oblige_a_player_who_still_holds_cards():
    t = play(table(Anna=seat("KS 4C"), Bruno=seat("QH", up="AC")), "Anna KS", "Bruno pickup")
    assert t.pickups()["Bruno"] == 1


def test_the_must_play_message_says_why():
    t = table(Anna=seat("KS 4C"), Bruno=seat("5D"))
    with pytest.raises(RuleViolation, match="Anna can play and so may not pick up the pile"):
        play(t, "Anna pickup")


# -- drawing back up to three ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("hand", "played", "stock", "after", "stock_left"),
    [
        ("4C 5C 6C", "4C", "8S 9S", "5C 6C 8S", 1),
        ("4C 4D 6C", "4C 4D", "8S 9S JS", "6C 8S 9S", 1),
        ("4C 4D 6C", "4C 4D", "8S", "6C 8S", 0),
        ("4C 5C 6C 7C 8C", "4C", "9S", "5C 6C 7C 8C", 1),
        ("4C 5C 6C", "4C", "", "5C 6C", 0),
    ],
)
def test_after_a_play_the_player_draws_back_up_to_three_while_the_stock_lasts(
    hand, played, stock, after, stock_left
):
    t = play(table(stock, Anna=seat(hand), Bruno=seat("3H 3C 3D")), f"Anna {played}")
    assert (t.hand("Anna"), t.stock_left) == (sorted(cards(after)), stock_left)


def test_the_stock_is_drawn_from_the_top():
    t = play(table("8S 9S JS", Anna=seat("4C 5C 6C"), Bruno=seat("3H")), "Anna 4C")
    assert Card.parse("8S") in t.hand("Anna") and t.stock_left == 2


def test_a_sweep_draws_before_the_player_plays_again():
    t = table("8S 9S", Anna=seat("9D 4C 5C 6H"), Bruno=seat("10H 6D 6C"))
    play(t, "Anna 9D", "Bruno 10H")
    assert t.hand("Bruno") == sorted(cards("6D 6C 8S")) and t.current == "Bruno"


def test_a_pickup_does_not_draw():
    t = table("8S 9S", Anna=seat("KS 4C 5C"), Bruno=seat("QH"))
    play(t, "Anna KS", "Bruno pickup")
    assert (t.hand("Bruno"), t.stock_left) == (sorted(cards("KS QH")), 1)


# -- face-up cards ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hand", "stock", "played", "code"),
    [
        ("7S 4C", "", "7S +7H", None),
        ("7S 4C", "", "+7H", "face_up_not_allowed"),
        ("4C", "", "+7H", "face_up_not_allowed"),
        ("", "9S", "+7H", "face_up_not_allowed"),
        ("", "", "+7H", None),
        ("", "", "+7H +7D", None),
        ("", "", "+7H +JD", "mixed_ranks"),
        ("", "", "+8C", "not_in_hand"),
    ],
)
def test_face_up_cards_go_with_a_hand_card_of_their_rank_or_alone_once_hand_and_stock_are_empty(
    hand, stock, played, code
):
    t = table(stock, Anna=seat(hand, up="7H 7D JD"), Bruno=seat("5D"))
    if code is None:
        play(t, f"Anna {played}")
        assert t.face_up("Anna") == tuple(
            c for c in cards("7H 7D JD") if f"+{c}" not in played.split()
        )
    else:
        assert refused(t, f"Anna {played}") == (code, 0)


def test_a_face_up_card_too_low_for_the_pile_is_refused():
    t = play(table(Anna=seat("", up="5H JD"), Bruno=seat("QD 4C")), "Anna +JD", "Bruno QD")
    assert refused(t, "Anna +5H") == ("too_low", 0)


# -- face-down cards, blind ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hand", "up", "stock"),
    [("4C", "", ""), ("", "7H", ""), ("", "", "9S"), ("4C", "7H", "9S")],
)
def test_a_blind_card_only_once_hand_stock_and_face_up_cards_are_gone(hand, up, stock):
    t = table(stock, Anna=seat(hand, up, down="5S 9H KD"), Bruno=seat("5D"))
    assert refused(t, "Anna blind 0") == ("blind_not_allowed", 0)


def test_the_blind_index_counts_the_face_down_cards_left_in_dealt_order():
    t = table(Anna=seat("", down="5S 9H KD"), Bruno=seat("3C 3D 3H", down="4H"))
    play(t, "Anna blind 1")
    assert top(t) == "9H"
    play(t, "Bruno pickup", "Anna blind 1")
    assert top(t) == "KD" and t.face_down_left("Anna") == 1


@pytest.mark.parametrize("index", [3, 7, 10**30, -1, -3, -(10**4299)])
def test_a_blind_index_outside_the_cards_left_is_not_in_hand(index):
    t = table(Anna=seat("", down="5S 9H KD"), Bruno=seat("5D"))
    assert refused(t, f"Anna blind {index}") == ("not_in_hand", 0)


def test_a_blind_card_that_cannot_go_is_taken_up_with_the_pile_and_counts_as_a_pickup():
    t = table(Anna=seat("KS 4C"), Bruno=seat("", down="5S 9H"))
    play(t, "Anna KS", "Bruno blind 0")
    assert (top(t), t.hand("Bruno"), t.face_down_left("Bruno")) == ("", sorted(cards("KS 5S")), 1)
    assert (t.pickups()["Bruno"], t.current) == (1, "Anna")


def test_a_blind_card_that_goes_is_played_and_can_sweep():
    t = table(Anna=seat("KS 4C"), Bruno=seat("", down="10S 9H"))
    play(t, "Anna KS", "Bruno blind 0")
    assert (t.sweeps, t.current, t.face_down_left("Bruno")) == (1, "Bruno", 1)


# -- turns, going out and the end ------------------------------------------------------------


def test_the_first_listed_player_starts_and_the_turn_goes_round_in_order():
    t = table(Anna=seat("4C 9C"), Bruno=seat("5C 9D"), Carla=seat("6C 9H"))
    assert t.current == "Anna"
    play(t, "Anna 4C", "Bruno 5C", "Carla 6C")
    assert t.current == "Anna"


@pytest.mark.parametrize("who", ["Bruno", "Carla", "Nobody"])
def test_only_the_player_on_turn_may_play(who):
    t = table(Anna=seat("4C 9C"), Bruno=seat("5C 9D"), Carla=seat("6C 9H"))
    assert refused(t, f"{who} pickup") == ("out_of_turn", 0)


def test_a_player_with_no_cards_left_anywhere_is_out_and_is_skipped():
    t = table(Anna=seat("4C", down=""), Bruno=seat("5C 9D"), Carla=seat("6C 9H"))
    play(t, "Anna 4C", "Bruno 5C", "Carla 6C")
    assert (t.finish_order, t.current) == (("Anna",), "Bruno")
    assert refused(t, "Anna 4C") == ("out_of_turn", 0)


def test_the_last_player_left_is_the_idiot_and_any_further_turn_is_after_end():
    t = table(Anna=seat("4C", down=""), Bruno=seat("5C", down=""), Carla=seat("6C 9H"))
    play(t, "Anna 4C", "Bruno 5C")
    assert (t.finished, t.finish_order, t.current) == (True, ("Anna", "Bruno", "Carla"), None)
    assert t.outcome(2).idiot == "Carla"
    assert refused(t, "Carla 6C") == ("after_end", 0)
    assert t.legal_turns() == []


def test_a_player_is_not_out_while_the_stock_lasts():
    t = play(table("8S 9S", Anna=seat("4C", down=""), Bruno=seat("5C 9D")), "Anna 4C")
    assert t.finish_order == () and t.hand("Anna") == sorted(cards("8S 9S"))


def test_a_player_is_out_only_once_the_face_down_cards_are_gone_too():
    t = table(Anna=seat("", down="AS"), Bruno=seat("3C 3D"))
    play(t, "Anna blind 0")
    assert t.finish_order == ("Anna", "Bruno")


# -- legal turns (what the bot chooses from) -------------------------------------------------


def test_legal_turns_list_every_rank_count_and_face_up_companion_that_goes():
    t = play(table(Anna=seat("5S 4H"), Bruno=seat("7C 7D 4C", up="7H 3D")), "Anna 5S")
    listed = {
        (str(p.cards[0])[:-1], len(p.cards), " ".join(map(str, p.face_up)))
        for p in t.legal_turns()
        if isinstance(p, Play)
    }
    assert listed == {("7", 1, ""), ("7", 1, "7H"), ("7", 2, ""), ("7", 2, "7H")}
    assert len(t.legal_turns()) == 4


def test_legal_turns_offer_a_pickup_only_when_nothing_goes():
    t = play(table(Anna=seat("AS 4H"), Bruno=seat("KC 4C", up="AH")), "Anna AS")
    assert t.legal_turns() == [Pickup("Bruno")] and not t.can_play()


def test_legal_turns_with_only_face_down_cards_are_the_blind_tries():
    t = table(Anna=seat("", down="5S 9H"), Bruno=seat("5D"))
    assert t.legal_turns() == [Blind("Anna", 0), Blind("Anna", 1)]
