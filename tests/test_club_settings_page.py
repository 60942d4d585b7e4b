"""The settings page: the club's fields in the page's language, its seasons (listed,
edited, deleted), and its house rules with a readable history of what each version
changed."""

import re
from collections import Counter
from datetime import date
from decimal import Decimal

import pytest

from clubs import services
from matches.results.steps import record_game

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin(client, people):
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "en"
    client.force_login(people["admin"])
    return client


@pytest.fixture
def winter(people):
    return services.create_season(
        club=people["club"], name="Inverno", start=date(2025, 1, 1), end=date(2025, 3, 31)
    )


SETTINGS = "/clubs/circolo-alfa/settings/"


def test_the_point_value_is_shown_and_read_in_the_pages_language(admin, people):
    html = admin.get(SETTINGS, HTTP_ACCEPT_LANGUAGE="it").content.decode()
    field = re.search(r'<input[^>]*name="point_value"[^>]*>', html).group(0)
    assert 'value="0,10"' in field
    assert 'type="text"' in field and 'inputmode="decimal"' in field
    response = admin.post(
        SETTINGS,
        {
            "section": "club",
            "name": "Circolo Alfa",
            "point_value": "0,25",
            "currency": "eur",
            "language": "it",
        },
        HTTP_ACCEPT_LANGUAGE="it",
    )
    assert response.status_code == 302
    people["club"].refresh_from_db()
    assert people["club"].point_value == Decimal("0.25")
    assert people["club"].currency == "EUR"


def test_the_club_fields_saying_what_the_club_does_are_on_the_settings_page(admin, people):
    admin.post(
        SETTINGS,
        {
            "section": "club",
            "name": "Circolo Alfa",
            "point_value": "0.10",
            "currency": "EUR",
            "language": "it",
            "description": "Carte e chiacchiere.",
            "venue": "Bar Sport",
            "meeting_times": "Il giovedì",
        },
    )
    people["club"].refresh_from_db()
    assert (people["club"].description, people["club"].venue, people["club"].meeting_times) == (
        "Carte e chiacchiere.",
        "Bar Sport",
        "Il giovedì",
    )


def test_an_admin_hides_the_clubs_money_from_its_members_and_shows_it_again(admin, people):
    club = people["club"]
    html = admin.get(SETTINGS).content.decode()
    assert re.search(r'<input[^>]*name="members_see_money"[^>]*checked', html)
    fields = {
        "section": "club",
        "name": "Circolo Alfa",
        "point_value": "0.10",
        "currency": "EUR",
        "language": "it",
    }
    assert admin.post(SETTINGS, fields).status_code == 302  # the box left unticked
    club.refresh_from_db()
    assert club.members_see_money is False
    html = admin.get(SETTINGS).content.decode()
    assert not re.search(r'<input[^>]*name="members_see_money"[^>]*checked', html)
    admin.post(SETTINGS, {**fields, "members_see_money": "on"})
    club.refresh_from_db()
    assert club.members_see_money is True


def test_no_two_elements_of_the_settings_page_share_an_id(admin, winter):
    html = admin.get(SETTINGS).content.decode()
    repeated = [i for i, n in Counter(re.findall(r'\sid="([^"]+)"', html)).items() if n > 1]
    assert repeated == []
    assert html.count('id="id_name"') == 1


def test_the_seasons_are_listed_with_a_way_to_edit_and_delete_each(admin, winter):
    html = admin.get(SETTINGS).content.decode()
    row = html.split(f'id="season-{winter.pk}"', 1)[1].split("</li>", 1)[0]
    assert "Inverno" in row
    assert f"/settings/seasons/{winter.pk}/" in row
    assert f"/settings/seasons/{winter.pk}/delete/" in row


def test_an_admin_edits_a_season(admin, winter):
    url = f"{SETTINGS}seasons/{winter.pk}/"
    assert admin.get(url).context["form"]["name"].value() == "Inverno"
    response = admin.post(
        url,
        {"season-name": "Inverno lungo", "season-start": "2025-01-01", "season-end": "2025-04-30"},
    )
    assert response.status_code == 302
    winter.refresh_from_db()
    assert (winter.name, winter.end) == ("Inverno lungo", date(2025, 4, 30))


def test_an_end_before_the_start_is_a_clear_error_at_the_end_date(admin, winter):
    response = admin.post(
        f"{SETTINGS}seasons/{winter.pk}/",
        {"season-name": "Inverno", "season-start": "2025-01-01", "season-end": "2024-12-01"},
    )
    assert response.status_code == 200
    assert response.context["form"].errors["end"] == ["A season cannot end before it starts."]
    assert 'value="2024-12-01"' in response.content.decode()


