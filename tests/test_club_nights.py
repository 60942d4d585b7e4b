"""Club nights: scheduling, answers with a cap and its waiting list (promotion told in the
inbox), who was there from the night's seats and places, and the API's contract."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from clubs import services as clubs
from clubs.inbox.models import Kind, Notification
from matches.nights import attendance, services
from matches.nights.models import NightAnswer
from matches.spazzumazz.services import record_spazzumazz_game
from tests.singapore_helpers import make_table, open_table

pytestmark = pytest.mark.django_db
NAMES = ("Anna", "Bruno", "Carla", "Dario")


@pytest.fixture
def w(make_user):
    return make_table(make_user, NAMES, guests=("Zio Pino",))


def friday(days=3):
    return timezone.now().replace(microsecond=0) + timedelta(days=days)


def test_a_cap_keeps_a_waiting_list_and_a_freed_place_goes_to_the_first_who_waits(w, committed):
    night = committed(
        lambda: services.schedule_night(
            club=w["club"], by=w["admin"], starts_at=friday(), games=["singapore"], capacity=2
        )
    )
    # Everyone in the club is asked in their inbox.
    asked = set(
        Notification.objects.filter(kind=Kind.NIGHT_RSVP, done_at=None).values_list(
            "user__username", flat=True
        )
    )
    assert asked == {"ada", "sam", "anna", "bruno", "carla", "dario"}
    u = w["users"]
    for name in ("Anna", "Bruno", "Carla", "Dario"):
        committed(lambda name=name: services.answer(night=night, by=u[name], answer="yes"))
    rows = {a.player.display_name: a.waiting for a in NightAnswer.objects.filter(night=night)}
    assert rows == {"Anna": False, "Bruno": False, "Carla": True, "Dario": True}
    # Answered: no longer asked.
    assert not Notification.objects.filter(kind=Kind.NIGHT_RSVP, done_at=None, user=u["Anna"])
    committed(lambda: services.answer(night=night, by=u["Bruno"], answer="no"))
    rows = {
        a.player.display_name: a.waiting
        for a in NightAnswer.objects.filter(night=night, answer="yes")
    }
    assert rows == {"Anna": False, "Carla": False, "Dario": True}
    told = Notification.objects.get(kind=Kind.OFF_WAITING_LIST, done_at=None)
    assert told.user == u["Carla"] and told.url == night.get_absolute_url()
    # A maybe frees no place that was not taken; the same answer twice changes nothing.
    committed(lambda: services.answer(night=night, by=u["Dario"], answer="maybe"))
    committed(lambda: services.answer(night=night, by=u["Anna"], answer="yes"))
    assert NightAnswer.objects.filter(night=night, waiting=True).count() == 0
    assert services.places_taken(night) == 2


def test_an_admin_answers_for_a_guest_and_nobody_for_another_member(w, committed):
    night = committed(
        lambda: services.schedule_night(
            club=w["club"], by=w["admin"], starts_at=friday(), games=["spazzumazz"]
        )
    )
    guest = w["players"]["Zio Pino"]
    committed(lambda: services.answer(night=night, by=w["admin"], answer="yes", player=guest))
    from django.core.exceptions import PermissionDenied

    with pytest.raises(PermissionDenied):
        services.answer(night=night, by=w["users"]["Anna"], answer="yes", player=guest)
    with pytest.raises(PermissionDenied):
        services.answer(night=night, by=w["admin"], answer="yes", player=w["players"]["Bruno"])


def test_who_was_there_comes_from_the_seats_and_the_places(w, committed):
    starts = timezone.now() - timedelta(hours=1)
    night = committed(
        lambda: services.schedule_night(
            club=w["club"], by=w["admin"], starts_at=starts, games=["singapore", "spazzumazz"]
        )
    )
    p = w["players"]
    for name in ("Anna", "Bruno", "Dario"):
        committed(lambda name=name: services.answer(night=night, by=w["users"][name], answer="yes"))
    committed(lambda: open_table(w, ["Anna", "Carla"]))  # sat at a table, no hand yet
    people = [p["Bruno"], p["Zio Pino"]]
    committed(
        lambda: record_spazzumazz_game(
            club=w["club"], players=people, by=w["admin"], finish_order=[x.pk for x in people]
        )
    )
    # Another night's game does not count.
    committed(
        lambda: record_spazzumazz_game(
            club=w["club"],
            players=[p["Dario"], p["Carla"]],
            by=w["admin"],
            finish_order=[p["Dario"].pk, p["Carla"].pk],
            played_at=timezone.now() - timedelta(days=3),
        )
    )
    there = attendance.attended(night)
    assert there == {p[n].pk for n in ("Anna", "Carla", "Bruno", "Zio Pino")}
    from django.test import Client

    dario = Client(HTTP_ACCEPT_LANGUAGE="en")
    dario.force_login(w["users"]["Dario"])
    page = dario.get(night.get_absolute_url()).content.decode()
    assert "Only you see this: you said you would come" in page
    anna = Client(HTTP_ACCEPT_LANGUAGE="en")
    anna.force_login(w["users"]["Anna"])
    page = anna.get(night.get_absolute_url()).content.decode()
    assert "Only you see this" not in page and "Who was there" in page
    assert "Dario" not in page.split("Who was there")[1].split("</section>")[0]  # never no-shows


def test_the_api_contract(w, api, committed):
    api.force_authenticate(w["admin"])
    body = {
        "club": w["club"].slug,
        "starts_at": friday().isoformat(),
        "games": ["sputo", "singapore", "spazzumazz", "sputo"],
        "capacity": 1,
    }
    created = committed(lambda: api.post("/api/v1/club-nights/", body, format="json"))
    assert created.status_code == 201, created.content
    night_id = created.json()["id"]
    assert created.json()["games"] == ["singapore", "sputo", "spazzumazz"]  # each once
    api.force_authenticate(w["users"]["Anna"])
    url = f"/api/v1/club-nights/{night_id}/"
    assert (
        committed(lambda: api.post(url + "rsvp/", {"answer": "yes"}, format="json")).status_code
        == 200
    )
    api.force_authenticate(w["users"]["Bruno"])
    got = committed(lambda: api.post(url + "rsvp/", {"answer": "yes"}, format="json")).json()
    assert got["coming"] == [w["players"]["Anna"].pk] and got["waiting"] == [
        w["players"]["Bruno"].pk
    ]
    assert got["coming_count"] == 1 and got["mine"] == "yes" and got["attended"] == []
    listed = api.get(f"/api/v1/club-nights/?club={w['club'].slug}").json()["results"]
    assert [n["id"] for n in listed] == [night_id]
    api.force_authenticate(None)
    public = api.get(url).json()
    assert public["coming"] == [] and public["coming_count"] == 1 and public["waiting_count"] == 1
    api.force_authenticate(w["users"]["Anna"])
    assert api.post("/api/v1/club-nights/", body, format="json").status_code == 403
    assert api.post(url + "rsvp/", {"answer": "forse"}, format="json").json().keys() == {"answer"}
    api.force_authenticate(w["admin"])
    for wrong, field in [
        ({**body, "games": ["poker"]}, "games"),
        ({**body, "games": []}, "games"),
        ({**body, "capacity": 0}, "capacity"),
        ({**body, "starts_at": "domani"}, "starts_at"),
        ({**body, "starts_at": (timezone.now() - timedelta(days=2)).isoformat()}, "starts_at"),
        ({**body, "club": "nessuno"}, "club"),
    ]:
        response = api.post("/api/v1/club-nights/", wrong, format="json")
        named = {key.split("[")[0] for key in response.json()}
        assert response.status_code in (400, 404, 409) and field in named, (wrong, response.json())


def test_the_pages_schedule_and_answer(w, client, committed):
    client.force_login(w["admin"])
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "en"
    page = reverse("nights:list", args=[w["club"].slug])
    assert "Schedule a club night" in client.get(page).content.decode()
    when = timezone.localtime(friday()).strftime("%Y-%m-%dT%H:%M")
    response = committed(
        lambda: client.post(page, {"starts_at": when, "games": ["singapore"], "capacity": ""})
    )
    assert response.status_code == 302
    night = w["club"].club_nights.get()
    bad = client.post(page, {"starts_at": when, "games": []})
    assert bad.status_code == 400
    member = type(client)(HTTP_ACCEPT_LANGUAGE="en")
    member.force_login(w["users"]["Carla"])
    response = committed(
        lambda: member.post(
            reverse("nights:answer", args=[w["club"].slug, night.pk]), {"answer": "maybe"}
        )
    )
    assert response.status_code == 302
    assert NightAnswer.objects.get(night=night).answer == "maybe"
    club_page = member.get(reverse("clubs:detail", args=[w["club"].slug])).content.decode()
    assert "Next club night" in club_page and 'aria-pressed="true"' in club_page
    clubs.add_guest(club=w["club"], display_name="Ospite")
