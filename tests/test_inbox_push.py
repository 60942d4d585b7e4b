"""What waits for you, beyond the site: Web Push to a phone that allowed
it, with real encryption, received by a local push service; the hourly e-mail digest; the
choices; and a subscription's address checked (no SSRF through the push service)."""

import json
import os
import threading
from decimal import Decimal
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import http_ece
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from django.core import mail
from django.utils import timezone

from clubs.inbox import services as inbox
from clubs.inbox.models import Choice, Notification, PushSubscription
from clubs.inbox.tasks import send_digests
from clubs.inbox.vapid import b64url, new_pair
from ledger import services as ledger

pytestmark = pytest.mark.django_db


class PushService(ThreadingHTTPServer):
    """A push service on this machine: keeps what it is sent."""

    def __init__(self):
        self.received: list[tuple[dict, bytes]] = []
        self.paths: list[str] = []  # each push's endpoint path, in the order received
        self.answer = 201

        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                length = int(self.headers.get("Content-Length", 0))
                service.paths.append(self.path)
                service.received.append(
                    ({k.lower(): v for k, v in self.headers.items()}, self.rfile.read(length))
                )
                self.send_response(service.answer)
                self.end_headers()

            def log_message(self, *args):
                pass

        super().__init__(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/push/phone-1"


@pytest.fixture
def push_service():
    service = PushService()
    yield service
    service.shutdown()


@pytest.fixture
def vapid(settings):
    public, private = new_pair()
    settings.VAPID_PUBLIC_KEY, settings.VAPID_PRIVATE_KEY = public, private
    settings.PUSH_ALLOW_PRIVATE = True
    return public


def phone_keys():
    """A browser's subscription keys: its ECDH key pair and auth secret."""
    private = ec.generate_private_key(ec.SECP256R1())
    public = private.public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    auth = os.urandom(16)
    return private, b64url(public), auth, b64url(auth)


def _payment(people, committed, amount="5"):
    club = people["club"]
    mia = club.players.get(user=people["member"])
    sam = club.players.get(user=people["scorer"])
    return committed(
        lambda: ledger.record_payment(
            club=club, payer=mia, payee=sam, amount=Decimal(amount), unit="EUR", by=people["member"]
        )
    )


def test_a_phone_that_allowed_it_is_pushed_the_notification_encrypted_for_it_alone(
    people, committed, push_service, vapid, client
):
    private, p256dh, auth, auth_b64 = phone_keys()
    client.force_login(people["scorer"])
    subscribed = client.post(
        "/inbox/push/",
        json.dumps({"endpoint": push_service.url, "keys": {"p256dh": p256dh, "auth": auth_b64}}),
        content_type="application/json",
    )
    assert subscribed.status_code == 201, subscribed.content
    _payment(people, committed)
    assert len(push_service.received) == 1
    headers, body = push_service.received[0]
    assert headers["content-encoding"] == "aes128gcm"
    assert (
        headers["authorization"].startswith("vapid t=") and f"k={vapid}" in headers["authorization"]
    )
    plain = http_ece.decrypt(body, private_key=private, auth_secret=auth, version="aes128gcm")
    message = json.loads(plain)
    assert message["title"] == people["club"].name
    assert "paid you 5" in message["body"] or "ti ha pagato 5" in message["body"]
    assert message["url"].startswith(f"/clubs/{people['club'].slug}/ledger/")
    assert PushSubscription.objects.get().last_sent is not None


def test_a_phone_gone_from_its_push_service_is_forgotten_and_choices_stop_the_push(
    people, committed, push_service, vapid
):
    _private, p256dh, _auth, auth_b64 = phone_keys()
    inbox.subscribe(user=people["scorer"], endpoint=push_service.url, p256dh=p256dh, auth=auth_b64)
    club = people["club"]
    inbox.save_choices(user=people["scorer"], push=set(), email=set())
    _payment(people, committed)
    assert push_service.received == []  # push off for this club
    inbox.save_choices(user=people["scorer"], push={club.pk}, email=set())
    push_service.answer = 410
    _payment(people, committed, amount="3")
    assert len(push_service.received) == 1
    assert not PushSubscription.objects.exists()


@pytest.mark.parametrize(
    "endpoint",
    [
        "http://127.0.0.1:9/push",
        "https://127.0.0.1/push",
        "https://10.0.0.5/x",
        "ftp://push.example/x",
        "https://localhost/push",
        "not a url",
    ],
)
def test_a_subscription_must_name_a_public_https_push_service(people, client, endpoint, settings):
    settings.PUSH_ALLOW_PRIVATE = False
    _private, p256dh, _auth, auth_b64 = phone_keys()
    client.force_login(people["member"])
    answer = client.post(
        "/inbox/push/",
        json.dumps({"endpoint": endpoint, "keys": {"p256dh": p256dh, "auth": auth_b64}}),
        content_type="application/json",
    )
    assert answer.status_code == 400 and "endpoint" in answer.json()
    assert not PushSubscription.objects.exists()
    assert client.post("/inbox/push/", "{nope", content_type="application/json").status_code == 400


def test_the_digest_mails_what_waits_at_most_once_an_hour(people, committed):
    club = people["club"]
    scorer = people["scorer"]
    scorer.email = "sam@example.org"
    scorer.save()
    _payment(people, committed)
    assert send_digests() == 0  # nobody chose e-mail
    inbox.save_choices(user=scorer, push={club.pk}, email={club.pk})
    now = timezone.now()
    assert send_digests(at=now) == 1
    assert mail.outbox[-1].to == ["sam@example.org"]
    assert "paid you 5" in mail.outbox[-1].body or "ti ha pagato 5" in mail.outbox[-1].body
    _payment(people, committed, amount="7")
    assert send_digests(at=now + timezone.timedelta(minutes=20)) == 0  # within the hour
    assert send_digests(at=now + timezone.timedelta(minutes=61)) == 1
    assert "7" in mail.outbox[-1].body and "paid you 5" not in mail.outbox[-1].body
    assert Notification.objects.filter(mailed_at__isnull=True).count() == 0


def test_the_profile_saves_each_clubs_choices(people, client):
    client.force_login(people["member"])
    club = people["club"]
    page = client.get("/accounts/profile/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert 'id="inbox-choices"' in page and club.name in page
    saved = client.post("/inbox/choices/", {"email": [str(club.pk), str(people["other"].pk)]})
    assert saved.status_code == 302
    choice = Choice.objects.get(user=people["member"])
    assert (choice.club, choice.push, choice.email) == (club, False, True)
    assert not Choice.objects.filter(club=people["other"]).exists()


def test_a_ready_match_given_a_table_calls_its_two_players_to_it(
    people, committed, push_service, vapid, client
):
    from matches.results import steps
    from tests.sputo_world import drawn, make_members, win

    club, admin = people["club"], people["admin"]
    players = make_members(club, 6)
    phones = {}
    for player in players:  # each player's phone, at its own endpoint
        private, p256dh, auth, auth_b64 = phone_keys()
        endpoint = f"{push_service.url}-{player.pk}"
        client.force_login(player.user)
        keys = {"p256dh": p256dh, "auth": auth_b64}
        body = json.dumps({"endpoint": endpoint, "keys": keys})
        assert client.post("/inbox/push/", body, content_type="application/json").status_code == 201
        phones[f"/push/phone-1-{player.pk}"] = (player, private, auth)
    tournament = committed(
        lambda: drawn(club, admin, players, format="round_robin", tables=2, name="Coppa")
    )
    first = tournament.matches.exclude(table=None).select_related("player_a", "player_b")[0]
    waiting = set(tournament.matches.filter(table=None).values_list("pk", flat=True))
    push_service.paths.clear(), push_service.received.clear()
    committed(
        lambda: steps.report_outcome(subject=first, payload=win(first, first.player_a), by=admin)
    )
    given = (
        tournament.matches.filter(pk__in=waiting)
        .exclude(table=None)
        .select_related("player_a", "player_b")
    )
    assert len(given) == 1 and given[0].table == first.table  # the freed table
    match = given[0]
    called = {}
    for path, (_headers, body) in zip(push_service.paths, push_service.received, strict=True):
        player, private, auth = phones[path]
        plain = http_ece.decrypt(body, private_key=private, auth_secret=auth, version="aes128gcm")
        called.setdefault(player.pk, []).append(json.loads(plain)["body"])
    for player, opponent in ((match.player_a, match.player_b), (match.player_b, match.player_a)):
        said = {  # in the player's language
            f"Table {match.table}: you against {opponent.display_name}",
            f"Tavolo {match.table}: tu contro {opponent.display_name}",
        }
        assert any(b.startswith(tuple(said)) for b in called.get(player.pk, [])), called
    others = set(called) - {match.player_a_id, match.player_b_id, first.player_b_id}
    assert not others, called  # nobody else is called
