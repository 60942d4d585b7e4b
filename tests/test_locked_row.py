"""``matches.results.adapters.locked_row``: a step's subject read again under its lock, its
related rows kept from the read before when they are still the ones it points to."""

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from matches.models import TournamentMatch
from matches.results.adapters import locked_row
from tests.sputo_world import drawn, make_guests, match_at

pytestmark = pytest.mark.django_db

RELATED = ("club", "player_a", "player_b")


@pytest.fixture
def match(people):
    tournament = drawn(people["club"], people["admin"], make_guests(people["club"], 4))
    return match_at(tournament, 1, 0)


def _read(match, *related):
    return TournamentMatch.objects.select_related(*related).get(pk=match.pk)


def test_the_rows_read_before_are_kept_and_not_joined_again(match):
    before = _read(match, *RELATED)
    with transaction.atomic(), CaptureQueriesContext(connection) as queries:
        row = locked_row(before, RELATED)
        seen = (row.club, row.player_a, row.player_b)
    (sql,) = [q["sql"] for q in queries]
    assert "JOIN" not in sql
    assert connection.vendor == "sqlite" or "FOR UPDATE" in sql
    assert seen == (before.club, before.player_a, before.player_b)
    assert seen[1] is before.player_a  # the same row, not a copy read again


def test_the_rows_not_read_before_are_joined(match):
    before = _read(match, "club")
    with transaction.atomic(), CaptureQueriesContext(connection) as queries:
        row = locked_row(before, RELATED)
        names = (row.player_a.display_name, row.player_b.display_name)
    (sql,) = [q["sql"] for q in queries]
    assert sql.count("JOIN") == 2
    assert row.club is before.club
    assert names == (match.player_a.display_name, match.player_b.display_name)


def test_a_row_that_points_elsewhere_now_is_read_anew(match, people):
    before = _read(match, *RELATED)
    other = people["guest"]
    TournamentMatch.objects.filter(pk=match.pk).update(player_a=other)
    with transaction.atomic():
        row = locked_row(before, RELATED)
        assert row.player_a == other and row.player_a is not before.player_a
        assert row.player_b is before.player_b


def test_a_nested_path_keeps_its_top_only_when_read_whole(match):
    partly = _read(match, "tournament")  # without the tournament's season
    with transaction.atomic(), CaptureQueriesContext(connection) as queries:
        row = locked_row(partly, ("tournament", "tournament__season"))
        row.tournament.season  # noqa: B018 - read with the lock, no query of its own
    assert len(queries) == 1 and "JOIN" in queries[0]["sql"]
    whole = _read(match, "tournament", "tournament__season")
    with transaction.atomic(), CaptureQueriesContext(connection) as queries:
        row = locked_row(whole, ("tournament", "tournament__season"))
        assert row.tournament is whole.tournament
    assert len(queries) == 1 and "JOIN" not in queries[0]["sql"]
