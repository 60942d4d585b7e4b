"""Sputo knockout tournaments: the life cycle, the draw, a match's result through the shared
result cycle, walkovers and forfeits, standings, and corrections flowing through the
bracket with a preview of exactly what they change."""

import pytest
from django.core.cache import cache
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import connection
from django.test.utils import CaptureQueriesContext

from matches.models import AuditEntry, GameRecord, Outcome, TournamentMatch
from matches.results import steps
from matches.sputo import services
from matches.sputo.models import TournamentStatus
from plumbing.errors import Conflict
from rules.bots import sputo as bot
from tests.sputo_world import (
    correct_and_compare,
    drawn,
    make_guests,
    make_members,
    match_at,
    new_tournament,
    win,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def club(people):
    return people["club"]


@pytest.fixture
def eight(club):
    return make_members(club, 8)


def user_of(player):
    return player.user


# --- The life cycle and the draw -------------------------------------------------------------


def test_a_tournament_goes_from_draft_to_registration_to_check_in_and_the_draw_drops_no_shows(
    people, club
):
    admin = people["admin"]
    players = make_members(club, 5)
    tournament = new_tournament(club, admin)
    assert tournament.status == TournamentStatus.DRAFT
    services.update_tournament(tournament=tournament, by=admin, status="registration")
    for player in players:
        services.add_entrant(tournament=tournament, player=player, by=user_of(player))
    services.update_tournament(tournament=tournament, by=admin, status="check_in")
    for player in players[:3]:
        services.check_in(tournament=tournament, player=player, by=user_of(player))
    services.check_in(tournament=tournament, player=players[0], by=admin)  # twice is once
    late = make_guests(club, 1)[0]
    services.add_entrant(tournament=tournament, player=late, by=people["scorer"])
    services.draw_tournament(tournament=tournament, by=admin)
    tournament.refresh_from_db()
    assert tournament.status == TournamentStatus.RUNNING
    entrants = tournament.entrants.order_by("player__display_name")
    assert {e.player.display_name: e.no_show for e in entrants} == {
        "Ospite 0": False,
        "p01": False,
        "p02": False,
        "p03": False,
        "p04": True,
        "p05": True,
    }
    assert tournament.matches.count() == 3 + 1  # four drawn: a semi-final pair and a final
    assert tournament.rounds == 2


def test_only_an_admin_draws_and_entries_close_at_the_draw(people, club, eight):
    tournament = new_tournament(club, people["admin"])
    services.update_tournament(tournament=tournament, by=people["admin"], status="registration")
    with pytest.raises(PermissionDenied):
        services.add_entrant(tournament=tournament, player=eight[1], by=user_of(eight[0]))
    for player in eight[:2]:
        services.add_entrant(tournament=tournament, player=player, by=people["scorer"])
    with pytest.raises(PermissionDenied):
        services.draw_tournament(tournament=tournament, by=people["scorer"])
    services.draw_tournament(tournament=tournament, by=people["admin"])
    with pytest.raises(Conflict, match="closed"):
        services.add_entrant(tournament=tournament, player=eight[2], by=people["admin"])
    with pytest.raises(Conflict):
        services.update_tournament(tournament=tournament, by=people["admin"], name="Nuovo")


def test_a_draw_needs_two_players_and_bad_fields_are_named(people, club, eight):
    admin = people["admin"]
    with pytest.raises(ValidationError) as refused:
        new_tournament(club, admin, best_of=2)
    assert "best_of" in refused.value.message_dict
    with pytest.raises(ValidationError) as refused:
        new_tournament(club, admin, options={"jump": True})
    assert "options" in refused.value.message_dict
    tournament = new_tournament(club, admin)
    services.update_tournament(tournament=tournament, by=admin, status="registration")
    services.add_entrant(tournament=tournament, player=eight[0], by=admin)
    with pytest.raises(Conflict, match="two players"):
        services.draw_tournament(tournament=tournament, by=admin)


def _draw_queries(club, admin, n):
    players = make_guests(club, n, prefix=f"G{n}")
    tournament = new_tournament(club, admin, seeding="random", name=f"Q{n}")
    services.update_tournament(tournament=tournament, by=admin, status="registration")
    from matches.models import Entrant

    Entrant.objects.bulk_create(Entrant(tournament=tournament, player=p) for p in players)
    cache.clear()  # each draw as the first: what the club's webhooks listen to, read again
    with CaptureQueriesContext(connection) as queries:
        services.draw_tournament(tournament=tournament, by=admin)
    size = max(2, 1 << (n - 1).bit_length())
    assert tournament.matches.count() == size - 1 + (size >= 4)  # and the third-place match
    return len(queries)


def test_the_draw_takes_the_same_number_of_queries_whatever_the_size(people, club):
    sizes = [2, 64]
    if connection.vendor == "postgresql":
        sizes.append(1024)  # SQLite splits bulk writes into batches of 999 parameters
    counts = [_draw_queries(club, people["admin"], n) for n in sizes]
    assert len(set(counts)) == 1, dict(zip(sizes, counts, strict=True))


def test_a_random_draw_is_reproduced_from_its_recorded_seed(people, club):
    players = make_guests(club, 11)
    orders = []
    for name in ("A", "B"):
        tournament = new_tournament(club, people["admin"], seeding="random", name=name)
        tournament.seed = 424242
        tournament.save()
        services.update_tournament(tournament=tournament, by=people["admin"], status="registration")
        for player in players:
            services.add_entrant(tournament=tournament, player=player, by=people["admin"])
        services.draw_tournament(tournament=tournament, by=people["admin"])
        orders.append(list(tournament.entrants.order_by("seed").values_list("player", flat=True)))
    assert orders[0] == orders[1]
    assert orders[0] != sorted(orders[0])


def test_byes_go_to_the_top_seeds_and_their_players_wait_in_round_two(people, club):
    players = make_members(club, 5)
    tournament = drawn(club, people["admin"], players)
    first = {m.position: m for m in tournament.matches.filter(round=1)}
    assert [first[p].bye for p in range(4)] == [True, False, True, True]
    assert first[0].winner == players[0]
    second = match_at(tournament, 2, 1)
    assert (second.player_a, second.player_b) == (players[1], players[2])
    assert match_at(tournament, 2, 0).player_a == players[0]


# --- A match's result ---------------------------------------------------------------------


def test_a_player_reports_the_opponent_confirms_and_the_winner_advances(people, club, eight):
    tournament = drawn(club, people["admin"], eight, best_of=1)
    match = match_at(tournament, 1, 0)  # seed 1 v seed 8
    one, eight_ = eight[0], eight[7]
    outcome = steps.report_outcome(subject=match, payload=win(match, eight_, 4), by=user_of(one))
    assert outcome.status == "reported"
    assert match_at(tournament, 2, 0).player_a is None
    with pytest.raises(PermissionDenied, match="own report"):
        steps.confirm_outcome(subject=match, by=user_of(one))
    steps.confirm_outcome(subject=match, by=user_of(eight_))
    match.refresh_from_db()
    assert (match.winner, match.result) == (eight_, "played")
    assert match_at(tournament, 2, 0).player_a == eight_
    with pytest.raises(Conflict, match="no reported result"):
        steps.confirm_outcome(subject=match, by=people["admin"])
    with pytest.raises(Conflict, match="already has a result"):
        steps.report_outcome(subject=match, payload=win(match, one), by=user_of(one))
    record = GameRecord.objects.get(outcome=outcome)
    assert (record.result["winner"], record.result["loser_cards_left"]) == ("p08", 4)
    assert {s.player for s in record.seats.all()} == {one, eight_}


def test_a_match_whose_players_are_not_known_yet_is_a_conflict(people, club, eight):
    tournament = drawn(club, people["admin"], eight)
    final = match_at(tournament, 3, 0)
    with pytest.raises(Conflict, match="not known"):
        steps.report_outcome(
            subject=final, payload={"games": [{"winner": 1, "cards_left": 2}]}, by=people["admin"]
        )


def test_only_the_two_players_a_scorer_or_an_admin_may_report(people, club, eight):
    tournament = drawn(club, people["admin"], eight)
    match = match_at(tournament, 1, 0)
    with pytest.raises(PermissionDenied):
        steps.report_outcome(subject=match, payload=win(match, eight[0]), by=user_of(eight[1]))
    outcome = steps.report_outcome(subject=match, payload=win(match, eight[0]), by=people["scorer"])
    assert outcome.status == "confirmed"


def test_best_of_three_is_decided_at_two_nil_without_a_third_game(people, club, eight):
    tournament = drawn(club, people["admin"], eight, best_of=3)
    match = match_at(tournament, 1, 1)
    a, b = match.player_a, match.player_b
    two_nil = [{"winner": a.pk, "cards_left": 3}, {"winner": a.pk, "cards_left": 1}]
    with pytest.raises(ValidationError, match="already decided"):
        steps.report_outcome(
            subject=match,
            payload={"games": [*two_nil, {"winner": b.pk, "cards_left": 2}]},
            by=people["admin"],
        )
    with pytest.raises(ValidationError, match="Nobody has won 2"):
        steps.report_outcome(subject=match, payload={"games": two_nil[:1]}, by=people["admin"])
    outcome = steps.report_outcome(subject=match, payload={"games": two_nil}, by=people["admin"])
    assert [g["winner"] for g in outcome.payload["games"]] == [a.pk, a.pk]
    assert GameRecord.objects.filter(outcome=outcome).count() == 2
    assert match_at(tournament, 2, 0).player_b == a


@pytest.mark.parametrize(
    "games, field, message",
    [
        ([{"winner": 999999, "cards_left": 3}], "games", "one of the two players"),
        ([{"winner": "A", "cards_left": 3}], "games", "one of the two players"),
        ([{"cards_left": 3}], "games", "one of the two players"),
        ([{"winner": "A0", "cards_left": 16}], "games", "from 1 to 15"),
        ([{"winner": "A0", "cards_left": 0}], "games", "from 1 to 15"),
        ([{"winner": "A0", "cards_left": True}], "games", "from 1 to 15"),
        ("nope", "games", "list"),
        ([], "games", "at least one"),
    ],
)
def test_a_bad_result_is_a_400_naming_the_field_and_writes_nothing(
    people, club, eight, games, field, message
):
    tournament = drawn(club, people["admin"], eight)
    match = match_at(tournament, 1, 0)
    if isinstance(games, list):
        games = [
            {**g, "winner": match.player_a_id} if g.get("winner") == "A0" else g for g in games
        ]
    before = Outcome.objects.count()
    with pytest.raises(ValidationError) as refused:
        steps.report_outcome(subject=match, payload={"games": games}, by=people["admin"])
    assert field in refused.value.message_dict
    assert message in str(refused.value)
    assert Outcome.objects.count() == before


def test_a_full_log_is_checked_by_the_rules_engine_and_must_agree_with_the_winner(
    people, club, eight
):
    tournament = drawn(club, people["admin"], eight)
    match = match_at(tournament, 1, 2)
    names = [match.player_a.display_name, match.player_b.display_name]
    record = bot.random_record(11, variant="single_deck", options={}, players=names)
    from rules.check import check_record

    winner_name = check_record(record)[1]["winner"]
    loser = match.player_b if winner_name == names[0] else match.player_a
    with pytest.raises(ValidationError, match="the log says"):
        steps.report_outcome(
            subject=match,
            payload={"games": [{"winner": loser.pk, "record": record}]},
            by=people["admin"],
        )
    splash = {"type": "splash", "player": names[0], "t": 1}  # the option is off
    broken = {**record, "events": [record["events"][0], splash, *record["events"][1:]]}
    with pytest.raises(ValidationError) as refused:
        steps.report_outcome(
            subject=match, payload={"games": [{"record": broken}]}, by=people["admin"]
        )
    # The engine's error keeps its code and event index; its message says which game.
    [error] = refused.value.error_dict["games"]
    assert (error.code, error.params["at"]) == ("illegal_splash", 1)
    assert "Game 1" in refused.value.messages[0]
    outcome = steps.report_outcome(
        subject=match, payload={"games": [{"record": record}]}, by=people["admin"]
    )
    assert outcome.payload["games"][0]["log"] is True
    match.refresh_from_db()
    assert match.winner.display_name == winner_name


def test_walkover_retirement_and_double_forfeit(people, club, eight):
    admin = people["admin"]
    tournament = drawn(club, admin, eight, best_of=3)
    m0, m1, m2, m3 = (match_at(tournament, 1, p) for p in range(4))
    steps.report_outcome(subject=m0, payload={"walkover": m0.player_a_id}, by=admin)
    steps.report_outcome(
        subject=m1,
        payload={"retired": m1.player_a_id, "games": [{"winner": m1.player_a_id, "cards_left": 2}]},
        by=admin,
    )
    with pytest.raises(PermissionDenied):
        steps.report_outcome(subject=m2, payload={"double_forfeit": True}, by=user_of(m2.player_a))
    steps.report_outcome(subject=m2, payload={"double_forfeit": True}, by=admin)
    semi0 = match_at(tournament, 2, 0)
    assert (semi0.player_a_id, semi0.player_b_id) == (m0.player_a_id, m1.player_b_id)
    steps.report_outcome(subject=m3, payload=win(m3, m3.player_b), by=admin)
    semi1 = match_at(tournament, 2, 1)
    assert (semi1.player_a, semi1.player_b, semi1.winner) == (None, m3.player_b, m3.player_b)
    assert semi1.result == "no_opponent"
    m1.refresh_from_db()
    assert m1.result == "retirement" and m1.winner_id == m1.player_b_id


def play_all(tournament, by, pick=lambda m: m.player_a):
    """Every match with its players known reported by ``by`` until none is left."""
    while True:
        ready = [
            m
            for m in TournamentMatch.objects.filter(tournament=tournament, result="")
            .select_related("player_a", "player_b")
            .order_by("round", "kind", "position")
            if m.player_a_id and m.player_b_id
        ]
        if not ready:
            return
        for m in ready:
            steps.report_outcome(subject=m, payload=win(m, pick(m)), by=by)


def test_the_tournament_finishes_with_standings(people, club):
    players = make_members(club, 6)
    tournament = drawn(club, people["admin"], players, third_place=True)
    play_all(tournament, people["admin"])
    tournament.refresh_from_db()
    assert tournament.status == TournamentStatus.FINISHED
    from matches.sputo.reads import standings_of

    rows = standings_of(tournament)
    assert [(r["place"], r["name"]) for r in rows][:4] == [
        (1, "p01"),
        (2, "p02"),
        (3, "p04"),  # the semi-final losers meet: seed 4 sits first, and wins here
        (4, "p03"),
    ]
    assert [r["place"] for r in rows[4:]] == [5, 5]


# --- Corrections ------------------------------------------------------------------------------


def test_a_correction_preview_lists_exactly_what_the_apply_changes(people, club, eight):
    admin = people["admin"]
    tournament = drawn(club, admin, eight, third_place=True)
    for m in (match_at(tournament, 1, p) for p in range(4)):
        steps.report_outcome(subject=m, payload=win(m, m.player_a), by=admin)
    semi = match_at(tournament, 2, 0)  # seed 1 v seed 4, played
    steps.report_outcome(subject=semi, payload=win(semi, semi.player_a), by=admin)
    semi1 = match_at(tournament, 2, 1)
    reporter = user_of(semi1.player_a)
    steps.report_outcome(subject=semi1, payload=win(semi1, semi1.player_a), by=reporter)
    final = match_at(tournament, 3, 0)
    assert final.player_a == eight[0] and final.player_b is None

    # Seed 8 really beat seed 1: the semi-final was played by the wrong player; it is set
    # aside, back to be played, and seed 1 leaves the final.
    q0 = match_at(tournament, 1, 0)
    preview = correct_and_compare(q0, admin, win(q0, q0.player_b, 5))
    assert preview["set_aside"] == [semi.pk]
    semi = match_at(tournament, 2, 0)
    assert (semi.player_a, semi.result, semi.needs_resolution) == (eight[7], "", False)
    assert match_at(tournament, 3, 0).player_a is None


def test_a_correction_reseats_later_matches_not_yet_played(people, club, eight):
    admin = people["admin"]
    tournament = drawn(club, admin, eight)
    q0 = match_at(tournament, 1, 0)
    steps.report_outcome(subject=q0, payload=win(q0, q0.player_a), by=admin)
    semi = match_at(tournament, 2, 0)
    assert semi.player_a == eight[0]
    preview = correct_and_compare(q0, admin, win(q0, q0.player_b))
    assert preview["set_aside"] == []
    assert match_at(tournament, 2, 0).player_a == eight[7]
    trail = list(AuditEntry.objects.filter(object_id=q0.pk).values_list("action", flat=True))
    assert "correct" in trail and "bracket" in trail


def test_a_correction_of_a_finished_tournament_resets_the_final_to_be_played_again(people, club):
    admin = people["admin"]
    four = make_members(club, 4)
    tournament = drawn(club, admin, four, third_place=False)
    play_all(tournament, admin)
    tournament.refresh_from_db()
    assert tournament.status == TournamentStatus.FINISHED
    q0 = match_at(tournament, 1, 0)  # 1 v 4; 1 went on and won the final
    preview = correct_and_compare(q0, admin, win(q0, q0.player_b))
    assert preview["status"] == {"before": "finished", "after": "running"}
    tournament.refresh_from_db()
    final = match_at(tournament, 2, 0)
    assert tournament.status == TournamentStatus.RUNNING
    assert (final.player_a, final.player_b, final.result) == (four[3], four[1], "")
    steps.report_outcome(subject=final, payload=win(final, final.player_b), by=admin)
    tournament.refresh_from_db()
    assert tournament.status == TournamentStatus.FINISHED


def test_an_admin_may_award_the_reset_final_in_the_same_step(people, club):
    admin = people["admin"]
    four = make_members(club, 4)
    tournament = drawn(club, admin, four, third_place=False)
    play_all(tournament, admin)
    q0, final = match_at(tournament, 1, 0), match_at(tournament, 2, 0)
    wrong = {**win(q0, q0.player_b), "awards": [{"match": final.pk, "winner": four[0].pk}]}
    with pytest.raises(ValidationError):
        steps.correct_outcome(subject=q0, by=admin, payload=wrong, reason="Errore")
    right = {**win(q0, q0.player_b), "awards": [{"match": final.pk, "winner": four[3].pk}]}
    with pytest.raises(PermissionDenied):  # an award is an admin's
        steps.correct_outcome(subject=q0, by=people["scorer"], payload=right, reason="Errore")
    correct_and_compare(q0, admin, right)
    final = match_at(tournament, 2, 0)
    assert (final.player_a, final.winner, final.result) == (four[3], four[3], "awarded")
    tournament.refresh_from_db()
    assert tournament.status == TournamentStatus.FINISHED


def test_a_flagged_match_left_from_before_is_still_resolved_by_an_admin(people, club):
    admin = people["admin"]
    four = make_members(club, 4)
    tournament = drawn(club, admin, four, third_place=False)
    play_all(tournament, admin)
    final = match_at(tournament, 2, 0)
    q0 = match_at(tournament, 1, 0)
    # As a correction left it before corrections flowed through the bracket.
    TournamentMatch.objects.filter(pk=q0.pk).update(winner=q0.player_b)
    TournamentMatch.objects.filter(pk=final.pk).update(needs_resolution=True)
    services.resolve_match(match=final, by=admin, action="award", winner=four[3].pk)
    final = match_at(tournament, 2, 0)
    assert (final.player_a, final.winner, final.result) == (four[3], four[3], "awarded")
    assert not final.needs_resolution


def test_a_correction_sets_aside_a_report_waiting_on_a_reseated_match(people, club, eight):
    admin = people["admin"]
    tournament = drawn(club, admin, eight)
    q0, q1 = match_at(tournament, 1, 0), match_at(tournament, 1, 1)
    steps.report_outcome(subject=q0, payload=win(q0, q0.player_a), by=admin)
    steps.report_outcome(subject=q1, payload=win(q1, q1.player_a), by=admin)
    semi = match_at(tournament, 2, 0)
    waiting = steps.report_outcome(
        subject=semi, payload=win(semi, semi.player_a), by=user_of(semi.player_a)
    )
    preview = correct_and_compare(q0, admin, win(q0, q0.player_b))
    assert preview["reports_set_aside"] == [semi.pk] and preview["set_aside"] == []
    waiting.refresh_from_db()
    assert waiting.status == "rejected"
    assert match_at(tournament, 2, 0).player_a == eight[7]
