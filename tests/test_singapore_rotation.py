"""The winner-stays rotation at a table: RULES.md's example, joins, leaves, sitting out, the
draw by lot, and hands out of turn."""

import pytest
from django.core.exceptions import PermissionDenied, ValidationError

from clubs import services as clubs
from clubs.access import access_club
from clubs.models import Role
from matches.models import AuditEntry, Hand
from matches.results import steps
from matches.singapore import services, turns
from plumbing.errors import Conflict
from tests.singapore_helpers import make_table, next_names, nights_ago, open_table, payload, play

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(make_user):
    return make_table(make_user, ("A", "B", "C", "D", "E"))


def test_rules_md_example_a_b_c_d(world):
    session = open_table(world, "ABCD", first="AB")
    assert next_names(world, session) == ("A", "B")
    play(world, session, "A", "B", winner="A")
    assert next_names(world, session) == ("A", "C")
    play(world, session, "A", "C", winner="C")
    assert next_names(world, session) == ("C", "B")  # right of the loser A
    play(world, session, "C", "B", winner="B")
    assert next_names(world, session) == ("B", "D")
    play(world, session, "B", "D", winner="B")
    assert next_names(world, session) == ("B", "A")


def test_two_players_simply_play_on(world):
    session = open_table(world, "AB", first="AB")
    play(world, session, "A", "B", winner="B")
    assert next_names(world, session) == ("B", "A")
    play(world, session, "B", "A", winner="B")
    assert next_names(world, session) == ("B", "A")


def test_a_newcomer_sits_at_the_end_of_the_rotation(world):
    session = open_table(world, "ABC", first="AB")
    play(world, session, "A", "B", winner="A")
    services.join_table(session=session, player=world["players"]["E"], by=world["scorer"])
    assert next_names(world, session) == ("A", "C")
    play(world, session, "A", "C", winner="A")
    assert next_names(world, session) == ("A", "E")  # right of C is now E


def test_someone_sitting_out_is_skipped_and_comes_back(world):
    session = open_table(world, "ABCD", first="AB")
    services.sit_out(session=session, player=world["players"]["C"], by=world["scorer"])
    play(world, session, "A", "B", winner="A")
    assert next_names(world, session) == ("A", "D")
    services.return_to_play(session=session, player=world["players"]["C"], by=world["scorer"])
    assert next_names(world, session) == ("A", "C")


def test_a_loser_who_leaves_still_marks_where_the_challenger_is_counted_from(world):
    session = open_table(world, "ABCD", first="AB")
    play(world, session, "A", "B", winner="A")
    play(world, session, "A", "C", winner="A")
    services.leave_table(session=session, player=world["players"]["C"], by=world["scorer"])
    assert next_names(world, session) == ("A", "D")


def test_when_the_winner_leaves_the_loser_deals_against_the_seat_right_of_the_winner(world):
    session = open_table(world, "ABCD", first="AB")
    play(world, session, "A", "B", winner="A")
    services.leave_table(session=session, player=world["players"]["A"], by=world["scorer"])
    assert next_names(world, session) == ("B", "C")


def test_someone_who_left_comes_back_at_the_end(world):
    session = open_table(world, "ABCD", first="AB")
    p = world["players"]
    services.leave_table(session=session, player=p["B"], by=world["scorer"])
    services.join_table(session=session, player=p["B"], by=world["scorer"])
    seats = [s.player.display_name for s in turns.table_state(session).seats]
    assert seats == ["A", "C", "D", "B"]


def test_a_drawn_first_pair_is_reproducible_from_its_seed(world):
    session = open_table(world, "ABCD", seed=20260412)
    assert session.draw["seed"] == 20260412
    drawn = services.draw_first_pair(session.draw["seats"], session.draw["seed"])
    assert drawn == (session.first_dealer_id, session.first_opponent_id)
    again = open_table(world, "ABCD", seed=20260412, date=nights_ago(1))
    assert (again.first_dealer_id, again.first_opponent_id) == drawn
    assert {drawn[0], drawn[1]} <= {p.pk for p in world["players"].values()}


def test_a_hand_out_of_turn_is_a_conflict_naming_who_is_next(world):
    session = open_table(world, "ABCD", first="AB")
    with pytest.raises(Conflict) as refused:
        play(world, session, "C", "D")
    assert "A (dealing) against B" in str(refused.value)
    assert not Hand.objects.exists()


