"""The error codes RULES.md names, written down once for the rules tests."""

EXIT_2_CODES = {"bad_json", "unknown_game", "bad_record"}
# RULES.md, "Records and the checker": the exit-1 codes of each game.
EXIT_1_CODES = {
    "singapore": {
        "unknown_card",
        "hand_size",
        "too_many_copies",
        "not_closed",
        "same_suit_sequences",
        "bad_meld",
        "melds_mismatch",
        "bad_stake",
    },
    "sputo": {
        "unknown_card",
        "bad_deal",
        "illegal_play",
        "illegal_flip",
        "illegal_splash",
        "blocked",
        "after_end",
        "not_finished",
    },
    "spazzumazz": {
        "unknown_card",
        "bad_deal",
        "out_of_turn",
        "not_in_hand",
        "mixed_ranks",
        "too_low",
        "face_up_not_allowed",
        "blind_not_allowed",
        "must_play",
        "after_end",
        "not_finished",
    },
}
