"""The result cycle shared by the three games (``matches/outcomes.py``), shown on
Spazz'u'mazz games: report, confirm, dispute, decide, withdraw, correct, void, the audit."""

import threading

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.http import Http404

from clubs import services
from matches.models import AuditEntry, GameRecord, Outcome, OutcomeStatus
from matches.results import steps
from matches.spazzumazz.services import record_spazzumazz_game
from plumbing.errors import Conflict
from rules.bots import spazzumazz as bot

pytestmark = pytest.mark.django_db


@pytest.fixture
def table(people, make_user):
    """Mia and Bea (members), Zio Pino (a guest): Mia and Bea play with Pino."""
    club = people["club"]
    bea = make_user("bea")
    services.add_member(club=club, user=bea)
    mia_p = club.players.get(user=people["member"])
    bea_p = club.players.get(user=bea)
    return {
        "club": club,
        "mia": people["member"],
        "bea": bea,
        "players": [mia_p, bea_p, people["guest"]],
        **people,
    }


def report(table, by, order=None):
    players = table["players"]
    order = order or [players[1].pk, players[2].pk, players[0].pk]
    return record_spazzumazz_game(club=table["club"], players=players, by=by, finish_order=order)


def trail(game):
    return [
        (e.action, e.from_status, e.to_status, e.by.username if e.by else None)
        for e in AuditEntry.objects.filter(object_id=game.pk).order_by("at", "pk")
    ]


def test_a_player_reports_and_another_confirms(table):
    game, outcome = report(table, table["mia"])
    assert outcome.status == OutcomeStatus.REPORTED
    assert not GameRecord.objects.in_force().filter(outcome__object_id=game.pk).exists()
    confirmed = steps.confirm_outcome(subject=game, by=table["bea"])
    assert confirmed.status == OutcomeStatus.CONFIRMED
    assert confirmed.confirmed_by == table["bea"]
    assert trail(game) == [
        ("report", "", "reported", "mia"),
        ("confirm", "reported", "confirmed", "bea"),
    ]
    record = GameRecord.objects.in_force().get(outcome=confirmed)
    assert record.result["idiot"] == "mia"
    assert {s.player.display_name: s.place for s in record.seats.all()} == {
        "bea": 1,
        "Zio Pino": 2,
        "mia": 3,
    }


def test_nobody_confirms_their_own_report(table):
    game, _ = report(table, table["mia"])
    with pytest.raises(PermissionDenied, match="own report"):
        steps.confirm_outcome(subject=game, by=table["mia"])
    assert game.open_outcome().status == OutcomeStatus.REPORTED


def test_a_scorers_entry_is_in_force_at_once(table):
    game, outcome = report(table, table["scorer"])
    assert outcome.status == OutcomeStatus.CONFIRMED
    assert trail(game) == [("report", "", "confirmed", "sam")]


@pytest.mark.parametrize("who", ["admin", "scorer"])
def test_a_scorer_or_an_admin_confirms_a_report(table, who):
    game, _ = report(table, table["mia"])
    assert steps.confirm_outcome(subject=game, by=table[who]).in_force


def test_a_member_who_does_not_play_may_neither_report_nor_confirm(table, make_user):
    club = table["club"]
    ugo = make_user("ugo")
    services.add_member(club=club, user=ugo)
    with pytest.raises(PermissionDenied):
        report(table, ugo)
    game, _ = report(table, table["mia"])
    with pytest.raises(PermissionDenied):
        steps.confirm_outcome(subject=game, by=ugo)


def test_an_outsider_gets_a_403_on_a_public_club_and_a_404_on_a_private_one(table):
    game, _ = report(table, table["mia"])
    with pytest.raises(PermissionDenied):
        steps.confirm_outcome(subject=game, by=table["outsider"])
    table["club"].is_public = False
    table["club"].save()
    game.refresh_from_db()
    with pytest.raises(Http404):
        steps.confirm_outcome(subject=game, by=table["outsider"])


