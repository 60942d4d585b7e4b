"""The rules engine's errors reach people in their language (``plumbing.rule_errors``), with the
code, the place and the cards the engine names; in a house-rules form, a recorded game and
an API body alike."""

import pytest
from django.core.exceptions import ValidationError
from django.utils import translation

from clubs import services
from matches.results.steps import record_game
from plumbing.rule_errors import RULE_MESSAGES, RulesRejected, rule_message, translated
from rules.errors import ErrorGroup, RuleViolation, UnknownCardError
from tests.rules_codes import EXIT_1_CODES, EXIT_2_CODES

EVERY_CODE = sorted(EXIT_2_CODES | set().union(*EXIT_1_CODES.values()))


def test_every_code_of_the_engine_has_a_message():
    assert set(EVERY_CODE) - set(RULE_MESSAGES) == set()


@pytest.mark.parametrize("code", EVERY_CODE)
def test_every_message_reads_in_italian(code):
    with translation.override("en"):
        english = str(RULE_MESSAGES[code])
    with translation.override("it"):
        italian = str(RULE_MESSAGES[code])
    assert italian and italian != english


def test_a_message_keeps_the_place_and_the_cards():
    error = {"code": "too_low", "message": "turn 4: 5H is lower than 9S", "at": 4}
    with translation.override("it"):
        message = rule_message(error)
        assert message.startswith(str(RULE_MESSAGES["too_low"]).removesuffix("."))
        assert message.endswith(".") and ".:" not in message
    assert "4" in message and "5H" in message and "9S" in message
    assert "lower" not in message


def test_an_unknown_card_keeps_the_token_and_the_field():
    with translation.override("it"):
        (error,) = translated(UnknownCardError("11H", at="loser[8]"))
    assert error["code"] == "unknown_card"
    assert error["at"] == "loser[8]"
    assert "'11H'" in error["message"] and "loser[8]" in error["message"]
    assert "unknown" not in error["message"]


def test_a_group_gives_each_error_and_an_integer_place_stays_an_integer():
    group = ErrorGroup(
        [RuleViolation("too_low", "5H cannot go on 9S", at=4), RuleViolation("must_play", "x")]
    )
    errors = translated(group)
    assert [(e["code"], e["at"]) for e in errors] == [("too_low", 4), ("must_play", None)]


def test_an_api_body_has_one_object_per_error():
    rejected = RulesRejected([{"code": "too_low", "message": "5H cannot go on 9S", "at": 4}])
    assert rejected.status_code == 400
    (error,) = rejected.detail["record"]
    assert (error["code"], error["at"]) == ("too_low", 4)
    assert "5H" in error["message"]


def test_house_rule_errors_are_translated(people):
    with translation.override("it"):
        with pytest.raises(ValidationError) as refused:
            services.update_house_rules(club=people["club"], game="singapore", values={"cap": -5})
        (message,) = refused.value.message_dict["cap"]
        assert message.startswith(str(RULE_MESSAGES["bad_record"]).removesuffix("."))
    assert "non-negative" not in message
    assert "house_rules.cap" in message


def test_a_recorded_game_that_breaks_a_rule_is_refused_in_the_users_language(people):
    club = people["club"]
    record = {
        "game": "singapore",
        "winner": ["QS", "KS", "AS", "2S", "5H", "5D", "5C", "9D", "9D", "99"],
        "loser": ["2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "10H", "2C"],
    }
    with translation.override("it"), pytest.raises(ValidationError) as refused:
        record_game(club=club, record=record, players={})
    (message,) = refused.value.message_dict["record"]
    assert "'99'" in message and "winner[9]" in message
    assert refused.value.error_dict["record"][0].code == "unknown_card"
