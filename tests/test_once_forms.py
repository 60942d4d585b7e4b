"""A double tap records once: every write form carries a
one-time token (``plumbing.once``), and the second submit of the same form records nothing and
goes where the first one went. The hand form, the Spazz'u'mazz entry, a result's report,
payments, invitations and joining a club; the token's rows dropped by the housekeeping."""

import re
from datetime import timedelta

import pytest
from django.contrib.messages import get_messages
from django.test import Client
from django.utils import timezone

from circolo.tasks import housekeeping
from clubs import services as clubs
from clubs.models import Invitation, Membership
from ledger import services as ledger
from ledger.models import Payment
from matches.models import Hand, SpazzumazzGame
from matches.results.models import Outcome
from plumbing.once.models import Submission
from plumbing.once.sent import fingerprint
from tests.conftest import PASSWORD
from tests.ledger_helpers import players_of
from tests.singapore_helpers import CLOSING, SEVENTY, make_table, open_table
from tests.sputo_world import drawn, make_members, match_at

pytestmark = pytest.mark.django_db

TOKEN = "tap-tap-0123456789abcdef"


def token_of(page) -> str:
    """The one-time token of the (first) write form on a page."""
    found = re.search(r'name="once" value="([^"]+)"', page.content.decode())
    assert found, "the form carries no one-time token"
    return found.group(1)


def twice(client, url, data):
    """The same form sent twice, as a double tap sends it."""
    return client.post(url, data), client.post(url, data)


def said(response) -> list[str]:
    return [str(m) for m in get_messages(response.wsgi_request)]


# --- The hand form ---------------------------------------------------------------------------


@pytest.fixture
def table(make_user, client):
    world = make_table(make_user, ("Anna", "Bruno"))
    session = open_table(world, ["Anna", "Bruno"], first=("Anna", "Bruno"))
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "en"
    client.force_login(world["scorer"])
    return world, session, f"/clubs/{world['club'].slug}/tables/{session.pk}/hands/new/"


def hand_form(world, *, token, dealer="Anna", opponent="Bruno", quotas=1):
    p = world["players"]
    return {
        "once": token,
        "dealer": p[dealer].pk,
        "opponent": p[opponent].pk,
        "winner": "dealer",
        "winner_cards": " ".join(CLOSING),
        "loser_cards": " ".join(SEVENTY),
        "dealer_quotas": quotas,
        f"cover_{p[opponent].pk}": 1,
        "action": "save",
    }


def test_the_hand_form_sent_twice_records_one_hand_and_goes_where_the_first_went(client, table):
    world, session, url = table
    token = token_of(client.get(url))
    first, second = twice(client, url, hand_form(world, token=token))
    assert first.status_code == second.status_code == 302
    assert (
        second["Location"]
        == first["Location"]
        == f"/clubs/{world['club'].slug}/tables/{session.pk}/"
    )
    assert Hand.objects.count() == 1
    assert "This form was already sent: nothing more recorded." in said(second)


def test_each_showing_of_the_hand_form_has_a_token_of_its_own(client, table):
    _world, _session, url = table
    assert token_of(client.get(url)) != token_of(client.get(url))


def test_a_new_form_records_the_next_hand(client, table):
    world, _session, url = table
    client.post(url, hand_form(world, token=token_of(client.get(url))))
    client.post(url, hand_form(world, token=token_of(client.get(url))))
    assert Hand.objects.count() == 2


def test_a_form_changed_and_sent_again_with_its_old_token_is_another_hand(client, table):
    # The browser's Back button shows the form again with its token: what is changed in it
    # is a new hand, not a double tap.
    world, _session, url = table
    client.post(url, hand_form(world, token=TOKEN))
    client.post(url, hand_form(world, token=TOKEN, quotas=2))
    assert list(Hand.objects.order_by("number").values_list("number", flat=True)) == [1, 2]


def test_a_refused_hand_leaves_the_token_for_the_corrected_form(client, table):
    world, _session, url = table
    bad = hand_form(world, token=TOKEN)
    bad["winner_cards"] = " ".join(CLOSING[:9] + ["1D"])
    assert client.post(url, bad).status_code == 400
    assert client.post(url, bad).status_code == 400  # shown again, not answered as sent
    assert client.post(url, hand_form(world, token=TOKEN)).status_code == 302
    assert Hand.objects.count() == 1


def test_a_preview_does_not_use_the_token(client, table):
    world, _session, url = table
    data = hand_form(world, token=TOKEN)
    assert client.post(url, {**data, "action": "preview"}).status_code == 200
    assert client.post(url, data).status_code == 302
    assert Hand.objects.count() == 1


