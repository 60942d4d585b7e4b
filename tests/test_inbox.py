"""What waits for you: the inbox's life for each kind, made after the
commit and never for the person who acted, gone for everyone once its action is done."""

from decimal import Decimal

import pytest
from rest_framework.test import APIClient

from ledger import services as ledger
from matches.spazzumazz.services import record_spazzumazz_game
from tests.singapore_helpers import make_table, open_table, payload
from tests.sputo_world import drawn, make_members, match_at

pytestmark = pytest.mark.django_db


def client_of(user):
    client = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    client.force_authenticate(user)
    return client


def kinds(user) -> list[tuple[str, str]]:
    response = client_of(user).get("/api/v1/notifications/")
    assert response.status_code == 200
    return [(row["kind"], row["url"]) for row in response.json()]


def test_a_sputo_report_waits_for_the_opponent_and_leaves_when_confirmed(people, committed):
    club = people["club"]
    players = make_members(club, 4)
    tournament = committed(lambda: drawn(club, people["admin"], players, best_of=1))
    m = match_at(tournament, 1, 0)
    a, b = m.player_a.user, m.player_b.user
    url = m.get_absolute_url()
    assert kinds(a) == [("match_ready", url)] and kinds(b) == [("match_ready", url)]

    reported = committed(
        lambda: client_of(a).post(
            f"/api/v1/tournament-matches/{m.pk}/report/",
            {"games": [{"winner": m.player_b_id, "cards_left": 6}]},
            format="json",
        )
    )
    assert reported.status_code == 201
    assert kinds(a) == []  # never for the person who acted
    inbox = client_of(b).get("/api/v1/notifications/").json()
    assert [(n["kind"], n["url"], n["read"]) for n in inbox] == [("confirm_result", url, False)]
    assert "p01" in inbox[0]["text"] or players[0].display_name in inbox[0]["text"]

    confirmed = committed(lambda: client_of(b).post(f"/api/v1/tournament-matches/{m.pk}/confirm/"))
    assert confirmed.status_code == 200
    assert ("confirm_result", url) not in kinds(b)
    # The winner's next match is known once the other semi-final is decided: not yet.
    assert kinds(a) == []


def test_a_result_moves_the_ready_match_along_its_path_and_a_correction_moves_it_back(
    people, committed
):
    from matches.results import steps
    from matches.results.inbox import after_step
    from tests.sputo_world import win

    club, admin = people["club"], people["admin"]
    players = make_members(club, 8)
    tournament = committed(lambda: drawn(club, admin, players, best_of=1, third_place=True))
    first, second = match_at(tournament, 1, 0), match_at(tournament, 1, 1)  # 1 v 8, 4 v 5
    committed(lambda: steps.report_outcome(subject=first, payload=win(first, players[0]), by=admin))
    committed(
        lambda: steps.report_outcome(subject=second, payload=win(second, players[3]), by=admin)
    )
    semi = match_at(tournament, 2, 0).get_absolute_url()
    assert kinds(players[0].user) == [("match_ready", semi)]
    assert kinds(players[3].user) == [("match_ready", semi)]
    assert kinds(players[7].user) == []  # knocked out

    committed(
        lambda: steps.correct_outcome(
            subject=first, payload=win(first, players[7]), by=admin, reason="Errore al tavolo"
        )
    )
    assert kinds(players[0].user) == []  # no longer in the semi-final
    assert kinds(players[7].user) == [("match_ready", semi)]
    assert kinds(players[3].user) == [("match_ready", semi)]
    # Where the bracket's other matches still wait, they were left alone: the step brought
    # up to date the match, the ones its result reaches and the third-place match, no more.
    third = match_at(tournament, 3, 0, kind="third_place")
    assert ("match_ready", match_at(tournament, 1, 2).get_absolute_url()) in kinds(players[1].user)
    path = [first.pk, match_at(tournament, 2, 0).pk, match_at(tournament, 3, 0).pk, third.pk]
    assert after_step(club.pk, "matches.tournamentmatch", first.pk) == f"{len(path)} synced"


