"""Seasons: one service for the pages and the API, never overlapping, kept while they hold games."""

from datetime import date

import pytest
from django.core.exceptions import ValidationError

from clubs import services
from matches.results.steps import record_game

pytestmark = pytest.mark.django_db


@pytest.fixture
def winter(people):
    return services.create_season(
        club=people["club"], name="Inverno", start=date(2025, 1, 1), end=date(2025, 3, 31)
    )


@pytest.mark.parametrize(
    "start, end, field",
    [
        (date(2025, 3, 31), date(2025, 6, 30), "start"),  # shares the last day
        (date(2024, 12, 1), date(2025, 1, 1), "start"),  # shares the first day
        (date(2025, 2, 1), date(2025, 2, 2), "start"),  # inside
        (date(2024, 1, 1), date(2026, 1, 1), "start"),  # around
        (date(2025, 6, 1), date(2025, 5, 1), "end"),  # ends before it starts
    ],
)
def test_a_season_that_overlaps_another_or_ends_before_it_starts_is_refused(
    people, winter, start, end, field
):
    with pytest.raises(ValidationError) as refused:
        services.create_season(club=people["club"], name="Nuova", start=start, end=end)
    assert list(refused.value.message_dict) == [field]
    assert people["club"].seasons.count() == 1


def test_the_overlap_message_names_the_other_season(people, winter):
    with pytest.raises(ValidationError) as refused:
        services.create_season(
            club=people["club"], name="Nuova", start=date(2025, 3, 1), end=date(2025, 4, 1)
        )
    assert "Inverno" in refused.value.message_dict["start"][0]


def test_seasons_of_different_clubs_may_overlap(people, winter):
    other = services.create_season(
        club=people["other"], name="Inverno", start=date(2025, 1, 1), end=date(2025, 3, 31)
    )
    assert other.pk != winter.pk


def test_a_season_may_be_moved_over_its_own_dates(winter):
    moved = services.update_season(season=winter, end=date(2025, 4, 30))
    assert moved.end == date(2025, 4, 30)
    assert services.update_season(season=winter, name="  Inverno   lungo ").name == "Inverno lungo"


def test_two_seasons_of_one_club_cannot_share_a_name(people, winter):
    with pytest.raises(ValidationError) as refused:
        services.create_season(
            club=people["club"], name="Inverno", start=date(2026, 1, 1), end=date(2026, 3, 31)
        )
    assert list(refused.value.message_dict) == ["name"]


def test_an_empty_season_can_be_deleted_but_one_with_games_cannot(people, winter):
    club = people["club"]
    spring = services.create_season(
        club=club, name="Primavera", start=date(2025, 4, 1), end=date(2025, 6, 30)
    )
    services.delete_season(season=spring)
    assert not club.seasons.filter(name="Primavera").exists()

    pino = people["guest"]
    mia = club.players.get(user=people["member"])
    record_game(
        club=club,
        season=winter,
        record={
            "game": "spazzumazz",
            "players": ["Zio Pino", "mia"],
            "finish_order": ["mia", "Zio Pino"],
        },
        players={"Zio Pino": pino, "mia": mia},
    )
    with pytest.raises(ValidationError, match="has games"):
        services.delete_season(season=winter)
    assert club.seasons.filter(pk=winter.pk).exists()


def test_the_settings_page_adds_a_season_and_shows_the_services_error(client, people, winter):
    client.force_login(people["admin"])
    url = f"/clubs/{people['club'].slug}/settings/"
    form = {"section": "season", "season-name": "Sovrapposta"}
    response = client.post(url, {**form, "season-start": "2025-03-01", "season-end": "2025-04-30"})
    assert response.status_code == 200
    assert "Inverno" in response.context["season_form"].errors["start"][0]
    response = client.post(url, {**form, "season-start": "2025-04-01", "season-end": "2025-04-30"})
    assert response.status_code == 302
    assert people["club"].seasons.filter(name="Sovrapposta").exists()


def test_the_api_refuses_an_overlap_naming_the_field_and_deletes_an_empty_season(people, winter):
    from rest_framework.test import APIClient

    api = APIClient()
    api.force_login(people["admin"])
    body = {
        "club": people["club"].slug,
        "name": "Estate",
        "start": "2025-03-15",
        "end": "2025-08-31",
    }
    response = api.post("/api/v1/seasons/", body, format="json")
    assert response.status_code == 409
    assert list(response.json()) == ["start"]
    response = api.post("/api/v1/seasons/", {**body, "start": "2025-06-01"}, format="json")
    assert response.status_code == 201
    assert api.delete(f"/api/v1/seasons/{response.json()['id']}/").status_code == 204