def test_the_right_pair_with_the_challenger_dealing_is_out_of_turn(world):
    session = open_table(world, "ABCD", first="AB")
    with pytest.raises(services.OutOfTurn) as refused:
        play(world, session, "B", "A", winner="B")
    assert "the winner stays and deals" in str(refused.value)
    assert "A (dealing) against B" in str(refused.value)
    assert refused.value.dealer == world["players"]["A"].pk
    assert not Hand.objects.exists()


def test_after_a_hand_the_winner_deals_the_next_one(world):
    session = open_table(world, "ABCD", first="AB")
    play(world, session, "A", "B", winner="B")
    assert next_names(world, session) == ("B", "C")
    with pytest.raises(services.OutOfTurn) as refused:
        play(world, session, "C", "B")
    assert "B (dealing) against C" in str(refused.value)
    play(world, session, "B", "C")
    assert Hand.objects.filter(out_of_turn=False).count() == 2


def test_an_admin_may_allow_a_hand_out_of_turn_and_it_is_logged(world):
    session = open_table(world, "ABCD", first="AB")
    recorded = play(
        world, session, "C", "D", by=world["admin"], override="A e B sono usciti a fumare"
    )
    hand = recorded.hand
    assert hand.out_of_turn
    entry = AuditEntry.objects.get(action="out_of_turn", object_id=hand.pk)
    assert entry.by == world["admin"]
    assert entry.note == "A e B sono usciti a fumare"
    assert entry.data == {
        "expected": [world["players"]["A"].pk, world["players"]["B"].pk],
        "played": [world["players"]["C"].pk, world["players"]["D"].pk],
    }
    assert next_names(world, session) == ("C", "A")  # the rotation goes on from that hand


def test_an_admin_may_let_the_challenger_deal_with_a_reason(world):
    session = open_table(world, "ABCD", first="AB")
    hand = play(world, session, "B", "A", by=world["admin"], override="A ha il polso rotto").hand
    assert hand.out_of_turn
    assert AuditEntry.objects.get(action="out_of_turn", object_id=hand.pk).note == (
        "A ha il polso rotto"
    )


def test_an_override_on_a_hand_in_turn_marks_nothing(world):
    session = open_table(world, "ABCD", first="AB")
    hand = play(world, session, "A", "B", by=world["admin"], override="per sicurezza").hand
    assert not hand.out_of_turn
    assert not AuditEntry.objects.filter(action="out_of_turn").exists()


def test_an_access_checked_in_another_club_is_not_taken_for_this_tables(world):
    carla = world["users"]["C"]
    elsewhere = clubs.create_club(name="Circolo di Carla", founder=carla)
    admin_there = access_club(carla, elsewhere)
    assert admin_there.role == Role.ADMIN
    session = open_table(world, "ABCD", first="CA")
    p = world["players"]
    with pytest.raises(PermissionDenied):  # a member here: no hand out of turn
        services.record_hand(
            session=session,
            by=carla,
            dealer=p["C"],
            opponent=p["D"],
            payload=payload(world, covers={"D": 1}),
            override="sono admin altrove",
            access=admin_there,
        )
    assert not Hand.objects.exists()
    here = access_club(carla, world["club"])
    recorded = services.record_hand(
        session=session,
        by=carla,
        dealer=p["C"],
        opponent=p["A"],
        payload=payload(world, covers={"A": 1}),
        access=here,
    )
    assert recorded.outcome.status == "reported"  # a player's hand waits for the other


@pytest.mark.parametrize("who", ["scorer", "player"])
def test_only_an_admin_may_allow_a_hand_out_of_turn(world, who):
    session = open_table(world, "ABCD", first="AB")
    by = world["scorer"] if who == "scorer" else world["users"]["C"]
    with pytest.raises(PermissionDenied):
        play(world, session, "C", "D", by=by, override="we agreed")
    assert not Hand.objects.exists()