def test_an_overlapping_season_is_refused_naming_the_other(admin, people, winter):
    spring = services.create_season(
        club=people["club"], name="Primavera", start=date(2025, 4, 1), end=date(2025, 6, 30)
    )
    response = admin.post(
        f"{SETTINGS}seasons/{spring.pk}/",
        {"season-name": "Primavera", "season-start": "2025-03-15", "season-end": "2025-06-30"},
    )
    assert response.status_code == 200
    assert "Inverno" in response.context["form"].errors["start"][0]
    spring.refresh_from_db()
    assert spring.start == date(2025, 4, 1)


def test_deleting_a_season_asks_first_then_deletes(admin, people, winter):
    url = f"{SETTINGS}seasons/{winter.pk}/delete/"
    page = admin.get(url)
    assert page.context["question"] == "Delete the season Inverno?"
    assert people["club"].seasons.filter(pk=winter.pk).exists()
    assert admin.post(url).status_code == 302
    assert not people["club"].seasons.filter(pk=winter.pk).exists()


def test_a_season_with_games_is_not_deleted_and_the_page_says_why(admin, people, winter):
    club = people["club"]
    record_game(
        club=club,
        season=winter,
        record={"game": "spazzumazz", "players": ["A", "B"], "finish_order": ["A", "B"]},
        players={"A": people["guest"], "B": club.players.get(user=people["member"])},
    )
    response = admin.post(f"{SETTINGS}seasons/{winter.pk}/delete/")
    assert response.status_code == 200
    assert "Inverno has games recorded in it and cannot be deleted." in response.content.decode()
    assert club.seasons.filter(pk=winter.pk).exists()


def test_another_clubs_season_is_a_404(admin, people):
    theirs = services.create_season(
        club=people["other"], name="Loro", start=date(2025, 1, 1), end=date(2025, 1, 31)
    )
    assert admin.get(f"{SETTINGS}seasons/{theirs.pk}/").status_code == 404
    assert admin.post(f"{SETTINGS}seasons/{theirs.pk}/delete/").status_code == 404


def save_singapore(admin, **values):
    rules = {
        "joker_limit": "half",
        "rounding": "nearest",
        "cap_applies_to": "base",
        "cap": "100",
        **values,
    }
    body = {
        "section": "singapore",
        **{f"singapore-{k}": v for k, v in rules.items() if v is not None},
    }
    assert admin.post(SETTINGS, body).status_code == 302


def test_the_history_tells_in_words_what_each_version_changed(admin):
    save_singapore(admin, rounding="up")
    save_singapore(admin, rounding="up", cap="", joker_sequence_multipliers="on")
    response = admin.get(SETTINGS)
    history = {r["game"]: r["history"] for r in response.context["rule_forms"]}["singapore"]
    assert [v.version.version for v in history] == [2, 1]
    assert [v.is_current for v in history] == [True, False]
    latest = {c.rule: (c.before, c.after) for c in history[0].changes}
    assert latest == {
        "A 10-card sequence with jokers pays x4 (one joker) or x3 (two)": ("no", "yes"),
        "Cap": ("100", "none"),
    }
    first = {c.rule: (c.before, c.after) for c in history[1].changes}
    assert first == {"Rounding of the loser's points": ("To the nearest ten", "Up to the next ten")}
    shown = response.content.decode().split('class="history"', 1)[1].split("</details>", 1)[0]
    assert "{&#x27;" not in shown and "joker_limit" not in shown  # no Python dict, no keys
    assert "To the nearest ten" in shown


def test_the_history_is_in_the_pages_language(admin):
    save_singapore(admin, rounding="up")
    html = admin.get(SETTINGS, HTTP_ACCEPT_LANGUAGE="it").content.decode()
    history = html.split('id="rules-singapore"', 1)[1].split("</section>", 1)[0]
    assert "Arrotondamento dei punti di chi perde" in history
    assert "Alla decina superiore" in history


def test_the_current_version_is_marked_in_force_and_not_as_an_earlier_one(admin):
    save_singapore(admin, rounding="up")
    html = admin.get(SETTINGS).content.decode()
    history = html.split('id="rules-singapore"', 1)[1].split("</section>", 1)[0]
    assert "Earlier versions" not in history
    assert history.count("in force") == 1