def test_a_second_confirmation_and_a_report_on_a_settled_game_are_conflicts(table):
    game, _ = report(table, table["mia"])
    steps.confirm_outcome(subject=game, by=table["bea"])
    with pytest.raises(Conflict, match="no reported result"):
        steps.confirm_outcome(subject=game, by=table["scorer"])
    with pytest.raises(Conflict, match="already has a result"):
        steps.report_outcome(
            subject=game,
            payload={"finish_order": [p.pk for p in table["players"]]},
            by=table["bea"],
        )


def test_a_report_waiting_for_confirmation_blocks_a_second_report(table):
    game, _ = report(table, table["mia"])
    with pytest.raises(Conflict, match="waiting"):
        steps.report_outcome(
            subject=game,
            payload={"finish_order": [p.pk for p in table["players"]]},
            by=table["bea"],
        )


def test_a_dispute_needs_a_reason_and_a_scorer_decides_it(table):
    game, reported = report(table, table["mia"])
    with pytest.raises(ValidationError) as refused:
        steps.dispute_outcome(subject=game, by=table["bea"], reason="   ")
    assert list(refused.value.message_dict) == ["reason"]
    steps.dispute_outcome(subject=game, by=table["bea"], reason="Ho finito io prima di Pino")
    with pytest.raises(PermissionDenied):
        steps.decide_outcome(subject=game, by=table["bea"], uphold=True)
    players = table["players"]
    corrected = steps.decide_outcome(
        subject=game,
        by=table["scorer"],
        uphold=False,
        payload={"finish_order": [players[2].pk, players[1].pk, players[0].pk]},
        note="Visto da tutti",
    )
    reported.refresh_from_db()
    assert reported.status == OutcomeStatus.REJECTED
    assert corrected.in_force
    assert trail(game) == [
        ("report", "", "reported", "mia"),
        ("dispute", "reported", "disputed", "bea"),
        ("decide", "disputed", "rejected", "sam"),
        ("report", "", "confirmed", "sam"),
    ]


def test_an_upheld_dispute_puts_the_report_in_force(table):
    game, reported = report(table, table["mia"])
    steps.dispute_outcome(subject=game, by=table["bea"], reason="Non ricordo")
    upheld = steps.decide_outcome(subject=game, by=table["admin"], uphold=True)
    assert upheld.pk == reported.pk and upheld.in_force


def test_a_rejected_dispute_without_a_result_leaves_the_game_open_for_a_new_report(table):
    game, _ = report(table, table["mia"])
    steps.dispute_outcome(subject=game, by=table["bea"], reason="Sbagliato")
    assert steps.decide_outcome(subject=game, by=table["scorer"], uphold=False) is None
    again = steps.report_outcome(
        subject=game, payload={"finish_order": [p.pk for p in table["players"]]}, by=table["bea"]
    )
    assert again.status == OutcomeStatus.REPORTED


def test_the_reporter_may_withdraw_a_report_nobody_confirmed(table):
    game, _ = report(table, table["mia"])
    with pytest.raises(PermissionDenied):
        steps.withdraw_outcome(subject=game, by=table["bea"])
    assert steps.withdraw_outcome(subject=game, by=table["mia"]).status == "withdrawn"
    assert game.open_outcome() is None


def test_a_correction_keeps_the_old_result_and_only_the_new_record_counts(table):
    game, first = report(table, table["scorer"])
    players = table["players"]
    with pytest.raises(PermissionDenied):
        steps.correct_outcome(
            subject=game, by=table["mia"], reason="typo", payload={"finish_order": []}
        )
    new_order = [players[0].pk, players[2].pk, players[1].pk]
    corrected = steps.correct_outcome(
        subject=game,
        by=table["scorer"],
        reason="Ordine sbagliato",
        payload={"finish_order": new_order},
    )
    first.refresh_from_db()
    assert first.status == OutcomeStatus.SUPERSEDED
    assert corrected.supersedes == first and corrected.payload["finish_order"] == new_order
    counted = GameRecord.objects.in_force().filter(outcome__object_id=game.pk)
    assert [r.result["idiot"] for r in counted] == ["bea"]
    assert GameRecord.objects.filter(outcome__object_id=game.pk).count() == 2
    entry = AuditEntry.objects.get(action="correct")
    assert entry.data["before"]["finish_order"] == first.payload["finish_order"]
    assert entry.data["after"]["finish_order"] == new_order


