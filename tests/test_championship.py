"""The season's championship: its rules, each event's places, the standings by hand, the
deltas against a rebuild, the final, and the API.

The season of the hand-computed test (rules: Sputo 10, 6, 3 +1; a Singapore night 5, 3, 1
+1 from one hand; a Spazz'u'mazz night 4, 2 +1 from two games; the best 3 count):

- Torneo 1 (Anna, Bruno, Carla, Dario; no third-place match): Anna 1st, Bruno 2nd, Carla
  and Dario share 3rd: 11, 7, 4, 4.
- Torneo 2 (Bruno, Carla, Dario, Elena): Carla 1st, Elena 2nd, Bruno and Dario 3rd: 11, 7,
  4, 4.
- The Singapore night: Anna (dealing) beats Bruno, then Carla: Anna +, Bruno and Carla the
  same minus, sharing 2nd: 6, 4, 4.
- The Spazz'u'mazz night: Anna, Carla, Elena (Elena the idiot), then Carla, Anna, Elena,
  Dario (Dario the idiot, with one game: not enough to take part). Average places: Anna
  (0 + 1/3) / 2 = 1/6, Carla (1/2 + 0) / 2 = 1/4, Elena (1 + 2/3) / 2 = 5/6: 5, 3, 1.

So Anna 11 + 6 + 5 = 22; Carla 11 + 4 + 4 = 19 (her 3 of the Spazz'u'mazz night not
counted); Bruno 7 + 4 + 4 = 15; Elena 7 + 1 = 8 and Dario 4 + 4 = 8, Elena ahead on her
best result (7 to 4).
"""

from datetime import datetime, time, timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from clubs import services as clubs
from matches.championship import services, standings
from matches.championship.models import SeasonStanding
from matches.results import steps
from matches.spazzumazz.services import record_spazzumazz_game
from matches.sputo.models import Entrant, TournamentMatch
from tests.singapore_helpers import make_table, open_table, play
from tests.sputo_world import drawn, win

pytestmark = pytest.mark.django_db

NAMES = ("Anna", "Bruno", "Carla", "Dario", "Elena")
RULES = {
    "events": {
        "sputo": {"points": [10, 6, 3], "participation": 1},
        "singapore_night": {"points": [5, 3, 1], "participation": 1, "min_games": 1},
        "spazzumazz_night": {"points": [4, 2], "participation": 1, "min_games": 2},
    },
    "best_of": 3,
    "min_events": 0,
    "guests": True,
}


def play_out(tournament, preference, by):
    """Every match of ``tournament`` won by whoever comes first in ``preference``."""
    while True:
        ready = TournamentMatch.objects.filter(
            tournament=tournament, result="", player_a__isnull=False, player_b__isnull=False
        ).select_related("player_a", "player_b", "tournament")
        match = ready.first()
        if match is None:
            return
        winner = min((match.player_a, match.player_b), key=preference.index)
        steps.report_outcome(subject=match, payload=win(match, winner), by=by)


@pytest.fixture
def season_world(make_user, committed):
    world = make_table(make_user, NAMES)
    club, admin, p = world["club"], world["admin"], world["players"]
    today = timezone.localdate()
    world["season"] = committed(
        lambda: clubs.create_season(
            club=club, name="2026", start=today - timedelta(days=10), end=today + timedelta(days=5)
        )
    )
    committed(lambda: services.set_championship(season=world["season"], by=admin, data=RULES))
    world["t1"] = committed(
        lambda: drawn(
            club,
            admin,
            [p["Anna"], p["Bruno"], p["Carla"], p["Dario"]],
            name="Torneo 1",
            third_place=False,
            starts_at=timezone.now() - timedelta(days=5),
        )
    )
    committed(lambda: play_out(world["t1"], [p[n] for n in NAMES], admin))
    world["t2"] = committed(
        lambda: drawn(
            club,
            admin,
            [p["Bruno"], p["Carla"], p["Dario"], p["Elena"]],
            name="Torneo 2",
            third_place=False,
            starts_at=timezone.now() - timedelta(days=4),
        )
    )
    committed(
        lambda: play_out(world["t2"], [p["Carla"], p["Elena"], p["Bruno"], p["Dario"]], admin)
    )
    table = committed(
        lambda: open_table(world, ["Anna", "Bruno", "Carla"], first=("Anna", "Bruno"))
    )
    world["hands"] = [
        committed(lambda: play(world, table, "Anna", "Bruno")).hand,
        committed(lambda: play(world, table, "Anna", "Carla")).hand,
    ]
    # 21:00 two days ago: a club night whatever the hour the test runs at.
    night = timezone.make_aware(datetime.combine(today - timedelta(days=2), time(21)))
    for order in (["Anna", "Carla", "Elena"], ["Carla", "Anna", "Elena", "Dario"]):
        people = [p[n] for n in order]
        committed(
            lambda people=people: record_spazzumazz_game(
                club=club,
                players=people,
                by=admin,
                finish_order=[x.pk for x in people],
                played_at=night,
            )
        )
    return world