def test_one_persons_token_answers_nothing_for_another(client, table):
    world, _session, url = table
    client.post(url, hand_form(world, token=TOKEN))
    other = Client(HTTP_ACCEPT_LANGUAGE="en")
    other.force_login(world["admin"])
    other.post(url, hand_form(world, token=TOKEN, dealer="Anna", opponent="Bruno"))
    assert Hand.objects.count() == 2  # two people, two hands: a token is its sender's


# --- Spazz'u'mazz ----------------------------------------------------------------------------


@pytest.fixture
def scorer(client, people):
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "en"
    client.force_login(people["scorer"])
    return client


def test_the_spazzumazz_entry_sent_twice_saves_one_game(scorer, people):
    club = people["club"]
    table = [club.players.get(user=people["member"]), people["guest"]]
    url = f"/clubs/{club.slug}/spazzumazz/new/"
    players = ",".join(str(p.pk) for p in table)
    token = token_of(scorer.get(f"{url}?players={players}"))
    first, second = twice(scorer, url, {"once": token, "players": players, "order": players})
    assert SpazzumazzGame.objects.count() == 1
    game = SpazzumazzGame.objects.get()
    assert first["Location"] == second["Location"] == f"/clubs/{club.slug}/spazzumazz/{game.pk}/"


# --- A result's report (the result cycle's step page) ----------------------------------------


def test_a_report_sent_twice_is_reported_once_without_an_error(client, people):
    club, admin = people["club"], people["admin"]
    tournament = drawn(club, admin, make_members(club, 4), best_of=3)
    m = match_at(tournament, 1, 0)
    url = f"/clubs/{club.slug}/tournaments/{tournament.pk}/matches/{m.pk}/"
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "en"
    client.force_login(m.player_a.user)
    token = token_of(client.get(url))
    report = {"once": token, "winner_1": m.player_a_id, "cards_1": 4}
    report.update({"winner_2": m.player_a_id, "cards_2": 2})
    first, second = twice(client, url + "report/", report)
    assert first["Location"] == second["Location"] == url
    assert Outcome.objects.filter(object_id=m.pk).count() == 1
    # Not "this match already has a report": the second tap is the first one's answer.
    assert said(second)[-1] == "This form was already sent: nothing more recorded."


def test_a_tournament_created_with_a_double_tap_is_one_tournament(client, people):
    club = people["club"]
    client.force_login(people["admin"])
    token = token_of_form(client.get(f"/clubs/{club.slug}/tournaments/"), "tournaments/new/")
    body = {"once": token, "name": "Torneo del venerdì", "starts_at": "2030-05-02T21:00"}
    body.update({"variant": "classic", "best_of": 1, "seeding": "random"})
    first, second = twice(client, f"/clubs/{club.slug}/tournaments/new/", body)
    assert first.status_code == second.status_code == 302
    assert first["Location"] == second["Location"]
    assert club.tournaments.count() == 1


# --- Payments --------------------------------------------------------------------------------


@pytest.fixture
def owing(people):
    p = players_of(people)
    ledger.post_transaction(
        club=people["club"], unit="EUR", key="h1", entries={p["ada"]: "7.50", p["mia"]: "-7.50"}
    )
    return p


def test_the_paid_button_tapped_twice_records_one_payment(client, people, owing):
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "en"
    client.force_login(people["member"])
    page = client.get(f"/clubs/{people['club'].slug}/ledger/?unit=EUR")
    body = {"once": token_of(page), "payer": owing["mia"].pk, "payee": owing["ada"].pk}
    body.update({"amount": "7.50", "unit": "EUR"})
    first, second = twice(client, f"/clubs/{people['club'].slug}/ledger/payments/", body)
    assert first["Location"] == second["Location"]
    assert Payment.objects.count() == 1


def test_a_payment_confirmed_twice_is_confirmed_once_without_an_error(client, people, owing):
    payment = ledger.record_payment(
        club=people["club"],
        payer=owing["mia"],
        payee=owing["ada"],
        amount="7.50",
        unit="EUR",
        by=people["member"],
    )
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "en"
    client.force_login(people["admin"])
    url = f"/clubs/{people['club'].slug}/ledger/payments/{payment.pk}/confirm/"
    _first, second = twice(client, url, {"once": TOKEN})
    assert "This form was already sent: nothing more recorded." in said(second)
    assert not any("already confirmed" in m for m in said(second))


# --- Invitations and joining -----------------------------------------------------------------


def test_an_invitation_created_twice_is_one_invitation(client, people):
    client.force_login(people["admin"])
    url = f"/clubs/{people['club'].slug}/members/"
    token = token_of_form(client.get(url), "invitations/")
    body = {"once": token, "role": "member", "max_uses": 3}
    first, second = twice(client, f"/clubs/{people['club'].slug}/invitations/", body)
    assert first["Location"] == second["Location"]
    assert Invitation.objects.count() == 1