def test_a_voided_hand_no_longer_moves_the_rotation(world):
    session = open_table(world, "ABCD", first="AB")
    play(world, session, "A", "B", winner="A")
    second = play(world, session, "A", "C", winner="C").hand
    assert next_names(world, session) == ("C", "B")
    steps.void_outcome(subject=second, by=world["scorer"], reason="Mazzo sbagliato")
    assert next_names(world, session) == ("A", "C")


def test_a_correction_of_the_winner_changes_who_is_next(world):
    session = open_table(world, "ABCD", first="AB")
    first = play(world, session, "A", "B", winner="A")
    body = dict(first.outcome.payload, winner="opponent")
    steps.correct_outcome(subject=first.hand, by=world["scorer"], payload=body, reason="Ha vinto B")
    assert next_names(world, session) == ("B", "C")


def test_a_list_of_tables_and_each_table_alone_agree_on_who_is_next(world):
    first = open_table(world, "ABCD", first="AB")
    second = open_table(world, "ABCE", first="CE", date=nights_ago(1))
    untouched = open_table(world, "ABC", first="BC", date=nights_ago(2))
    play(world, first, "A", "B", winner="B")
    play(world, first, "B", "C", winner="B")
    play(world, second, "C", "E", winner="E")
    voided = play(world, second, "E", "A", winner="A").hand
    steps.void_outcome(subject=voided, by=world["scorer"], reason="Carte viste")
    listed = turns.table_states([first, second, untouched])
    alone = {s.pk: turns.table_state(s).next for s in (first, second, untouched)}
    assert {pk: state.next for pk, state in listed.items()} == alone
    p = world["players"]
    assert alone == {
        first.pk: (p["B"].pk, p["D"].pk),
        second.pk: (p["E"].pk, p["A"].pk),
        untouched.pk: (p["B"].pk, p["C"].pk),
    }


def test_hands_need_two_people_playing_at_the_table(world):
    session = open_table(world, "ABC", first="AB")
    with pytest.raises(ValidationError) as refused:
        play(world, session, "A", "E")
    assert "opponent" in refused.value.message_dict
    services.sit_out(session=session, player=world["players"]["B"], by=world["scorer"])
    with pytest.raises(ValidationError):
        play(world, session, "A", "B")


def test_a_member_may_seat_themself_but_not_others(world):
    session = open_table(world, "ABC", first="AB")
    p, u = world["players"], world["users"]
    services.join_table(session=session, player=p["E"], by=u["E"])
    with pytest.raises(PermissionDenied):
        services.sit_out(session=session, player=p["A"], by=u["E"])
    services.sit_out(session=session, player=p["E"], by=u["E"])


def test_a_closed_table_takes_no_more_hands_or_seats(world):
    session = open_table(world, "ABC", first="AB")
    services.close_table(session=session, by=world["scorer"])
    with pytest.raises(Conflict):
        play(world, session, "A", "B")
    with pytest.raises(Conflict):
        services.join_table(session=session, player=world["players"]["E"], by=world["scorer"])


@pytest.mark.parametrize(
    "changes, field",
    [
        ({"name": " "}, "name"),
        ({"seats": ["A"]}, "seats"),
        ({"seats": ["A", "B", "A"]}, "seats"),
        ({"point_value": "-1"}, "point_value"),
        ({"point_value": "0.001"}, "point_value"),
        ({"point_value": "abc"}, "point_value"),
        ({"first": ("A", None)}, "first_opponent"),
        ({"first": ("A", "E")}, "first_opponent"),
        ({"first": ("A", "A")}, "first_opponent"),
    ],
)
def test_a_bad_table_is_refused_naming_the_field(world, changes, field):
    p = world["players"]
    args = {"name": "Tavolo", "seats": ["A", "B", "C"], "point_value": None, "first": None}
    args.update(changes)
    first = args.pop("first") or (None, None)
    with pytest.raises(ValidationError) as refused:
        services.open_session(
            club=world["club"],
            by=world["scorer"],
            name=args["name"],
            seats=[p[n] for n in args["seats"]],
            point_value=args["point_value"],
            first_dealer=p.get(first[0]) if first[0] else None,
            first_opponent=p.get(first[1]) if first[1] else None,
        )
    assert field in refused.value.message_dict


def test_only_scorers_and_admins_open_tables(world):
    with pytest.raises(PermissionDenied):
        open_table(world, "AB", by=world["users"]["A"])