def lines(season) -> dict:
    return {row.player.display_name: row for row in standings.table(season).rows}


def test_the_standings_by_hand(season_world):
    w = season_world
    places = dict(
        Entrant.objects.filter(tournament=w["t1"]).values_list("player__display_name", "place")
    )
    assert places == {"Anna": 1, "Bruno": 2, "Carla": 3, "Dario": 3}
    rows = lines(w["season"])
    assert {n: (r.rank, r.standing.points, r.standing.events) for n, r in rows.items()} == {
        "Anna": (1, 22, 3),
        "Carla": (2, 19, 4),
        "Bruno": (3, 15, 3),
        "Elena": (4, 8, 2),
        "Dario": (5, 8, 2),
    }
    carla = [(r["event"], r["place"], r["points"], r["counted"]) for r in rows["Carla"].results]
    assert carla == [
        ("sputo", 3, 4, True),
        ("sputo", 1, 11, True),
        ("spazzumazz_night", 2, 3, False),
        ("singapore_night", 2, 4, True),
    ]
    assert [r["place"] for r in rows["Bruno"].results] == [2, 3, 2]  # 2nd shared at the table
    assert "Dario" not in {
        r.player.display_name
        for r in rows.values()
        if any(x["event"] == "spazzumazz_night" for x in r.results)
        and r.player.display_name == "Dario"
    }
    assert rows["Elena"].why == "Level on points and wins with Dario: better best results (7 to 4)."
    assert rows["Dario"].why == "Level on points and wins with Elena: worse best results (4 to 7)."
    assert rows["Anna"].standing.wins == 3


def test_head_to_head_breaks_what_points_wins_and_best_results_leave(season_world, committed):
    w = season_world
    only_sputo = {"events": {"sputo": {"points": [3, 3, 3], "participation": 0}}}
    committed(lambda: services.set_championship(season=w["season"], by=w["admin"], data=only_sputo))
    rows = lines(w["season"])
    # Carla, Bruno and Dario have 6; Carla won Torneo 2; Bruno was ahead of Dario in Torneo 1
    # and level in Torneo 2. Anna and Elena have 3; Anna won Torneo 1.
    assert [(n, r.rank) for n, r in rows.items()] == [
        ("Carla", 1),
        ("Bruno", 2),
        ("Dario", 3),
        ("Anna", 4),
        ("Elena", 5),
    ]
    assert rows["Bruno"].why == ("Level with Dario but for head to head: ahead (1–0).")
    assert rows["Carla"].why == "Level on points with Bruno: more wins (1 to 0)."


def test_a_void_takes_the_night_from_whoever_played_only_that(season_world, committed):
    w = season_world
    committed(lambda: steps.void_outcome(subject=w["hands"][1], by=w["admin"], reason="Errore"))
    rows = lines(w["season"])
    assert [r["event"] for r in rows["Carla"].results] == ["sputo", "sputo", "spazzumazz_night"]
    assert rows["Carla"].standing.points == 11 + 4 + 3  # the night's 3 counts now
    before = {s.player_id: (s.points, s.results) for s in SeasonStanding.objects.all()}
    standings.rebuild_season(w["season"])
    assert {s.player_id: (s.points, s.results) for s in SeasonStanding.objects.all()} == before


def test_min_events_and_guests(season_world, committed):
    w = season_world
    guest = clubs.add_guest(club=w["club"], display_name="Ospite")
    rules = {**RULES, "min_events": 3}
    committed(lambda: services.set_championship(season=w["season"], by=w["admin"], data=rules))
    rows = lines(w["season"])
    assert rows["Dario"].rank is None and rows["Elena"].rank is None
    assert rows["Dario"].why == "Not ranked yet: 2 events of the 3 needed."
    assert [n for n, r in rows.items()][:3] == ["Anna", "Carla", "Bruno"]
    # A guest plays a Spazz'u'mazz night twice: ranked by default, left out without guests.
    p = w["players"]
    for _ in range(2):
        committed(
            lambda: record_spazzumazz_game(
                club=w["club"],
                players=[guest, p["Anna"]],
                by=w["admin"],
                finish_order=[guest.pk, p["Anna"].pk],
                played_at=timezone.now() - timedelta(days=1),
            )
        )
    committed(
        lambda: services.set_championship(
            season=w["season"], by=w["admin"], data={**rules, "min_events": 0}
        )
    )
    assert "Ospite" in lines(w["season"])
    committed(
        lambda: services.set_championship(
            season=w["season"], by=w["admin"], data={**rules, "min_events": 0, "guests": False}
        )
    )
    assert "Ospite" not in lines(w["season"])


