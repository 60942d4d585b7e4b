"""The profile page: one display name, carried by the user's players in every club."""

import pytest

from clubs import services
from clubs.models import Profile

pytestmark = pytest.mark.django_db


@pytest.fixture
def mia(client, people):
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "en"
    client.force_login(people["member"])
    return client


def test_the_profile_shows_the_name_and_where_it_is_used(mia, people):
    response = mia.get("/accounts/profile/")
    assert response.context["form"]["display_name"].value() == "mia"
    assert [p.club.name for p in response.context["players"]] == ["Circolo Alfa"]


def test_a_new_display_name_renames_the_player_in_every_club(mia, people):
    beta = people["other"]
    services.add_member(club=beta, user=people["member"])
    response = mia.post("/accounts/profile/", {"display_name": "  Mia  Rossi "})
    assert response.status_code == 302
    names = set(people["member"].players.values_list("display_name", flat=True))
    assert names == {"Mia Rossi"}


def test_a_club_joined_later_uses_the_chosen_name(mia, people, make_user):
    mia.post("/accounts/profile/", {"display_name": "Mia Rossi"})
    club = services.create_club(name="Circolo Nuovo", founder=make_user("nino"))
    services.add_member(club=club, user=people["member"])
    assert club.players.get(user=people["member"]).display_name == "Mia Rossi"


def test_a_name_taken_in_one_club_is_refused_naming_the_club_and_changes_nothing(mia, people):
    services.add_member(club=people["other"], user=people["member"])
    services.add_guest(club=people["other"], display_name="Zio Pino")
    response = mia.post("/accounts/profile/", {"display_name": "Zio Pino"})
    assert response.status_code == 200
    assert response.context["form"].errors["display_name"] == [
        "Circolo Alfa, Circolo Beta already has a player with this name."
    ]
    assert set(people["member"].players.values_list("display_name", flat=True)) == {"mia"}
    assert not Profile.objects.exists()


def test_an_empty_name_is_a_form_error(mia):
    response = mia.post("/accounts/profile/", {"display_name": "   "})
    assert response.status_code == 200
    assert response.context["form"].errors["display_name"]


def test_anonymous_is_asked_to_log_in(client):
    response = client.get("/accounts/profile/")
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")
