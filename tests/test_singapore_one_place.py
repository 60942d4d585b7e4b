"""Nobody in two places: a person sits at one open Singapore table of a night at a time. A
second table is a 409 naming the first; leaving it and sitting here is one step (``move``),
on the page one tap."""

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

from matches.models import TableSeat
from matches.singapore import services
from tests.singapore_helpers import make_table, nights_ago, open_table

pytestmark = pytest.mark.django_db

TS = "/api/v1/table-sessions"


@pytest.fixture
def world(make_user):
    return make_table(make_user, ("Anna", "Bruno", "Carla", "Dario"))


def _seated(session):
    return set(
        session.seats.filter(left_at__isnull=True).values_list("player__display_name", flat=True)
    )


def _second(world, names=("Carla", "Dario")):
    session = open_table(world, list(names))
    session.name = "Tavolo 2"
    session.save(update_fields=["name"])
    return session


def test_opening_a_table_with_someone_seated_elsewhere_is_a_409_naming_that_table(api, world):
    open_table(world, ["Anna", "Bruno"])  # "Tavolo 1"
    api.force_authenticate(world["scorer"])
    api.credentials(HTTP_ACCEPT_LANGUAGE="en")
    body = {
        "club": world["club"].slug,
        "name": "Tavolo 2",
        "seats": [world["players"][n].pk for n in ("Carla", "Bruno")],
    }
    response = api.post(f"{TS}/", body, format="json")
    assert response.status_code == 409
    assert response.json() == {"seats": ["Bruno is at “Tavolo 1”: leave it first."]}
    assert world["club"].table_sessions.count() == 1  # nothing half-written


def test_joining_is_a_409_and_with_move_one_step_leaves_the_other_table(api, world):
    first = open_table(world, ["Anna", "Bruno"])
    second = _second(world)
    api.force_authenticate(world["scorer"])
    api.credentials(HTTP_ACCEPT_LANGUAGE="en")
    anna = world["players"]["Anna"].pk
    refused = api.post(f"{TS}/{second.pk}/seats/", {"player": anna}, format="json")
    assert refused.status_code == 409
    assert refused.json() == {"player": ["Anna is at “Tavolo 1”: leave it first."]}
    assert _seated(first) == {"Anna", "Bruno"} and _seated(second) == {"Carla", "Dario"}
    moved = api.post(f"{TS}/{second.pk}/seats/", {"player": anna, "move": True}, format="json")
    assert moved.status_code == 201, moved.json()
    assert _seated(first) == {"Bruno"} and _seated(second) == {"Anna", "Carla", "Dario"}


def test_a_table_closed_or_of_another_night_is_no_place_anyone_is_at(world):
    old = open_table(world, ["Anna", "Bruno"], date=nights_ago(1))  # left open last week
    closed = _second(world, ("Carla", "Dario"))
    services.close_table(session=closed, by=world["scorer"])
    tonight = open_table(world, ["Anna", "Bruno", "Carla", "Dario"])
    assert _seated(tonight) == {"Anna", "Bruno", "Carla", "Dario"}
    assert _seated(old) == {"Anna", "Bruno"}  # the old table keeps its history


def test_a_table_after_midnight_is_the_same_night(world):
    yesterday = timezone.localdate() - timezone.timedelta(days=1)
    open_table(world, ["Anna", "Bruno"], date=yesterday)
    with pytest.raises(ValidationError) as refused:
        open_table(world, ["Anna", "Carla"])
    assert "Anna is at “Tavolo 1”" in str(refused.value)


def test_reopening_a_table_whose_player_sat_down_elsewhere_is_refused(world):
    first = open_table(world, ["Anna", "Bruno"])
    services.close_table(session=first, by=world["scorer"])
    _second(world, ("Anna", "Carla"))
    with pytest.raises(services.Conflict, match="Anna is at “Tavolo 2”"):
        services.reopen_table(session=first, by=world["admin"])
    first.refresh_from_db()
    assert first.closed_at is not None


def test_a_member_at_another_table_leaves_it_and_sits_here_in_one_tap(client, world):
    first = open_table(world, ["Anna", "Bruno"])
    second = _second(world)
    client.force_login(world["users"]["Anna"])
    url = f"/clubs/{world['club'].slug}/tables/{second.pk}/"
    page = client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "You are at “Tavolo 1”." in page and "Leave “Tavolo 1” and sit here" in page
    response = client.post(f"{url}seats/", {"player": world["players"]["Anna"].pk, "move": "1"})
    assert response.status_code == 302
    assert _seated(first) == {"Bruno"} and "Anna" in _seated(second)


def test_a_scorer_refused_is_offered_the_move_and_takes_it(client, world):
    first = open_table(world, ["Anna", "Bruno"])
    second = _second(world)
    client.force_login(world["scorer"])
    url = f"/clubs/{world['club'].slug}/tables/{second.pk}/"
    bruno = world["players"]["Bruno"].pk
    refused = client.post(f"{url}seats/", {"player": bruno}, HTTP_ACCEPT_LANGUAGE="en")
    assert refused.status_code == 302 and refused["Location"].endswith(f"?move={bruno}")
    page = client.get(refused["Location"], HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Bruno is at “Tavolo 1”: leave it first." in page  # the refusal
    assert "Bruno is at “Tavolo 1”." in page and "Move Bruno here from “Tavolo 1”" in page
    client.post(f"{url}seats/", {"player": bruno, "move": "1"})
    assert _seated(first) == {"Anna"} and "Bruno" in _seated(second)
    assert TableSeat.objects.filter(session=first, player_id=bruno, left_at__isnull=False).exists()
