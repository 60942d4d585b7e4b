"""``python manage.py bench_data``: a large club history in PostgreSQL, for the benchmarks.

One public club (slug ``bench``), ``--players`` guests (1,000) in circles of friends who play
together, two seasons, and ``--results`` results in force (1,000,000) over the last two
years, split 40 / 30 / 30 between Spazz'u'mazz games, Sputo matches and Singapore hands.
Written with PostgreSQL's ``COPY`` (minutes, not hours), then Spazz'u'mazz's derived rows
rebuilt by the same code as its tasks (``matches.spazzumazz.stats.rebuild_club``).

What it fills, per result:

- **Spazz'u'mazz**: a ``SpazzumazzGame`` with its places (3 to 5 players, a random finishing
  order), its confirmed ``Outcome``, its ``GameRecord`` (the short result) with its seats;
  then statistics, head to head, OpenSkill ratings and the game's name from the rebuild.
- **Sputo**: a ``GameRecord`` (a short result: ``winner``, ``loser_cards_left``) with its two
  seats, a confirmed ``Outcome`` (its subject the record itself, as Sputo's own models are
  not here), and ``RatingChange`` / ``PlayerRating`` rows. Their figures come from a simple
  Elo-style update standing in for Glicko-2: realistic rows for the pages, not Sputo's
  numbers.
- **Singapore**: a ``GameRecord`` (a stake between dealer and opponent) with its two seats and
  a confirmed ``Outcome``.

The records are written as data, not checked by the rules engine (that is what makes a
million of them fast). ``--reset`` deletes the bench club first.
"""

from __future__ import annotations

import json
import random
import time
from datetime import date, timedelta

from django.contrib.auth import get_user_model
from django.contrib.contenttypes.models import ContentType
from django.core.management.base import BaseCommand, CommandError
from django.db import connection, transaction
from django.utils import timezone

from clubs import services
from clubs.models import Club, Player, Season
from matches.boards.models import PlayerRating, RatingChange
from matches.results.models import GameRecord, GameSeat, Outcome
from matches.spazzumazz import stats
from matches.spazzumazz.models import SpazzumazzGame, SpazzumazzPlace

SLUG = "bench"
CHUNK = 20_000
DAYS = 730


def _next_id(model) -> int:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT COALESCE(MAX(id), 0) + 1 FROM {model._meta.db_table}")
        return cursor.fetchone()[0]


def _reset_sequence(model) -> None:
    table = model._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
            f"(SELECT COALESCE(MAX(id), 1) FROM {table}))"
        )


def _copy(model, columns: list[str], rows) -> int:
    count = 0
    with connection.cursor() as cursor:
        with cursor.cursor.copy(
            f"COPY {model._meta.db_table} ({', '.join(columns)}) FROM STDIN"
        ) as copy:
            for row in rows:
                copy.write_row(row)
                count += 1
    return count


class Ids:
    def __init__(self, model):
        self.next = _next_id(model)

    def take(self) -> int:
        self.next += 1
        return self.next - 1