def test_a_dispute_waits_for_the_scorers_and_admins_but_not_the_one_who_disputed(people, committed):
    club = people["club"]
    players = make_members(club, 2)
    tournament = committed(lambda: drawn(club, people["admin"], players, best_of=1))
    m = match_at(tournament, 1, 0)
    a, b = m.player_a.user, m.player_b.user
    committed(
        lambda: client_of(a).post(
            f"/api/v1/tournament-matches/{m.pk}/report/",
            {"games": [{"winner": m.player_a_id, "cards_left": 2}]},
            format="json",
        )
    )
    disputed = committed(
        lambda: client_of(b).post(
            f"/api/v1/tournament-matches/{m.pk}/dispute/", {"reason": "Ho vinto io"}, format="json"
        )
    )
    assert disputed.status_code == 200, disputed.content
    assert kinds(b) == [] and kinds(a) == []
    for decider in (people["scorer"], people["admin"]):
        assert [k for k, _url in kinds(decider)] == ["decide_dispute"]
    assert kinds(people["member"]) == []
    decided = committed(
        lambda: client_of(people["scorer"]).post(
            f"/api/v1/tournament-matches/{m.pk}/decide/", {"uphold": True}, format="json"
        )
    )
    assert decided.status_code == 200, decided.content
    assert kinds(people["admin"]) == [] and kinds(people["scorer"]) == []


def test_a_singapore_hand_reported_by_a_player_waits_for_the_other(make_user, committed):
    world = make_table(make_user, names=("Anna", "Bruno", "Carla"))
    session = committed(
        lambda: open_table(world, ["Anna", "Bruno", "Carla"], first=("Anna", "Bruno"))
    )
    body = {
        "dealer": world["players"]["Anna"].pk,
        "opponent": world["players"]["Bruno"].pk,
        **payload(world, covers={"Bruno": 1}),
    }
    anna = world["users"]["Anna"]
    recorded = committed(
        lambda: client_of(anna).post(
            f"/api/v1/table-sessions/{session.pk}/hands/", body, format="json"
        )
    )
    assert recorded.status_code == 201, recorded.content
    assert [k for k, _url in kinds(world["users"]["Bruno"])] == ["confirm_result"]
    assert kinds(anna) == [] and kinds(world["users"]["Carla"]) == []


def test_a_spazzumazz_game_entered_by_a_player_waits_for_the_others_with_a_login(people, committed):
    club = people["club"]
    mia = club.players.get(user=people["member"])
    sam = club.players.get(user=people["scorer"])
    guest = people["guest"]
    order = [mia, sam, guest]
    game, _outcome = committed(
        lambda: record_spazzumazz_game(
            club=club, players=order, by=people["member"], finish_order=[p.pk for p in order]
        )
    )
    assert [k for k, _url in kinds(people["scorer"])] == ["confirm_result"]
    assert kinds(people["member"]) == []
    confirmed = committed(
        lambda: client_of(people["scorer"]).post(f"/api/v1/spazzumazz-games/{game.pk}/confirm/")
    )
    assert confirmed.status_code == 200, confirmed.content
    assert kinds(people["scorer"]) == []


def test_a_payment_waits_for_the_payee_and_leaves_when_confirmed(people, committed):
    club = people["club"]
    mia = club.players.get(user=people["member"])
    sam = club.players.get(user=people["scorer"])
    payment = committed(
        lambda: ledger.record_payment(
            club=club, payer=mia, payee=sam, amount=Decimal("5"), unit="EUR", by=people["member"]
        )
    )
    assert [k for k, _url in kinds(people["scorer"])] == ["confirm_payment"]
    assert kinds(people["member"]) == []
    notes = client_of(people["scorer"]).get("/api/v1/notifications/", HTTP_ACCEPT_LANGUAGE="en")
    assert "paid you 5.00 EUR" in notes.json()[0]["text"]
    committed(lambda: ledger.confirm_payment(payment=payment, by=people["scorer"]))
    assert kinds(people["scorer"]) == []