def test_the_final_takes_the_top_seeded_by_rank(season_world, committed, api):
    w = season_world
    api.force_authenticate(w["admin"])
    url = f"/api/v1/seasons/{w['season'].pk}/final/"
    response = api.post(
        url, {"top": 4, "format": "single_elimination", "name": "Finale"}, format="json"
    )
    assert response.status_code == 201, response.content
    entrants = Entrant.objects.filter(tournament_id=response.json()["id"]).order_by("manual_seed")
    assert [(e.player.display_name, e.manual_seed) for e in entrants] == [
        ("Anna", 1),
        ("Carla", 2),
        ("Bruno", 3),
        ("Elena", 4),
    ]
    bad = api.post(url, {"top": 1, "format": "single_elimination", "name": "F"}, format="json")
    assert bad.status_code == 400 and "top" in bad.json()
    bad = api.post(url, {"top": 4, "format": "lottery", "name": "F"}, format="json")
    assert bad.status_code == 400 and "format" in bad.json()


def test_the_api_puts_versions_and_reads_standings(season_world, api, committed):
    w = season_world
    season = w["season"]
    url = f"/api/v1/seasons/{season.pk}/championship/"
    assert api.get(url).json()["version"] == 1  # a public club: anyone reads the rules
    api.force_authenticate(w["users"]["Anna"])
    assert api.put(url, RULES, format="json").status_code == 403
    api.force_authenticate(w["admin"])
    changed = {**RULES, "best_of": None}
    response = committed(lambda: api.put(url, changed, format="json"))
    assert response.status_code == 200 and response.json()["version"] == 2
    assert committed(lambda: api.put(url, changed, format="json")).json()["version"] == 2
    body = api.get(f"/api/v1/seasons/{season.pk}/standings/").json()
    assert body["version"] == 2
    carla = next(r for r in body["rows"] if r["player"] == w["players"]["Carla"].pk)
    assert carla["points"] == 22 and all(r["counted"] for r in carla["results"])
    assert set(carla["results"][0]) == {"event", "id", "date", "place", "points", "counted"}
    assert carla["results"][0]["id"] == w["t1"].pk
    for wrong, field in [
        ({**RULES, "best_of": 0}, "best_of"),
        ({**RULES, "events": {"sputo": {"points": "25"}}}, "events.sputo.points"),
        ({**RULES, "events": {"poker": {"points": [1]}}}, "events.poker"),
        ({**RULES, "events": {"sputo": {"points": [1], "min_games": 2}}}, "events.sputo.min_games"),
        ({**RULES, "guests": "yes"}, "guests"),
    ]:
        response = api.put(url, wrong, format="json")
        assert response.status_code == 400 and field in response.json(), (wrong, response.json())
    assert api.get(url).json()["version"] == 2


def test_the_page_and_its_csv(season_world, client, committed):
    w = season_world
    page = reverse("championship:standings", args=[w["club"].slug, w["season"].pk])
    html = client.get(page).content.decode()
    assert "Anna" in html and "<s " in html and 'id="standings"' in html
    assert 'id="rules"' not in html  # the rules form is for admins
    csv = client.get(reverse("championship:csv", args=[w["club"].slug, w["season"].pk]))
    lines_ = csv.content.decode().splitlines()
    assert len(lines_[0].split(",")) == 7 and lines_[1].startswith("1,Anna,22,3,3")
    client.force_login(w["admin"])
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "en"
    response = client.post(
        reverse("championship:rules", args=[w["club"].slug, w["season"].pk]),
        {
            "sputo_counts": "on",
            "sputo_points": "10, x",
            "sputo_participation": 0,
            "singapore_night_participation": 0,
            "singapore_night_min_games": 0,
            "spazzumazz_night_participation": 0,
            "spazzumazz_night_min_games": 0,
            "min_events": 0,
            "guests": "on",
        },
    )
    assert (
        response.status_code == 400
        and "Whole numbers separated by commas." in response.content.decode()
    )
    response = committed(
        lambda: client.post(
            reverse("championship:rules", args=[w["club"].slug, w["season"].pk]),
            {
                "sputo_counts": "on",
                "sputo_points": "10, 5",
                "sputo_participation": 0,
                "singapore_night_participation": 0,
                "singapore_night_min_games": 0,
                "spazzumazz_night_participation": 0,
                "spazzumazz_night_min_games": 0,
                "min_events": 0,
                "guests": "on",
            },
        )
    )
    assert response.status_code == 302
    assert lines(w["season"])["Carla"].standing.points == 10
