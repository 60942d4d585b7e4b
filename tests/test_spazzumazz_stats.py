"""Spazz'u'mazz's derived rows (``matches/spazzumazz/stats.py``): idiot statistics, head to
head, ratings and the club's game name, on hand-computed cases; the tasks against a rebuild
from scratch, run twice, out of order and on random histories."""

from datetime import UTC, datetime, timedelta

import pytest
from django.db import transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openskill.models import PlackettLuce

from clubs import services
from matches.models import (
    PlayerRating,
    RatingChange,
    SpazzumazzHeadToHead,
    SpazzumazzStats,
    SpazzumazzTitle,
)
from matches.results import steps
from matches.spazzumazz import stats
from matches.spazzumazz.services import record_spazzumazz_game
from rules.spazzumazz import PlayerStats, renamed_after

pytestmark = pytest.mark.django_db

T0 = datetime(2025, 1, 10, 21, 0, tzinfo=UTC)


@pytest.fixture
def club(people):
    return people["club"]


@pytest.fixture
def table(club):
    return {name: services.add_guest(club=club, display_name=name) for name in "ABCD"}


@pytest.fixture
def play(club, people, table, django_capture_on_commit_callbacks):
    """Record a game by the scorer (in force at once), its tasks run as after commit."""

    def play(order: str, *, at: int, turn: str | None = None):
        players = [table[n] for n in (turn or order)]
        with django_capture_on_commit_callbacks(execute=True):
            game, _ = record_spazzumazz_game(
                club=club,
                players=players,
                by=people["scorer"],
                finish_order=[table[n].pk for n in order],
                played_at=T0 + timedelta(hours=at),
            )
        return game

    return play


def min_games(club, n, people, capture):
    with capture(execute=True):
        services.update_house_rules(
            club=club, game="spazzumazz", values={"idiot_min_games": n}, by=people["admin"]
        )


def row(club, player, season=None):
    return SpazzumazzStats.objects.get(club=club, player=player, season=season)


def five_games(play):
    for n, order in enumerate(["ABC", "BA", "ACBD", "CBA", "BCA"]):
        play(order, at=n)


def test_the_statistics_of_five_games_of_different_sizes(club, table, play):
    five_games(play)
    a, b, c, d = (row(club, table[n]) for n in "ABCD")
    assert (a.games, a.idiot, a.idiot_rate, a.place_sum) == (5, 3, 0.6, 10)
    assert a.average_place == pytest.approx(0.6)  # 0, 1, 0, 1, 1: out first or the idiot
    assert (a.current_streak, a.longest_streak) == (2, 2)
    assert (b.games, b.idiot, b.current_streak, b.longest_streak) == (5, 0, 0, 0)
    assert b.average_place == pytest.approx((1 / 2 + 0 + 2 / 3 + 1 / 2 + 0) / 5)
    assert (c.games, c.idiot, c.idiot_rate, c.current_streak, c.longest_streak) == (
        4,
        1,
        0.25,
        0,
        1,
    )
    assert (d.games, d.idiot, d.idiot_rate, d.current_streak, d.average_place) == (
        1,
        1,
        1.0,
        1,
        1.0,
    )


def test_head_to_head_counts_the_games_shared_and_who_finished_behind(club, table, play):
    five_games(play)
    h2h = {
        (r.player.display_name, r.opponent.display_name): (r.games, r.behind)
        for r in SpazzumazzHeadToHead.objects.filter(club=club, season=None)
    }
    assert h2h[("A", "B")] == (5, 3)
    assert h2h[("B", "A")] == (5, 2)
    assert h2h[("D", "A")] == (1, 1) and h2h[("A", "D")] == (1, 0)
    assert h2h[("C", "D")] == (1, 0)
    assert ("B", "B") not in h2h and len(h2h) == 12


