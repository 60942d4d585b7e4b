"""Each event a webhook can ask for is sent when it happens, its body as the schema
documents it (``clubs.webhooks.payloads``); and the contract: a Sputo match confirmed
through the API reaches a receiving server, signed, within 30 s on the zero-setup default
(SQLite, tasks in-process)."""

import json
from datetime import UTC, datetime, timedelta

import pytest
from rest_framework.test import APIClient

from clubs import services as clubs_services
from clubs.webhooks import payloads, services
from clubs.webhooks.models import Event
from ledger import services as ledger_services
from matches.results import steps
from matches.spazzumazz.services import record_spazzumazz_game
from tests import webhook_receiver
from tests.singapore_helpers import make_table, open_table, play
from tests.sputo_world import drawn, make_members, match_at, win

pytestmark = pytest.mark.django_db


@pytest.fixture
def receiver(settings):
    settings.WEBHOOK_ALLOW_PRIVATE = True
    server = webhook_receiver.start()
    yield server
    server.server.shutdown()
    server.server.server_close()


def listen(club, receiver, events=tuple(Event.values)):
    return services.create_webhook(club=club, url=receiver.url, events=list(events))


def bodies(receiver, hook, event=None) -> list[dict]:
    """What the receiver got (each signed with the webhook's secret), each body checked
    against the schema's serializer of its event."""
    found = []
    for got in receiver.received:
        assert got.signed_with(hook.secret)
        body = json.loads(got.body)
        data = payloads.DATA[body["event"]](data=body["data"])
        assert data.is_valid(), (body["event"], data.errors)
        if event is None or body["event"] == event:
            found.append(body)
    return found


def test_a_sputo_tournament_sends_ready_matches_results_and_the_finish(
    people, receiver, django_capture_on_commit_callbacks
):
    club = people["club"]
    hook = listen(club, receiver)
    players = make_members(club, 4)
    with django_capture_on_commit_callbacks(execute=True):
        tournament = drawn(club, people["admin"], players, best_of=1)
    ready = bodies(receiver, hook, "match.ready")
    assert len(ready) == 2
    assert {tuple(p["id"] for p in b["data"]["players"]) for b in ready} == {
        (players[0].pk, players[3].pk),
        (players[1].pk, players[2].pk),
    }
    assert ready[0]["data"]["tournament"]["id"] == tournament.pk
    for position in (0, 1):
        m = match_at(tournament, 1, position)
        with django_capture_on_commit_callbacks(execute=True):
            steps.report_outcome(subject=m, payload=win(m, m.player_a), by=m.player_a.user)
            steps.confirm_outcome(subject=m, by=m.player_b.user)
    confirmed = bodies(receiver, hook, "result.confirmed")
    assert len(confirmed) == 2
    assert confirmed[0]["data"]["game"] == "sputo"
    assert confirmed[0]["data"]["result"]["status"] == "confirmed"
    final = match_at(tournament, 2, 0)
    later = {b["data"]["match"]["id"]: b for b in bodies(receiver, hook, "match.ready")[2:]}
    assert set(later) == {final.pk, match_at(tournament, 2, 0, kind="third_place").pk}
    assert later[final.pk]["data"]["match"]["round_label"] == "Finale"  # the club's language
    third = match_at(tournament, 2, 0, kind="third_place")
    with django_capture_on_commit_callbacks(execute=True):
        steps.report_outcome(subject=final, payload=win(final, final.player_b), by=people["admin"])
        assert bodies(receiver, hook, "tournament.finished") == []  # the third place is not
        steps.report_outcome(subject=third, payload=win(third, third.player_a), by=people["admin"])
    (finished,) = bodies(receiver, hook, "tournament.finished")
    standings = finished["data"]["standings"]
    assert standings[:2] == [
        {"place": 1, "player": {"id": final.player_b_id, "name": final.player_b.display_name}},
        {"place": 2, "player": {"id": final.player_a_id, "name": final.player_a.display_name}},
    ]
    with django_capture_on_commit_callbacks(execute=True):
        steps.correct_outcome(
            subject=final,
            payload=win(final, final.player_a),
            by=people["admin"],
            reason="Scambiati i nomi",
        )
    (corrected,) = bodies(receiver, hook, "result.corrected")
    assert corrected["data"]["result"]["supersedes"] is not None


def test_a_singapore_hand_is_sent_as_recorded_and_as_a_result(
    make_user, receiver, django_capture_on_commit_callbacks
):
    world = make_table(make_user)
    hook = listen(world["club"], receiver, ["hand.recorded", "result.confirmed"])
    session = open_table(world, ["Anna", "Bruno", "Carla"], first=("Anna", "Bruno"))
    with django_capture_on_commit_callbacks(execute=True):
        recorded = play(world, session, "Anna", "Bruno")
    (hand,) = bodies(receiver, hook, "hand.recorded")
    assert hand["data"]["hand"]["id"] == recorded.hand.pk
    assert hand["data"]["dealer"]["name"] == "Anna" and hand["data"]["opponent"]["name"] == "Bruno"
    assert hand["data"]["result"]["status"] == "confirmed"  # recorded by a scorer
    (result,) = bodies(receiver, hook, "result.confirmed")
    assert result["data"]["game"] == "singapore" and "/hands/" in result["data"]["subject"]["url"]