def test_read_marks_one_and_the_bell_counts_what_is_unread(people, committed, client):
    club = people["club"]
    mia = club.players.get(user=people["member"])
    sam = club.players.get(user=people["scorer"])
    committed(
        lambda: ledger.record_payment(
            club=club, payer=mia, payee=sam, amount=Decimal("2"), unit="EUR", by=people["member"]
        )
    )
    scorer = client_of(people["scorer"])
    item = scorer.get("/api/v1/notifications/").json()[0]
    client.force_login(people["scorer"])
    page = client.get("/clubs/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert '<span class="bell-count">1</span>' in page
    club_page = client.get(club.get_absolute_url(), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Waiting for you" in club_page and "paid you 2.00 EUR" in club_page
    other = client_of(people["member"]).post(f"/api/v1/notifications/{item['id']}/read/")
    assert other.status_code == 404
    read = scorer.post(f"/api/v1/notifications/{item['id']}/read/")
    assert read.status_code == 200 and read.json()["read"] is True
    assert "bell-count" not in client.get("/clubs/").content.decode()
    assert scorer.get("/api/v1/notifications/").json()[0]["read"] is True
    assert client_of(people["member"]).get("/api/v1/notifications/").json() == []
    assert APIClient().get("/api/v1/notifications/").status_code == 401


def test_check_in_waits_for_each_entrant_not_checked_in(people, committed):
    from matches.sputo import services as sputo
    from tests.sputo_world import new_tournament

    club, admin = people["club"], people["admin"]
    players = make_members(club, 3)
    tournament = committed(lambda: new_tournament(club, admin))
    committed(
        lambda: sputo.update_tournament(tournament=tournament, by=admin, status="registration")
    )
    for player in players:
        committed(lambda p=player: sputo.add_entrant(tournament=tournament, player=p, by=admin))
    committed(lambda: sputo.update_tournament(tournament=tournament, by=admin, status="check_in"))
    first, second = players[0].user, players[1].user
    assert [k for k, _url in kinds(first)] == ["check_in"]
    committed(lambda: sputo.check_in(tournament=tournament, player=players[0], by=first))
    assert kinds(first) == [] and [k for k, _url in kinds(second)] == ["check_in"]


def test_an_invitation_mailed_to_someone_with_an_account_waits_in_their_inbox(
    people, committed, make_user
):
    from clubs import services as clubs

    club = people["club"]
    guest_user = make_user("gina")
    guest_user.email = "gina@example.org"
    guest_user.save()
    invitation = committed(
        lambda: clubs.create_invitation(club=club, by=people["admin"], email="GINA@example.org")
    )
    assert kinds(guest_user) == [("invitation", invitation.get_absolute_url())]
    assert kinds(people["admin"]) == []
    committed(lambda: clubs.accept_invitation(token=invitation.token, user=guest_user))
    assert kinds(guest_user) == []


def test_a_payments_amount_reads_in_the_readers_language(people, committed):
    club = people["club"]
    mia = club.players.get(user=people["member"])
    sam = club.players.get(user=people["scorer"])
    committed(
        lambda: ledger.record_payment(
            club=club,
            payer=mia,
            payee=sam,
            amount=Decimal("1234.5"),
            unit="EUR",
            by=people["member"],
        )
    )
    italian = APIClient(HTTP_ACCEPT_LANGUAGE="it")
    italian.force_authenticate(people["scorer"])
    assert "ti ha pagato 1234,50 EUR" in italian.get("/api/v1/notifications/").json()[0]["text"]
    assert (
        "paid you 1234.50 EUR"
        in client_of(people["scorer"]).get("/api/v1/notifications/").json()[0]["text"]
    )