def test_the_game_is_named_after_the_highest_rate_among_players_with_enough_games(
    club, table, play, people, django_capture_on_commit_callbacks
):
    five_games(play)  # the house rule's default: 10 games, nobody has them
    assert not SpazzumazzTitle.objects.filter(club=club).exists()
    min_games(club, 4, people, django_capture_on_commit_callbacks)
    title = SpazzumazzTitle.objects.get(club=club, season=None)
    # A reached 4 games at the 4th game (2 times the idiot), and holds it since.
    assert (title.player, title.since, title.until) == (table["A"], T0 + timedelta(hours=3), None)
    min_games(club, 1, people, django_capture_on_commit_callbacks)
    history = [
        (t.player.display_name, t.since, t.until)
        for t in SpazzumazzTitle.objects.filter(club=club, season=None).order_by("since")
    ]
    # C was the idiot of the first game; D of the third, at a rate of 1 that nobody beats.
    assert history == [
        ("C", T0, T0 + timedelta(hours=2)),
        ("D", T0 + timedelta(hours=2), None),
    ]


@pytest.mark.parametrize(
    "orders, expected",
    [
        # A 2 of 4, C and D 1 of 2: the same rate; more times the idiot goes first.
        (["BA", "BA", "ACD", "ADC"], "A"),
        # B, C and D 1 of 2: the worse average place goes first (D: 3rd and 2nd of 3).
        (["AB", "BA", "CAD", "ADC"], "D"),
        # Everything equal: the name that sorts first.
        (["AB", "BA"], "A"),
    ],
)
def test_ties_are_broken_as_the_rules_engine_breaks_them(
    club, table, play, people, django_capture_on_commit_callbacks, orders, expected
):
    min_games(club, 2, people, django_capture_on_commit_callbacks)
    for n, order in enumerate(orders):
        play(order, at=n)
    engine = {
        name: PlayerStats(s.games, s.idiot, s.place_sum)
        for name, s in (
            (r.player.display_name, r) for r in SpazzumazzStats.objects.filter(season=None)
        )
    }
    assert renamed_after(engine, min_games=2) == expected
    assert SpazzumazzTitle.objects.get(club=club, season=None, until=None).player == table[expected]


def test_season_rows_count_only_the_seasons_games(club, table, people, play):
    services.create_season(club=club, name="Gennaio", start="2025-01-01", end="2025-01-31")
    play("AB", at=0)
    play("BA", at=24 * 40)  # in February: no season
    season = club.seasons.get()
    assert row(club, table["B"], season).games == 1
    assert row(club, table["B"]).games == 2
    assert row(club, table["B"], season).idiot == 1 and row(club, table["B"]).current_streak == 0


def test_ratings_follow_openskill_plackett_luce_and_are_provisional_at_first(club, table, play):
    play("ABC", at=0)
    model = PlackettLuce()
    [[a], [b], [c]] = model.rate([[model.rating()], [model.rating()], [model.rating()]])
    rating = PlayerRating.objects.get(club=club, player=table["A"], game="spazzumazz")
    assert (rating.mu, rating.sigma) == (a.mu, a.sigma)
    assert rating.display == pytest.approx(a.mu - 3 * a.sigma)
    assert rating.provisional and rating.games == 1
    change = RatingChange.objects.get(player=table["C"], game="spazzumazz")
    assert change.sequence == 1 and change.mu == c.mu
    assert change.delta == pytest.approx((c.mu - 3 * c.sigma) - 0)
    for n in range(1, stats.PROVISIONAL_GAMES):
        play("ABC", at=n)
    rating = PlayerRating.objects.get(club=club, player=table["A"], game="spazzumazz")
    assert not rating.provisional and rating.games == stats.PROVISIONAL_GAMES


def snapshot(club):
    def rows(queryset, *fields):
        return sorted(queryset.filter(club=club).values_list(*fields), key=repr)

    return {
        "stats": rows(
            SpazzumazzStats.objects,
            "season_id",
            "player_id",
            "games",
            "idiot",
            "idiot_rate",
            "place_sum",
            "relative_place_sum",
            "average_place",
            "current_streak",
            "longest_streak",
            "last_played_at",
        ),
        "h2h": rows(
            SpazzumazzHeadToHead.objects, "season_id", "player_id", "opponent_id", "games", "behind"
        ),
        "titles": rows(SpazzumazzTitle.objects, "season_id", "player_id", "since", "until"),
        "ratings": rows(
            PlayerRating.objects.filter(game="spazzumazz"),
            "player_id",
            "mu",
            "sigma",
            "display",
            "games",
            "provisional",
        ),
        "changes": rows(
            RatingChange.objects.filter(game="spazzumazz"),
            "sequence",
            "player_id",
            "outcome_id",
            "at",
            "mu",
            "sigma",
            "display",
            "delta",
        ),
    }


