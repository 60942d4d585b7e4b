"""A step's lock on its subject (``GameAdapter.lock``): the subject's row read again under
``SELECT ... FOR UPDATE OF`` its own table, with everything the steps read of it joined in
that same read, for every game."""

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from matches.results.adapters import adapter_for
from matches.spazzumazz.services import record_spazzumazz_game
from tests.singapore_helpers import make_table, next_names, open_table, play
from tests.sputo_world import drawn, make_guests, match_at

pytestmark = pytest.mark.django_db


def _reads_everything(row, paths) -> None:
    """Touch every related row of ``paths`` (``a__b``) of ``row``."""
    for path in paths:
        value = row
        for name in path.split("__"):
            value = getattr(value, name)


def _locked(subject):
    adapter = adapter_for(subject)
    with transaction.atomic(), CaptureQueriesContext(connection) as queries:
        row = adapter.lock(subject)
        _reads_everything(row, adapter.related)
    return row, [q["sql"] for q in queries]


def _a_hand(make_user):
    world = make_table(make_user)
    table = open_table(world, list(world["players"]), seed=1)
    return play(world, table, *next_names(world, table)).hand


def _a_game(people):
    club = people["club"]
    players = [club.players.get(user=people["member"]), *make_guests(club, 2)]
    ids = [p.pk for p in players]
    game, _outcome = record_spazzumazz_game(
        club=club, players=players, by=people["scorer"], finish_order=ids[::-1]
    )
    return game


def test_a_hand_is_locked_with_what_the_steps_read_in_one_query(make_user):
    hand = _a_hand(make_user)
    row, sql = _locked(hand)
    assert row == hand and len(sql) == 1
    assert connection.vendor == "sqlite" or 'FOR UPDATE OF "matches_hand"' in sql[0]


def test_a_spazzumazz_game_is_locked_with_what_the_steps_read_in_one_query(people):
    game = _a_game(people)
    row, sql = _locked(game)
    assert row == game and len(sql) == 1
    assert connection.vendor == "sqlite" or 'FOR UPDATE OF "matches_spazzumazzgame"' in sql[0]


def test_a_sputo_match_is_locked_after_its_tournament(people):
    tournament = drawn(people["club"], people["admin"], make_guests(people["club"], 4))
    match = match_at(tournament, 1, 0)
    row, sql = _locked(match)
    assert row == match and row.tournament == tournament
    assert len(sql) == 2
    assert '"matches_tournament"' in sql[0].split("WHERE")[0].split("FROM")[1]
    if connection.vendor != "sqlite":
        assert 'FOR UPDATE OF "matches_tournament"' in sql[0]
        assert 'FOR UPDATE OF "matches_tournamentmatch"' in sql[1]


def test_the_lock_reads_the_row_as_it_is_now(people):
    tournament = drawn(people["club"], people["admin"], make_guests(people["club"], 4))
    match = match_at(tournament, 1, 0)
    other = people["guest"]
    type(match).objects.filter(pk=match.pk).update(player_a=other)
    row, _sql = _locked(match)
    assert row.player_a == other and match.player_a != other