def token_of_form(page, action_ends: str) -> str:
    """The token of the form whose action ends with ``action_ends``."""
    html = page.content.decode()
    form = re.search(rf'action="[^"]*{re.escape(action_ends)}"[^>]*>(.*?)</form>', html, re.S)
    assert form, f"no form posting to …{action_ends}"
    found = re.search(r'name="once" value="([^"]+)"', form.group(1))
    assert found, "the form carries no one-time token"
    return found.group(1)


def test_joining_with_a_double_tap_joins_once_and_goes_to_the_club(client, people):
    invitation = clubs.create_invitation(club=people["club"], by=people["admin"])
    client.force_login(people["outsider"])
    token = token_of(client.get(invitation.get_absolute_url()))
    first, second = twice(client, invitation.get_absolute_url(), {"once": token})
    assert first.status_code == second.status_code == 302
    assert first["Location"] == second["Location"] == people["club"].get_absolute_url()
    invitation.refresh_from_db()
    assert invitation.uses == 1


def test_signing_up_through_an_invitation_with_a_double_tap_makes_one_account(people):
    invitation = clubs.create_invitation(club=people["club"], by=people["admin"])
    url = invitation.get_absolute_url()
    phone = Client(HTTP_ACCEPT_LANGUAGE="en")
    body = {
        "once": token_of(phone.get(url)),
        "username": "nuovo",
        "email": "nuovo@example.org",
        "first_name": "Nino",
        "last_name": "Nuovo",
        "password1": PASSWORD,
        "password2": PASSWORD,
    }
    first = phone.post(url, body)
    # The second tap left before the first one's answer came: still logged out.
    second = Client(HTTP_ACCEPT_LANGUAGE="en").post(url, body)
    assert first.status_code == second.status_code == 302
    assert first["Location"] == second["Location"] == "/accounts/confirm/"
    assert Membership.objects.filter(club=people["club"], user__username="nuovo").count() == 1
    # A hash of the fields is kept, never of the password.
    fields = {k: [v] for k, v in body.items() if k != "once" and "password" not in k}
    assert Submission.objects.get().key.endswith(":" + fingerprint(fields))


# --- Housekeeping ----------------------------------------------------------------------------


def test_the_housekeeping_drops_tokens_older_than_a_week(client, people, owing, settings):
    settings.ONCE_KEEP_DAYS = 7
    client.force_login(people["admin"])
    url = f"/clubs/{people['club'].slug}/invitations/"
    client.post(url, {"once": TOKEN, "role": "member", "max_uses": 3})
    client.post(url, {"once": TOKEN + "x", "role": "member", "max_uses": 3})
    Submission.objects.filter(key__startswith=TOKEN + ":").update(
        created_at=timezone.now() - timedelta(days=8)
    )
    assert housekeeping.delay().get()["writes_sent_once"] == 1
    assert housekeeping.delay().get()["writes_sent_once"] == 0
    assert [row.key.split(":")[0] for row in Submission.objects.all()] == [TOKEN + "x"]


def plan_of(page) -> str:
    html = page.content.decode()
    return html.split("Fewest payments", 1)[1].split("Payments to confirm", 1)[0]


def test_a_paid_tapped_in_the_plan_becomes_pending_there(client, people, owing):
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "en"
    client.force_login(people["member"])
    url = f"/clubs/{people['club'].slug}/ledger/?unit=EUR"
    before = plan_of(client.get(url))
    assert ">Paid</button>" in before and "Pending" not in before
    body = {"once": TOKEN, "payer": owing["mia"].pk, "payee": owing["ada"].pk}
    client.post(
        f"/clubs/{people['club'].slug}/ledger/payments/", {**body, "amount": "7.50", "unit": "EUR"}
    )
    after = plan_of(client.get(url))
    assert ">Paid</button>" not in after
    assert "Pending" in after and "7.50 recorded as paid, waiting for ada to confirm" in after


def test_a_pending_payment_the_plan_does_not_pair_shows_in_the_plan(client, people, owing):
    ledger.record_payment(
        club=people["club"],
        payer=owing["mia"],
        payee=owing["sam"],
        amount="2.00",
        unit="EUR",
        by=people["member"],
    )
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "en"
    client.force_login(people["member"])
    plan = plan_of(client.get(f"/clubs/{people['club'].slug}/ledger/?unit=EUR"))
    assert ">Paid</button>" in plan  # Mia still pays Ada
    pending = plan.split('<li class="pending">', 1)[1]
    assert "paid <strong>" in pending and "2.00" in pending and "Pending" in pending
