"""A game keeps the house rules it began with: the version in force when it was made (a
table, a tournament, a Spazz'u'mazz game), or the game's defaults when the club had none.
A version the club adds later changes nothing for it, and it is not asked for again."""

import pytest
from django.core.exceptions import ValidationError
from rest_framework.test import APIClient

from clubs import services
from matches.models import GameRecord
from matches.results.steps import check_game_record
from tests.sputo_world import drawn, make_guests, match_at, win

pytestmark = pytest.mark.django_db

# RULES.md's example: raw 71 rounds to 70 by default, to 80 with "rounding": "up".
RECORD = {
    "game": "singapore",
    "winner": ["QS", "KS", "AS", "2S", "5H", "5D", "5C", "9D", "9D", "9C"],
    "loser": ["AH", "AD", "KH", "KD", "QH", "3C", "4C", "5C", "5D", "2D"],
}


def test_a_record_is_checked_under_the_clubs_current_version_when_none_is_given(
    people, django_assert_num_queries
):
    club = people["club"]
    up = services.update_house_rules(club=club, game="singapore", values={"rounding": "up"})
    with django_assert_num_queries(1):
        _checked, result, version = check_game_record(club=club, record=RECORD)
    assert (result["points"], version) == (80, up)


def test_a_game_without_a_version_is_checked_under_the_defaults_without_asking(
    people, django_assert_num_queries
):
    club = people["club"]
    services.update_house_rules(club=club, game="singapore", values={"rounding": "up"})
    with django_assert_num_queries(0):
        _checked, result, version = check_game_record(club=club, record=RECORD, house_rules=None)
    assert (result["points"], version) == (70, None)


def test_a_game_keeps_an_earlier_version_after_a_newer_one(people):
    club = people["club"]
    up = services.update_house_rules(club=club, game="singapore", values={"rounding": "up"})
    services.update_house_rules(club=club, game="singapore", values={"rounding": "nearest"})
    _checked, result, version = check_game_record(club=club, record=RECORD, house_rules=up)
    assert (result["points"], version) == (80, up)


def test_another_clubs_version_is_refused(people):
    theirs = services.update_house_rules(
        club=people["other"], game="singapore", values={"rounding": "up"}
    )
    with pytest.raises(ValidationError) as refused:
        check_game_record(club=people["club"], record=RECORD, house_rules=theirs)
    assert "house_rules" in refused.value.message_dict


def _report(people, tournament, position):
    api = APIClient()
    api.force_authenticate(people["scorer"])
    match = match_at(tournament, 1, position)
    url = f"/api/v1/tournament-matches/{match.pk}/report/"
    response = api.post(url, win(match, match.player_a), format="json")
    assert response.status_code == 201, response.data
    return GameRecord.objects.filter(outcome__object_id=match.pk, game="sputo")


def test_a_tournament_made_before_the_clubs_first_version_keeps_playing_the_defaults(people):
    club, admin = people["club"], people["admin"]
    before = drawn(club, admin, make_guests(club, 4), best_of=1)
    version = services.update_house_rules(club=club, game="sputo", values={})
    after = drawn(club, admin, make_guests(club, 4, prefix="Nuovo"), best_of=1, name="Dopo")
    assert before.house_rules is None and after.house_rules == version
    assert [r.house_rules for r in _report(people, before, 0)] == [None]
    assert [r.house_rules for r in _report(people, after, 0)] == [version]