def test_a_voided_result_no_longer_counts(table):
    game, first = report(table, table["scorer"])
    with pytest.raises(ValidationError):
        steps.void_outcome(subject=game, by=table["scorer"], reason="")
    steps.void_outcome(subject=game, by=table["scorer"], reason="Giocata per prova")
    assert game.outcome_in_force() is None
    assert not GameRecord.objects.in_force().filter(outcome__object_id=game.pk).exists()
    with pytest.raises(Conflict):
        steps.void_outcome(subject=game, by=table["scorer"], reason="ancora")


@pytest.mark.parametrize(
    "payload, field",
    [
        ({"finish_order": [1, 2]}, "finish_order"),
        ({"finish_order": "mia"}, "finish_order"),
        ({"finish_order": [True, False, True]}, "finish_order"),
        ({"record": {"players": ["x", "y"], "finish_order": ["y", "x"]}}, "record"),
        ({"record": [1]}, "record"),
    ],
)
def test_a_bad_result_is_refused_naming_the_field_and_nothing_is_written(table, payload, field):
    game, _ = report(table, table["mia"])
    steps.withdraw_outcome(subject=game, by=table["mia"])
    before = Outcome.objects.count()
    with pytest.raises(ValidationError) as refused:
        steps.report_outcome(subject=game, payload=payload, by=table["bea"])
    assert field in refused.value.message_dict
    assert Outcome.objects.count() == before


def test_a_full_turn_log_is_checked_by_the_rules_engine(table):
    names = [p.display_name for p in table["players"]]
    log = bot.play_game(7, names)
    game, outcome = record_spazzumazz_game(
        club=table["club"], players=table["players"], by=table["scorer"], record=log
    )
    by_name = {p.display_name: p.pk for p in table["players"]}
    record = GameRecord.objects.get(outcome=outcome)
    assert outcome.payload == {
        "finish_order": [by_name[n] for n in record.result["finish_order"]],
        "log": True,
    }
    broken = {**log, "turns": log["turns"][:-3]}
    with pytest.raises(ValidationError) as refused:
        record_spazzumazz_game(
            club=table["club"], players=table["players"], by=table["scorer"], record=broken
        )
    assert [e.code for e in refused.value.error_dict["record"]] == ["not_finished"]


def test_the_database_refuses_two_results_in_force_for_one_game(table):
    game, first = report(table, table["scorer"])
    second = Outcome(
        club=first.club,
        content_type=first.content_type,
        object_id=first.object_id,
        status=OutcomeStatus.CONFIRMED,
        payload=first.payload,
    )
    with pytest.raises(IntegrityError), transaction.atomic():
        second.save()


@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
def test_two_confirmations_at_once_apply_one_result(table):
    """Two phones confirm the same report at the same moment (PostgreSQL row locks)."""
    from django.db import connection, connections
    from django.utils import translation

    if connection.vendor != "postgresql":
        pytest.skip("row locks need PostgreSQL (the integration run)")
    game, _ = report(table, table["mia"])
    barrier = threading.Barrier(2)
    results: list[str] = []

    def confirm(user):
        try:
            barrier.wait()
            with translation.override("en"):
                steps.confirm_outcome(subject=game, by=user)
            results.append("confirmed")
        except Conflict as error:
            results.append(f"409: {error}")
        except Exception as error:  # noqa: BLE001 - anything else fails the test below
            results.append(f"{type(error).__name__}: {error}")
        finally:
            connections.close_all()

    threads = [threading.Thread(target=confirm, args=(u,)) for u in (table["bea"], table["admin"])]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert sorted(results) == [
        "409: There is no reported result waiting for confirmation.",
        "confirmed",
    ], results
    assert Outcome.objects.filter(object_id=game.pk, status=OutcomeStatus.CONFIRMED).count() == 1