class Command(BaseCommand):
    help = "Fill PostgreSQL with a large club history (1,000 players, 1,000,000 results)."

    def add_arguments(self, parser):
        parser.add_argument("--players", type=int, default=1000)
        parser.add_argument("--results", type=int, default=1_000_000)
        parser.add_argument("--seed", type=int, default=2026)
        parser.add_argument("--reset", action="store_true", help="delete the bench club first")

    def handle(self, *args, players: int, results: int, seed: int, reset: bool, **options):
        if connection.vendor != "postgresql":
            raise CommandError("bench_data needs PostgreSQL (set DATABASE_URL).")
        if players < 10 or results < 10:
            raise CommandError("At least 10 players and 10 results.")
        started = time.perf_counter()
        if reset:
            with transaction.atomic():
                Club.objects.filter(slug=SLUG).delete()
            self._say(started, "deleted the old bench club")
        if Club.objects.filter(slug=SLUG).exists():
            raise CommandError("The bench club is already there: use --reset.")
        rng = random.Random(seed)
        self.now = timezone.now().replace(microsecond=0)
        with transaction.atomic():
            club, people = self._club(players)
            self._say(started, f"club, {players} players and two seasons")
            spazz, sputo = int(results * 0.4), int(results * 0.3)
            singapore = results - spazz - sputo
            self._spazzumazz(club, people, spazz, rng)
            self._say(started, f"{spazz:,} Spazz'u'mazz games with places, outcomes, records")
            self._sputo(club, people, sputo, rng)
            self._say(started, f"{sputo:,} Sputo matches with outcomes, records, ratings")
            self._singapore(club, people, singapore, rng)
            self._say(started, f"{singapore:,} Singapore hands with outcomes and records")
            for model in (SpazzumazzGame, SpazzumazzPlace, Outcome, GameRecord, GameSeat):
                _reset_sequence(model)
            _reset_sequence(RatingChange)
            _reset_sequence(PlayerRating)
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
        self._say(started, "committed and analysed")
        result = stats.rebuild_club(club.pk)
        with connection.cursor() as cursor:
            # Again, for the derived rows: planned as empty tables, a player's head to head
            # read a whole table instead of the player's rows.
            cursor.execute("ANALYZE")
        self._say(started, f"Spazz'u'mazz statistics and ratings (analysed): {result}")
        total = time.perf_counter() - started
        self.stdout.write(
            self.style.SUCCESS(
                f"bench_data: {players:,} players, {results:,} results in {total:.0f} s "
                f"(/clubs/{SLUG}/)"
            )
        )

    def _say(self, started: float, what: str) -> None:
        self.stdout.write(f"{time.perf_counter() - started:7.1f} s  {what}")

    def _club(self, count: int):
        User = get_user_model()
        admin = User.objects.filter(username="bench-admin").first() or User.objects.create_user(
            username="bench-admin", password="bench-admin-password", email="bench@example.org"
        )
        club = services.create_club(name="Circolo Benchmark", founder=admin, slug=SLUG, city="Roma")
        today = timezone.localdate(self.now)
        Season.objects.bulk_create(
            [
                Season(
                    club=club,
                    name="Stagione passata",
                    start=today - timedelta(days=DAYS),
                    end=today - timedelta(days=366),
                ),
                Season(
                    club=club,
                    name="Stagione in corso",
                    start=today - timedelta(days=365),
                    end=today + timedelta(days=30),
                ),
            ]
        )
        self.seasons = list(club.seasons.order_by("start"))
        people = Player.objects.bulk_create(
            Player(club=club, display_name=f"Giocatore {n:04d}") for n in range(count)
        )
        self.circles = [people[i : i + 40] for i in range(0, len(people), 40)]
        return club, people

    def _table(self, rng, size: int):
        circle = rng.choice(self.circles)
        return rng.sample(circle, min(size, len(circle)))

    def _times(self, rng, count: int):
        start = self.now - timedelta(days=DAYS - 1)
        span = int((self.now - start).total_seconds())
        return sorted(start + timedelta(seconds=rng.randrange(span)) for _ in range(count))

    def _season(self, when) -> int | None:
        day: date = timezone.localtime(when).date()
        for season in self.seasons:
            if season.start <= day <= season.end:
                return season.pk
        return None

    def _outcome_row(self, club, kind, pk, object_id, at, payload):
        return (
            pk,
            club.pk,
            kind,
            object_id,
            "confirmed",
            json.dumps(payload),
            "{}",
            at,
            at,
            "",
        )

    OUTCOME = [
        "id",
        "club_id",
        "content_type_id",
        "object_id",
        "status",
        "payload",
        "detail",
        "reported_at",
        "confirmed_at",
        "note",
    ]
    RECORD = [
        "id",
        "club_id",
        "season_id",
        "game",
        "played_at",
        "record",
        "result",
        "outcome_id",
        "created_at",
    ]
    SEAT = ["id", "game_record_id", "player_id", "name_in_record", "place"]

    def _chunks(self, count: int):
        for start in range(0, count, CHUNK):
            yield start, min(CHUNK, count - start)

    def _spazzumazz(self, club, people, count: int, rng) -> None:
        kind = ContentType.objects.get_for_model(SpazzumazzGame).pk
        ids = {m: Ids(m) for m in (SpazzumazzGame, SpazzumazzPlace, Outcome, GameRecord, GameSeat)}
        times = self._times(rng, count)
        for start, size in self._chunks(count):
            games, places, outcomes, records, seats = [], [], [], [], []
            for when in times[start : start + size]:
                table = self._table(rng, rng.randint(3, 5))
                order = table[:]
                rng.shuffle(order)
                game = ids[SpazzumazzGame].take()
                season = self._season(when)
                games.append((game, club.pk, season, when, len(table), when))
                place_of = {p.pk: n for n, p in enumerate(order, 1)}
                for turn, player in enumerate(table):
                    places.append(
                        (
                            ids[SpazzumazzPlace].take(),
                            game,
                            player.pk,
                            turn,
                            place_of[player.pk],
                            when,
                            len(table),
                        )
                    )
                outcome = ids[Outcome].take()
                outcomes.append(
                    self._outcome_row(
                        club,
                        kind,
                        outcome,
                        game,
                        when,
                        {"finish_order": [p.pk for p in order], "log": False},
                    )
                )
                names = [p.display_name for p in table]
                finish = [p.display_name for p in order]
                record = ids[GameRecord].take()
                records.append(
                    (
                        record,
                        club.pk,
                        season,
                        "spazzumazz",
                        when,
                        json.dumps(
                            {"game": "spazzumazz", "players": names, "finish_order": finish}
                        ),
                        json.dumps({"finish_order": finish, "idiot": finish[-1]}),
                        outcome,
                        when,
                    )
                )
                for player in table:
                    seats.append(
                        (
                            ids[GameSeat].take(),
                            record,
                            player.pk,
                            player.display_name,
                            place_of[player.pk],
                        )
                    )
            _copy(
                SpazzumazzGame,
                ["id", "club_id", "season_id", "played_at", "size", "created_at"],
                games,
            )
            place_columns = ["id", "game_id", "player_id", "turn", "place", "played_at", "size"]
            _copy(SpazzumazzPlace, place_columns, places)
            _copy(Outcome, self.OUTCOME, outcomes)
            _copy(GameRecord, self.RECORD, records)
            _copy(GameSeat, self.SEAT, seats)

    def _two_player(self, club, people, count, rng, game_name, record_of, rate):
        kind = ContentType.objects.get_for_model(GameRecord).pk
        ids = {m: Ids(m) for m in (Outcome, GameRecord, GameSeat, RatingChange)}
        times = self._times(rng, count)
        ratings: dict[int, list[float]] = {}
        sequence = 0
        for start, size in self._chunks(count):
            outcomes, records, seats, changes = [], [], [], []
            for when in times[start : start + size]:
                winner, loser = self._table(rng, 2)
                record_id, outcome = ids[GameRecord].take(), ids[Outcome].take()
                record, result = record_of(rng, winner.display_name, loser.display_name)
                outcomes.append(
                    self._outcome_row(club, kind, outcome, record_id, when, {"winner": winner.pk})
                )
                records.append(
                    (
                        record_id,
                        club.pk,
                        self._season(when),
                        game_name,
                        when,
                        json.dumps(record),
                        json.dumps(result),
                        outcome,
                        when,
                    )
                )
                seats.append((ids[GameSeat].take(), record_id, winner.pk, winner.display_name, 1))
                seats.append((ids[GameSeat].take(), record_id, loser.pk, loser.display_name, 2))
                if rate:
                    sequence += 1
                    for player, row in rate(ratings, winner.pk, loser.pk):
                        mu, sigma, display, delta = row
                        changes.append(
                            (
                                ids[RatingChange].take(),
                                club.pk,
                                player,
                                game_name,
                                outcome,
                                sequence,
                                when,
                                mu,
                                sigma,
                                display,
                                delta,
                            )
                        )
            _copy(Outcome, self.OUTCOME, outcomes)
            _copy(GameRecord, self.RECORD, records)
            _copy(GameSeat, self.SEAT, seats)
            _copy(
                RatingChange,
                [
                    "id",
                    "club_id",
                    "player_id",
                    "game",
                    "outcome_id",
                    "sequence",
                    "at",
                    "mu",
                    "sigma",
                    "display",
                    "delta",
                ],
                changes,
            )
        if rate:
            PlayerRating.objects.bulk_create(
                [
                    PlayerRating(
                        club=club,
                        player_id=player,
                        game=game_name,
                        mu=mu,
                        sigma=sigma,
                        display=mu - 2 * sigma,
                        games=n,
                        provisional=n < 10,
                    )
                    for player, (mu, sigma, n) in ratings.items()
                ],
                batch_size=5000,
            )

    def _sputo(self, club, people, count, rng) -> None:
        def record_of(rng, winner, loser):
            left = rng.randint(1, 20)
            return (
                {
                    "game": "sputo",
                    "variant": "modern",
                    "players": [winner, loser],
                    "winner": winner,
                    "loser_cards_left": left,
                },
                {"winner": winner, "loser_cards_left": left},
            )

        def elo(ratings, winner, loser):
            """A stand-in for Glicko-2 (see the module's docstring)."""
            w = ratings.setdefault(winner, [1500.0, 350.0, 0])
            lo = ratings.setdefault(loser, [1500.0, 350.0, 0])
            expected = 1 / (1 + 10 ** ((lo[0] - w[0]) / 400))
            step = 32 * (1 - expected)
            rows = []
            for player, r, sign in ((winner, w, 1), (loser, lo, -1)):
                before = r[0] - 2 * r[1]
                r[0] += sign * step
                r[1] = max(50.0, r[1] * 0.97)
                r[2] += 1
                rows.append((player, (r[0], r[1], r[0] - 2 * r[1], r[0] - 2 * r[1] - before)))
            return rows

        self._two_player(club, people, count, rng, "sputo", record_of, elo)

    def _singapore(self, club, people, count, rng) -> None:
        def record_of(rng, winner, loser):
            quotas = rng.randint(2, 6)
            stake = {
                "dealer": winner,
                "opponent": loser,
                "dealer_quotas": quotas,
                "covers": {loser: quotas},
                "winner": winner,
            }
            points = quotas * rng.randint(1, 4)
            return (
                {"game": "singapore", "stake": stake},
                {
                    "transfers": [{"from": loser, "to": winner, "points": points}],
                    "balances": {winner: points, loser: -points},
                },
            )

        self._two_player(club, people, count, rng, "singapore", record_of, None)
