"""A club's house rules: validated by the rules engine, versioned, edited on the settings page."""

import pytest
from django.core.exceptions import ValidationError

from clubs import services
from clubs.models import HouseRuleSet
from rules.house_rules import defaults

pytestmark = pytest.mark.django_db


def test_a_club_without_house_rules_plays_by_the_defaults(people):
    assert services.house_rules_for(club=people["club"], game="singapore") == defaults("singapore")
    assert services.house_rules_for(club=people["club"], game="spazzumazz") == {
        "idiot_min_games": 10
    }


def test_every_change_adds_a_version_and_keeps_the_old_ones(people):
    club = people["club"]
    first = services.update_house_rules(club=club, game="singapore", values={"rounding": "up"})
    second = services.update_house_rules(club=club, game="singapore", values={"cap": None})
    assert (first.version, second.version) == (1, 2)
    assert first.rules["rounding"] == "up" and second.rules["rounding"] == "nearest"
    assert second.rules["cap"] is None
    assert club.current_house_rules("singapore") == second
    assert HouseRuleSet.objects.filter(club=club, game="singapore").count() == 2


def test_saving_the_same_rules_again_adds_no_version(people):
    club = people["club"]
    first = services.update_house_rules(club=club, game="spazzumazz", values={"idiot_min_games": 5})
    again = services.update_house_rules(club=club, game="spazzumazz", values={"idiot_min_games": 5})
    assert again == first


@pytest.mark.parametrize(
    ("game", "values", "field", "words"),
    [
        ("singapore", {"colour": "red"}, "colour", "unknown house rule"),
        ("singapore", {"rounding": "sideways"}, "rounding", "rounding must be one of"),
        ("singapore", {"cap": -5}, "cap", "non-negative"),
        ("singapore", {"cap": "100"}, "cap", "non-negative"),
        (
            "singapore",
            {"joker_sequence_multipliers": "yes"},
            "joker_sequence_multipliers",
            "true or false",
        ),
        ("singapore", {"joker_limit": 2}, "joker_limit", "must be one of"),
        ("spazzumazz", {"idiot_min_games": 0}, "idiot_min_games", "positive"),
        ("sputo", {"variant": "classic"}, "variant", "unknown house rule"),
    ],
)
def test_an_unknown_rule_or_a_bad_value_is_refused_naming_it(people, game, values, field, words):
    with pytest.raises(ValidationError) as error:
        services.update_house_rules(club=people["club"], game=game, values=values)
    assert field in error.value.message_dict
    assert words in " ".join(error.value.message_dict[field])
    assert not HouseRuleSet.objects.filter(club=people["club"]).exists()


def test_the_admin_saves_house_rules_from_the_settings_page(client, people):
    club = people["club"]
    client.force_login(people["admin"])
    response = client.post(
        f"/clubs/{club.slug}/settings/",
        {
            "section": "singapore",
            "singapore-joker_limit": "one",
            "singapore-rounding": "up",
            "singapore-cap_applies_to": "total",
            "singapore-cap": "",
            "singapore-joker_sequence_multipliers": "on",
        },
    )
    assert response.status_code == 302
    assert club.current_house_rules("singapore").rules == {
        "joker_limit": "one",
        "joker_sequence_multipliers": True,
        "rounding": "up",
        "cap_applies_to": "total",
        "cap": None,
    }


def test_a_bad_value_on_the_settings_page_is_a_form_error(client, people):
    client.force_login(people["admin"])
    response = client.post(
        f"/clubs/{people['club'].slug}/settings/",
        {
            "section": "singapore",
            "singapore-joker_limit": "two",
            "singapore-rounding": "up",
            "singapore-cap_applies_to": "base",
            "singapore-cap": "-3",
        },
    )
    assert response.status_code == 200
    form = {rules["game"]: rules["form"] for rules in response.context["rule_forms"]}["singapore"]
    assert set(form.errors) == {"joker_limit", "cap"}
    assert not HouseRuleSet.objects.exists()


def test_the_api_puts_a_new_version_and_names_a_bad_key(api, people):
    api.force_authenticate(people["admin"])
    url = f"/api/v1/clubs/{people['club'].slug}/house-rules/singapore/"
    ok = api.put(url, {"rules": {"rounding": "none"}}, format="json")
    assert ok.status_code == 200
    assert ok.json()["version"] == 1 and ok.json()["rules"]["rounding"] == "none"
    bad = api.put(url, {"rules": {"rounding": "none", "colour": 1}}, format="json")
    assert bad.status_code == 400
    assert "rules.colour" in bad.json()
