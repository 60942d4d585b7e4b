"""Migrations that derive a column fill it in for the rows already there: each
Spazz'u'mazz place its game's time and size, each entrant of a finished Sputo tournament
its place; the ledger's derived balances the entries already posted."""

from datetime import UTC, datetime

import pytest
from django.db import connection, transaction
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


SPUTO_BEFORE = [("matches", "0015_spazzumazz_place_by_player")]
SPUTO_AFTER = [("matches", "0016_sputo_entrant_place")]


@pytest.mark.django_db(transaction=True)
def test_the_entrants_of_finished_tournaments_take_their_places_from_the_bracket():
    old = _migrate(SPUTO_BEFORE)
    Club, Player = old.get_model("clubs", "Club"), old.get_model("clubs", "Player")
    Tournament = old.get_model("matches", "Tournament")
    Match, Entrant = (
        old.get_model("matches", "TournamentMatch"),
        old.get_model("matches", "Entrant"),
    )
    club = Club.objects.create(name="Circolo vecchio", slug="vecchio")
    anna, bruno, carla, dario = (
        Player.objects.create(club=club, display_name=n)
        for n in ("Anna", "Bruno", "Carla", "Dario")
    )
    at = datetime(2020, 1, 1, 21, tzinfo=UTC)

    def cup(status):
        tournament = Tournament.objects.create(
            club=club, name=status, starts_at=at, status=status, rounds=2, third_place=False
        )
        for player in (anna, bruno, carla, dario):
            Entrant.objects.create(tournament=tournament, player=player)
        for position, (a, b, winner) in enumerate(((anna, dario, anna), (bruno, carla, carla))):
            Match.objects.create(
                club=club,
                tournament=tournament,
                kind="main",
                round=1,
                position=position,
                player_a=a,
                player_b=b,
                winner=winner,
                result="played",
            )
        final = {"winner": carla, "result": "played"} if status == "finished" else {}
        Match.objects.create(
            club=club,
            tournament=tournament,
            kind="main",
            round=2,
            position=0,
            player_a=anna,
            player_b=carla,
            **final,
        )
        return tournament

    finished, running = cup("finished"), cup("running")
    try:
        new = _migrate(SPUTO_AFTER)
        places = dict(
            new.get_model("matches", "Entrant")
            .objects.filter(tournament_id=finished.pk)
            .values_list("player__display_name", "place")
        )
        assert places == {"Carla": 1, "Anna": 2, "Bruno": 3, "Dario": 3}
        still = new.get_model("matches", "Entrant").objects.filter(tournament_id=running.pk)
        assert set(still.values_list("place", flat=True)) == {None}
    finally:
        _migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())


def _every_app_but_the_ledger_at(ledger: str) -> list[tuple[str, str]]:
    leaves = MigrationExecutor(connection).loader.graph.leaf_nodes()
    return [(app, name) for app, name in leaves if app != "ledger"] + [("ledger", ledger)]


@pytest.mark.django_db(transaction=True)
def test_the_entries_posted_before_the_derived_balances_are_added_up_into_them():
    old = _migrate(_every_app_but_the_ledger_at("0004_legs"))
    Club, Player = old.get_model("clubs", "Club"), old.get_model("clubs", "Player")
    Transaction = old.get_model("ledger", "Transaction")
    Entry, Leg = old.get_model("ledger", "Entry"), old.get_model("ledger", "Leg")
    club = Club.objects.create(name="Circolo dei conti", slug="conti")
    ada, mia = (Player.objects.create(club=club, display_name=n) for n in ("Ada", "Mia"))
    for key, scope, minor in (("h1", "session:1", 5), ("h2", "", 3)):
        with transaction.atomic():  # PostgreSQL checks a posting whole, at commit
            tx = Transaction.objects.create(
                club=club, unit="points", key=key, scope=scope, n_entries=2, n_legs=1
            )
            Entry.objects.bulk_create(
                [
                    Entry(transaction=tx, player=ada, amount_minor=minor),
                    Entry(transaction=tx, player=mia, amount_minor=-minor),
                ]
            )
            Leg.objects.create(transaction=tx, debtor=mia, creditor=ada, amount_minor=minor)
    try:
        new = _migrate(_every_app_but_the_ledger_at("0005_balances"))
        rows = new.get_model("ledger", "Balance").objects.values_list("scope", "player_id", "minor")
        assert sorted(rows) == [
            ("", ada.pk, 8),
            ("", mia.pk, -8),
            ("session:1", ada.pk, 5),
            ("session:1", mia.pk, -5),
        ]
    finally:
        _migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())
