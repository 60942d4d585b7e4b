"""The migration that gives each Spazz'u'mazz place its game's time and size fills them in
for the games already there."""

from datetime import UTC, datetime

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE = [("matches", "0014_outcome_club_confirmed")]
AFTER = [("matches", "0015_spazzumazz_place_by_player")]


def _migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


@pytest.mark.django_db(transaction=True)
def test_the_places_of_earlier_games_take_their_games_time_and_size():
    old = _migrate(BEFORE)
    Club, Player = old.get_model("clubs", "Club"), old.get_model("clubs", "Player")
    Game, Place = (
        old.get_model("matches", "SpazzumazzGame"),
        old.get_model("matches", "SpazzumazzPlace"),
    )
    club = Club.objects.create(name="Circolo vecchio", slug="vecchio")
    players = [Player.objects.create(club=club, display_name=f"P{n}") for n in range(4)]
    times = [datetime(2020, 1, d, 21, tzinfo=UTC) for d in (1, 2)]
    games = [
        Game.objects.create(club=club, played_at=times[0], size=3),
        Game.objects.create(club=club, played_at=times[1], size=4),
    ]
    for game in games:
        for turn, player in enumerate(players[: game.size]):
            Place.objects.create(game=game, player=player, turn=turn, place=turn + 1)
    try:
        new = _migrate(AFTER)
        kept = new.get_model("matches", "SpazzumazzPlace").objects.order_by("game_id", "turn")
        assert [(p.game_id, p.played_at, p.size) for p in kept] == [
            (games[0].pk, times[0], 3),
            (games[0].pk, times[0], 3),
            (games[0].pk, times[0], 3),
            (games[1].pk, times[1], 4),
            (games[1].pk, times[1], 4),
            (games[1].pk, times[1], 4),
            (games[1].pk, times[1], 4),
        ]
    finally:
        _migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())
