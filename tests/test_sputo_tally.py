"""Each player's Sputo tally, kept by the database's triggers (``matches.sputo.tally``): every
writer of matches and places keeps it equal to a count from scratch, and the leaderboard
reads it."""

from datetime import date

import pytest
from django.db import connection

from clubs import services as club_services
from clubs.models import Player
from matches.results import steps
from matches.sputo import boards, tally
from matches.sputo.models import SputoTally
from tests.test_sputo_boards import club, cup, game  # noqa: F401 - the fixtures

pytestmark = pytest.mark.django_db


def rows(club_id: int) -> dict:
    """The club's tallies that count something: (season, player name) -> figures."""
    return {
        (row.season_id, row.player.display_name): (row.matches, row.won, row.tournaments_won)
        for row in SputoTally.objects.filter(club_id=club_id).select_related("player")
        if row.matches or row.tournaments_won
    }


def rebuilt(club_id: int) -> dict:
    """The tallies as ``recompute_stats`` counts them from scratch (the rows are put back)."""
    kept = rows(club_id)
    tally.rebuild_club(club_id)
    again = rows(club_id)
    return kept, again


def test_every_trigger_of_the_tally_is_installed():
    assert tally.missing(connection) == []


def test_a_cup_leaves_each_player_their_matches_won_and_tournaments(club, cup):  # noqa: F811
    season = cup.tournament.season_id
    counted = {
        # the walkover Bruno gave counts for nobody; the third-place match was a retirement
        "Anna": (2, 1, 0),
        "Bruno": (1, 0, 0),
        "Carla": (1, 1, 1),
        "Dario": (2, 1, 0),
    }
    expected = {(None, name): figures for name, figures in counted.items()}
    if season is not None:
        expected |= {(season, name): figures for name, figures in counted.items()}
    assert rows(club.pk) == expected
    kept, again = rebuilt(club.pk)
    assert kept == again


def test_a_correction_and_a_void_move_the_tally_as_a_rebuild_counts_it(club, cup):  # noqa: F811
    final = cup.matches[2]
    steps.correct_outcome(
        subject=final,
        payload={"games": [game(cup.anna), game(cup.anna)]},
        by=cup.admin,
        reason="Scambiati i nomi",
    )
    now = {name: figures for (season, name), figures in rows(club.pk).items() if season is None}
    assert now["Anna"] == (2, 2, 1)
    assert now["Carla"] == (1, 0, 0)
    kept, again = rebuilt(club.pk)
    assert kept == again
    steps.void_outcome(subject=cup.matches[0], by=cup.admin, reason="Partita annullata")
    kept, again = rebuilt(club.pk)
    assert kept == again
    after = {name: figures for (season, name), figures in kept.items() if season is None}
    # The voided semi-final is nobody's, the final and the third-place match wait for it
    # again, and the other semi-final was a walkover: nothing counts any more.
    assert after == {}


def test_a_tournament_moved_to_another_season_moves_its_tallies(club, cup):  # noqa: F811
    winter = club_services.create_season(
        club=club, name="Inverno", start=date(2025, 1, 1), end=date(2025, 3, 31)
    )
    cup.tournament.season = winter
    cup.tournament.save(update_fields=["season"])
    assert rows(club.pk)[(winter.pk, "Carla")] == (1, 1, 1)
    board = boards.leaderboard(club, season=winter)
    assert {row["name"]: row["tournaments_won"] for row in board.rows}["Carla"] == 1
    cup.tournament.season = None
    cup.tournament.save(update_fields=["season"])
    assert not any(season == winter.pk for season, _name in rows(club.pk))
    kept, again = rebuilt(club.pk)
    assert kept == again


def test_a_guest_merged_into_a_player_brings_their_matches(club, cup):  # noqa: F811
    target = Player.objects.create(club=club, display_name="Dario Rossi")
    club_services.merge_players(source=cup.dario, target=target)
    now = {name: figures for (season, name), figures in rows(club.pk).items() if season is None}
    assert "Dario" not in now
    assert now["Dario Rossi"] == (2, 1, 0)
    kept, again = rebuilt(club.pk)
    assert kept == again


def test_the_leaderboard_reads_the_tallies_in_one_query(club, cup, django_assert_num_queries):  # noqa: F811
    with django_assert_num_queries(1):
        board = boards.leaderboard(club)
    assert {row["name"]: row["games"] for row in board.rows}["Anna"] == 2
