"""Hands at a Singapore table through the shared result cycle, checked by the rules engine."""

import pytest
from django.core.exceptions import PermissionDenied, ValidationError

from matches.models import GameRecord, GameSeat, Hand, Outcome, OutcomeStatus
from matches.results import steps
from matches.singapore import services, turns
from matches.singapore.payload import HandRefused
from tests.singapore_helpers import (
    CLOSING,
    HEAVY,
    NOT_CLOSING,
    QUINTUPLE,
    SEVENTY,
    make_table,
    open_table,
    payload,
    play,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(make_user):
    return make_table(make_user, ("Anna", "Bruno", "Carla", "Dario", "Elena"))


def balances_by_name(world, recorded):
    names = {p.pk: n for n, p in world["players"].items()}
    record = GameRecord.objects.get(outcome=recorded.outcome)
    seats = {s.name_in_record: s.player_id for s in record.seats.all()}
    return {names[seats[n]]: v for n, v in record.result["balances"].items()}


def test_the_texts_worked_example_pays_350_to_the_dealer(world):
    session = open_table(world, ["Anna", "Bruno", "Carla", "Dario"], first=("Anna", "Bruno"))
    recorded = play(
        world,
        session,
        "Anna",
        "Bruno",
        winner="Anna",
        quotas=5,
        covers={"Bruno": 2, "Carla": 1, "Dario": 2},
    )
    assert recorded.outcome.status == OutcomeStatus.CONFIRMED
    record = GameRecord.objects.get(outcome=recorded.outcome)
    assert record.result["points"] == 70 and record.result["multiplier"] == 1
    assert balances_by_name(world, recorded) == {
        "Anna": 350,
        "Bruno": -140,
        "Carla": -70,
        "Dario": -140,
    }


def test_everyone_in_a_hand_is_a_seat_of_its_game_record(world):
    session = open_table(
        world, ["Anna", "Bruno", "Carla", "Dario", "Elena"], first=("Anna", "Bruno")
    )
    recorded = play(
        world,
        session,
        "Anna",
        "Bruno",
        quotas=3,
        covers={"Carla": 2},
        side_bets=[("Dario", "Elena", 1)],
    )
    seated = set(
        GameSeat.objects.filter(game_record__outcome=recorded.outcome).values_list(
            "player__display_name", flat=True
        )
    )
    assert seated == {"Anna", "Bruno", "Carla", "Dario", "Elena"}


def test_a_player_reports_and_the_other_confirms(world):
    session = open_table(world, ["Anna", "Bruno", "Carla"], first=("Anna", "Bruno"))
    u = world["users"]
    recorded = play(world, session, "Anna", "Bruno", by=u["Anna"])
    assert recorded.outcome.status == OutcomeStatus.REPORTED
    with pytest.raises(PermissionDenied):
        steps.confirm_outcome(subject=recorded.hand, by=u["Carla"])  # a bystander
    with pytest.raises(PermissionDenied):
        steps.confirm_outcome(subject=recorded.hand, by=u["Anna"])  # her own report
    confirmed = steps.confirm_outcome(subject=recorded.hand, by=u["Bruno"])
    assert confirmed.status == OutcomeStatus.CONFIRMED


def test_a_bystander_may_not_record_a_hand(world):
    session = open_table(world, ["Anna", "Bruno", "Carla"], first=("Anna", "Bruno"))
    with pytest.raises(PermissionDenied):
        play(world, session, "Anna", "Bruno", by=world["users"]["Carla"])


def test_a_waiting_report_already_moves_the_rotation(world):
    session = open_table(world, ["Anna", "Bruno", "Carla"], first=("Anna", "Bruno"))
    play(world, session, "Anna", "Bruno", by=world["users"]["Anna"])
    state = turns.table_state(session)
    p = world["players"]
    assert state.next == (p["Anna"].pk, p["Carla"].pk)


@pytest.mark.parametrize(
    "changes, code, at",
    [
        ({"winner_cards": CLOSING[:9] + ["1D"]}, "unknown_card", "winner_cards[9]"),
        ({"loser_cards": SEVENTY[:9]}, "hand_size", "loser_cards"),
        ({"winner_cards": NOT_CLOSING}, "not_closed", None),
        ({"quotas": 1, "covers": {"Bruno": 1, "Carla": 1}}, "bad_stake", "covers"),
        ({"loser_cards": ["AS"] + SEVENTY[1:], "winner_cards": CLOSING}, None, None),
    ],
)
def test_the_engine_refuses_a_hand_with_its_code_and_where(world, changes, code, at):
    session = open_table(world, ["Anna", "Bruno", "Carla"], first=("Anna", "Bruno"))
    covers = changes.pop("covers", {"Bruno": 1})
    if code is None:  # two aces of spades in all: the pack has two, fine
        play(world, session, "Anna", "Bruno", covers=covers, **changes)
        return
    with pytest.raises(HandRefused) as refused:
        play(world, session, "Anna", "Bruno", covers=covers, **changes)
    first = refused.value.rules_errors[0]
    assert first["code"] == code
    assert first["at"] == at
    assert first["message"]
    assert not Hand.objects.exists() and not Outcome.objects.exists()


def test_three_copies_of_a_card_are_refused_at_that_card(world):
    session = open_table(world, ["Anna", "Bruno"], first=("Anna", "Bruno"))
    loser = ["QH", "QH"] + SEVENTY[2:]
    with pytest.raises(HandRefused) as refused:
        play(world, session, "Anna", "Bruno", loser_cards=loser)
    first = refused.value.rules_errors[0]
    assert (first["code"], first["at"]) == ("too_many_copies", "QH")
    assert "QH" in first["short"] and first["message"]
    # The error keeps its code and place through the field's ValidationError too.
    [item] = refused.value.error_dict["winner_cards"]
    assert (item.code, item.params["at"]) == ("too_many_copies", "QH")


def test_a_cover_by_someone_not_at_the_table_is_refused(world):
    session = open_table(world, ["Anna", "Bruno"], first=("Anna", "Bruno"))
    with pytest.raises(ValidationError) as refused:
        play(world, session, "Anna", "Bruno", covers={"Elena": 1})
    assert f"covers.{world['players']['Elena'].pk}" in refused.value.message_dict


def test_a_preview_checks_everything_and_writes_nothing(world):
    session = open_table(world, ["Anna", "Bruno", "Carla"], first=("Anna", "Bruno"))
    p = world["players"]
    previewed = services.record_hand(
        session=session,
        by=world["scorer"],
        dealer=p["Anna"],
        opponent=p["Bruno"],
        payload=payload(world, quotas=2, covers={"Bruno": 1, "Carla": 1}),
        preview=True,
    )
    assert previewed.hand is None and not Hand.objects.exists()
    assert previewed.preview["result"]["points"] == 70
    assert previewed.preview["transfers"] == [
        {"from": p["Bruno"].pk, "to": p["Anna"].pk, "points": 70, "amount": None},
        {"from": p["Carla"].pk, "to": p["Anna"].pk, "points": 70, "amount": None},
    ]


def test_a_money_table_gives_every_transfer_its_amount(world):
    session = open_table(world, ["Anna", "Bruno"], first=("Anna", "Bruno"), point_value="0.05")
    p = world["players"]
    previewed = services.record_hand(
        session=session,
        by=world["scorer"],
        dealer=p["Anna"],
        opponent=p["Bruno"],
        payload=payload(
            world,
            winner="opponent",
            quotas=2,
            covers={"Bruno": 2},
            winner_cards=QUINTUPLE,
            loser_cards=HEAVY,
        ),
        preview=True,
    )
    (transfer,) = previewed.preview["transfers"]
    assert transfer["points"] == 1000  # 2 quotas x (100, capped) x 5
    assert str(transfer["amount"]) == "50.00"
    assert transfer["from"] == p["Anna"].pk


def test_the_declared_melds_are_checked_and_the_best_arrangement_pays(world):
    session = open_table(world, ["Anna", "Bruno"], first=("Anna", "Bruno"))
    melds = [["AS", "2S", "3S"], ["QH", "QD", "QC"], ["7D", "8D", "9D", "10D"]]
    recorded = play(world, session, "Anna", "Bruno", melds=melds)
    record = GameRecord.objects.get(outcome=recorded.outcome)
    assert record.record["melds"] == melds
    bad = [["AS", "2S", "QH"], ["3S", "QD", "QC"], ["7D", "8D", "9D", "10D"]]
    with pytest.raises(HandRefused) as refused:
        play(world, session, "Anna", "Bruno", melds=bad)
    assert {e["code"] for e in refused.value.rules_errors} == {"bad_meld"}
    assert refused.value.rules_errors[0]["at"] == "melds[0]"


def test_a_correction_keeps_the_old_result_and_a_void_keeps_the_history(world):
    session = open_table(world, ["Anna", "Bruno"], first=("Anna", "Bruno"))
    first = play(world, session, "Anna", "Bruno", quotas=2, covers={"Bruno": 2})
    body = dict(
        first.outcome.payload, dealer_quotas=3, covers={str(world["players"]["Bruno"].pk): 3}
    )
    with pytest.raises(PermissionDenied):
        steps.correct_outcome(
            subject=first.hand, by=world["users"]["Anna"], payload=body, reason="x"
        )
    corrected = steps.correct_outcome(
        subject=first.hand, by=world["scorer"], payload=body, reason="3"
    )
    assert corrected.supersedes_id == first.outcome.pk
    steps.void_outcome(subject=first.hand, by=world["scorer"], reason="Giocata per prova")
    statuses = list(
        Outcome.objects.filter(object_id=first.hand.pk)
        .order_by("pk")
        .values_list("status", flat=True)
    )
    assert statuses == [OutcomeStatus.SUPERSEDED, OutcomeStatus.VOIDED]
    assert Hand.objects.count() == 1


def test_the_same_idempotency_key_records_one_hand(world):
    session = open_table(world, ["Anna", "Bruno"], first=("Anna", "Bruno"))
    p = world["players"]
    body = payload(world, covers={"Bruno": 1})
    results = [
        services.record_hand(
            session=session,
            by=world["scorer"],
            dealer=p["Anna"],
            opponent=p["Bruno"],
            payload=body,
            key="tablet-7:42",
        )
        for _ in range(3)
    ]
    assert [r.replayed for r in results] == [False, True, True]
    assert {r.hand.pk for r in results} == {results[0].hand.pk}
    assert Hand.objects.count() == 1