def test_a_confirmed_payment_is_sent(people, receiver, django_capture_on_commit_callbacks):
    club = people["club"]
    hook = listen(club, receiver, ["payment.confirmed"])
    payee = club.players.get(user=people["member"])
    payment = ledger_services.record_payment(
        club=club,
        payer=people["guest"],
        payee=payee,
        amount="12.50",
        unit="EUR",
        by=people["admin"],
    )
    assert receiver.received == []  # recorded is not confirmed
    with django_capture_on_commit_callbacks(execute=True):
        ledger_services.confirm_payment(payment=payment, by=people["member"])
    (body,) = bodies(receiver, hook)
    sent = body["data"]["payment"]
    assert (sent["id"], sent["amount"], sent["unit"]) == (payment.pk, "12.50", "EUR")
    assert sent["payer"]["name"] == "Zio Pino" and sent["payee"]["id"] == payee.pk


def test_the_game_changing_hands_is_sent_with_its_name_in_the_clubs_language(
    people, receiver, django_capture_on_commit_callbacks
):
    club = people["club"]
    hook = listen(club, receiver, ["game_name.changed"])
    with django_capture_on_commit_callbacks(execute=True):
        clubs_services.update_house_rules(
            club=club, game="spazzumazz", values={"idiot_min_games": 1}, by=people["admin"]
        )
    a, b = (clubs_services.add_guest(club=club, display_name=n) for n in ("Ada", "Bea"))
    t0 = datetime(2025, 1, 10, 21, 0, tzinfo=UTC)
    for n, order in enumerate([(a, b), (b, a)]):
        with django_capture_on_commit_callbacks(execute=True):
            record_spazzumazz_game(
                club=club,
                players=list(order),
                by=people["scorer"],
                finish_order=[p.pk for p in order],
                played_at=t0 + timedelta(hours=n),
            )
    first, second = bodies(receiver, hook)
    assert first["data"]["name"] == "Gioco di Bea" and first["data"]["previous"] is None
    # Both 1 of 2 now: the tie goes to the name that sorts first.
    assert second["data"]["player"] == {"id": a.pk, "name": "Ada"}
    assert second["data"]["previous"] == {"id": b.pk, "name": "Bea"}


@pytest.mark.django_db(transaction=True)
def test_a_match_confirmed_through_the_api_reaches_the_receiver_signed_within_30_s(
    people, receiver
):
    """The webhooks' contract, on the zero-setup default: real commits, the outbox's task run
    in-process after each."""
    club = people["club"]
    admin = APIClient()
    admin.force_authenticate(people["admin"])
    created = admin.post(
        "/api/v1/webhooks/",
        {"club": club.slug, "url": receiver.url, "events": ["result.confirmed"]},
        format="json",
    )
    assert created.status_code == 201, created.data
    secret = created.data["secret"]
    players = make_members(club, 2)
    tournament = drawn(club, people["admin"], players, best_of=1)
    m = match_at(tournament, 1, 0)
    a, b = APIClient(), APIClient()
    a.force_authenticate(m.player_a.user)
    b.force_authenticate(m.player_b.user)
    path = f"/api/v1/tournament-matches/{m.pk}"
    game = {"games": [{"winner": m.player_b_id, "cards_left": 4}]}
    assert a.post(f"{path}/report/", game, format="json").status_code == 201
    assert receiver.received == []  # reported, not confirmed
    assert b.post(f"{path}/confirm/").status_code == 200
    assert receiver.arrived.wait(30)
    (got,) = receiver.received
    assert got.headers["X-Circolo-Signature"].startswith("sha256=")
    assert got.signed_with(secret)
    body = json.loads(got.body)
    assert body["event"] == "result.confirmed" and body["club"] == club.slug
    assert body["data"]["subject"]["id"] == m.pk


def test_the_schema_documents_each_events_body(client):
    schema = client.get("/api/schema/", {"format": "json"}).json()
    hooks = schema["x-webhooks"]
    assert set(hooks) == set(Event.values)
    components = schema["components"]["schemas"]
    for event, item in hooks.items():
        ref = item["post"]["requestBody"]["content"]["application/json"]["schema"]["$ref"]
        body = components[ref.rsplit("/", 1)[1]]
        assert set(body["required"]) == {"id", "event", "created", "club", "data"}, event
        data = components[body["properties"]["data"]["$ref"].rsplit("/", 1)[1]]
        assert data["properties"], event
        assert "X-Circolo-Signature" in item["post"]["description"]