def test_a_game_entered_late_a_correction_and_a_void_agree_with_a_rebuild(
    club, table, play, people, django_capture_on_commit_callbacks
):
    min_games(club, 2, people, django_capture_on_commit_callbacks)
    five_games(play)
    late = play("DCBA", at=1, turn="ABCD")  # played between the first two, entered last
    with django_capture_on_commit_callbacks(execute=True):
        steps.correct_outcome(
            subject=late,
            by=people["scorer"],
            reason="Ordine sbagliato",
            payload={"finish_order": [table[n].pk for n in "ABCD"]},
        )
    second = club.spazzumazz_games.order_by("played_at")[2]
    with django_capture_on_commit_callbacks(execute=True):
        steps.void_outcome(subject=second, by=people["scorer"], reason="Per prova")
    incremental = snapshot(club)
    assert incremental["changes"][0][0] == 1 and len({c[0] for c in incremental["changes"]}) == 5
    stats.rebuild_club(club.pk)
    assert snapshot(club) == incremental


def test_a_task_run_twice_or_before_its_turn_changes_nothing(
    club, table, play, people, django_capture_on_commit_callbacks
):
    five_games(play)
    before = snapshot(club)
    assert stats.refresh(club.pk) == "up to date"
    assert snapshot(club) == before
    # Two results commit before either task runs; the tasks then run in the wrong order.
    with django_capture_on_commit_callbacks(execute=False) as queued:
        record_spazzumazz_game(
            club=club,
            players=[table["A"], table["B"]],
            by=people["scorer"],
            finish_order=[table["B"].pk, table["A"].pk],
            played_at=T0 + timedelta(days=2),
        )
        record_spazzumazz_game(
            club=club,
            players=[table["C"], table["D"]],
            by=people["scorer"],
            finish_order=[table["C"].pk, table["D"].pk],
            played_at=T0 - timedelta(days=2),
        )
    for callback in reversed(queued):
        callback()
    for callback in queued:
        callback()
    incremental = snapshot(club)
    assert row(club, table["A"]).games == 6
    stats.rebuild_club(club.pk)
    assert snapshot(club) == incremental


def test_a_guest_merged_into_a_member_brings_their_statistics(
    club, table, play, people, django_capture_on_commit_callbacks
):
    five_games(play)
    member = club.players.get(user=people["member"])
    with django_capture_on_commit_callbacks(execute=True):
        services.merge_players(source=table["D"], target=member)
    assert not SpazzumazzStats.objects.filter(player=table["D"]).exists()
    assert row(club, member).games == 1 and row(club, member).idiot == 1
    assert PlayerRating.objects.get(player=member, game="spazzumazz").games == 1


# --- Random histories: the tasks agree with a rebuild from scratch -------------------------------

operation = st.one_of(
    st.tuples(
        st.just("play"),
        st.integers(0, 40),  # the hour
        st.permutations("ABCDE").flatmap(lambda p: st.integers(2, 5).map(lambda n: p[:n])),
    ),
    st.tuples(st.just("correct"), st.integers(0, 30), st.randoms(use_true_random=False)),
    st.tuples(st.just("void"), st.integers(0, 30), st.none()),
)


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(history=st.lists(operation, min_size=1, max_size=12), rule=st.integers(1, 3))
def test_the_tasks_agree_with_a_rebuild_on_random_histories(
    people, django_capture_on_commit_callbacks, history, rule
):
    club = people["club"]
    with transaction.atomic():
        services.create_season(club=club, name="Prima", start="2025-01-10", end="2025-01-11")
        min_games(club, rule, people, django_capture_on_commit_callbacks)
        table = {n: services.add_guest(club=club, display_name=f"Giocatore {n}") for n in "ABCDE"}
        games = []
        for kind, n, extra in history:
            with django_capture_on_commit_callbacks(execute=True):
                if kind == "play":
                    players = [table[name] for name in extra]
                    game, _ = record_spazzumazz_game(
                        club=club,
                        players=players,
                        by=people["scorer"],
                        finish_order=[p.pk for p in reversed(players)],
                        played_at=T0 + timedelta(hours=n),
                    )
                    games.append(game)
                elif games and games[n % len(games)].outcome_in_force() is not None:
                    game = games[n % len(games)]
                    if kind == "void":
                        steps.void_outcome(subject=game, by=people["scorer"], reason="x")
                    else:
                        order = [p.pk for p in game.players_in_turn_order()]
                        extra.shuffle(order)
                        steps.correct_outcome(
                            subject=game,
                            by=people["scorer"],
                            reason="x",
                            payload={"finish_order": order},
                        )
        incremental = snapshot(club)
        stats.rebuild_club(club.pk)
        assert snapshot(club) == incremental
        transaction.set_rollback(True)


@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
def test_two_tasks_at_once_wait_for_each_other_and_agree_with_a_rebuild(people):
    """Two workers refresh the same club at the same moment (PostgreSQL row locks)."""
    import threading

    from django.db import connection, connections

    if connection.vendor != "postgresql":
        pytest.skip("row locks need PostgreSQL (the integration run)")
    club = people["club"]
    table = [services.add_guest(club=club, display_name=f"G{n}") for n in range(4)]
    for n in range(6):
        record_spazzumazz_game(
            club=club,
            players=table,
            by=people["scorer"],
            finish_order=[p.pk for p in table[n % 4 :] + table[: n % 4]],
            played_at=T0 + timedelta(hours=n),
        )
    with transaction.atomic():
        stats.mark_stale(club_id=club.pk, since=None)
    barrier = threading.Barrier(2)
    results: list[str] = []

    def refresh():
        try:
            barrier.wait()
            results.append(stats.refresh(club.pk))
        finally:
            connections.close_all()

    threads = [threading.Thread(target=refresh) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert sorted(results) == ["rebuilt from the start", "up to date"], results
    once = snapshot(club)
    stats.rebuild_club(club.pk)
    assert snapshot(club) == once


def test_recompute_stats_rebuilds_every_club_from_scratch_with_the_same_numbers(club, table, play):
    from io import StringIO

    from django.core.management import CommandError, call_command

    five_games(play)
    before = snapshot(club)
    SpazzumazzStats.objects.filter(club=club).update(games=99)
    out = StringIO()
    call_command("recompute_stats", stdout=out)
    assert "rebuilt from the start" in out.getvalue()
    assert snapshot(club) == before
    with pytest.raises(CommandError, match="no-such-club"):
        call_command("recompute_stats", club="no-such-club")


def test_a_tie_among_players_the_game_did_not_touch_goes_to_the_name_as_in_a_rebuild(
    club, people, django_capture_on_commit_callbacks
):
    """The delta asks the database for the worst of the players a game did not touch: when
    several tie on the idiot rate, the times idiot and the place, it reads them all and
    the name decides, as the rebuild from scratch does."""
    min_games(club, 1, people, django_capture_on_commit_callbacks)
    guests = {
        name: services.add_guest(club=club, display_name=name)
        for name in ("Zeta", "Alfa", "Primo", "Secondo", "Terzo", "Quarto", "Quinto")
    }

    def play(order, at):
        players = [guests[name] for name in order]
        with django_capture_on_commit_callbacks(execute=True):
            record_spazzumazz_game(
                club=club,
                players=players,
                by=people["scorer"],
                finish_order=[p.pk for p in players],
                played_at=T0 + timedelta(hours=at),
            )

    play(["Primo", "Secondo", "Zeta"], 1)  # Zeta: 1 game, the idiot, 3rd of 3
    play(["Terzo", "Quarto", "Alfa"], 2)  # Alfa the same: they tie, and Alfa comes first
    play(["Quinto", "Primo"], 3)  # Primo the idiot, 2nd of 2: better than the tie
    holder = SpazzumazzTitle.objects.get(club=club, season=None, until__isnull=True)
    assert holder.player == guests["Alfa"]
    incremental = snapshot(club)
    stats.rebuild_club(club.pk)
    assert snapshot(club) == incremental
