"""Derived rows by deltas agree with a rebuild from scratch, whatever happens.

A hypothesis state machine plays a club's nights in any order: Spazz'u'mazz games (some
entered late, back-dated before games already counted), Singapore hands at a table for
money, Sputo matches in knockout tournaments; and it corrects and voids any of them. Each
step commits as on a server, so its tasks run (``django_capture_on_commit_callbacks``):
the new results go through the deltas, the corrections, voids and late games through the
replays. At the end every derived row (Spazz'u'mazz statistics, head to head, titles and
ratings; Sputo ratings, final places and tallies; Singapore statistics; the seasons'
championship places and standings, whose rules change mid-season too) equals what ``manage.py
recompute_stats`` builds from scratch, and the ledger's check finds nothing wrong.
"""

from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import timezone
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, precondition, rule, run_state_machine_as_test

from clubs import services as clubs
from ledger import check
from matches import games
from matches.boards.models import PlayerRating, RatingChange
from matches.championship import services as championship
from matches.championship.models import SeasonPlace, SeasonStanding
from matches.championship.standings import rebuild_club as championship_rebuild
from matches.results import steps
from matches.singapore.models import SingaporeStats
from matches.spazzumazz.services import record_spazzumazz_game
from matches.sputo.models import Entrant, SputoTally, TournamentMatch
from tests.singapore_helpers import next_names, open_table, play
from tests.sputo_world import drawn, win
from tests.test_spazzumazz_stats import snapshot as spazzumazz_rows

pytestmark = pytest.mark.django_db

RULES = {
    "events": {
        "sputo": {"points": [10, 6, 3], "participation": 1},
        "singapore_night": {"points": [5, 3, 1], "participation": 1, "min_games": 1},
        "spazzumazz_night": {"points": [4, 2], "participation": 0, "min_games": 1},
    },
    "best_of": 2,
    "min_events": 0,
    "guests": True,
}
NAMES = ("Anna", "Bruno", "Carla", "Dario", "Elena", "Franco", "Gino", "Ida")


def derived(club) -> dict:
    """Every derived row of the club, in a form that compares (sorted, without ids)."""

    def rows(queryset, *fields):
        return sorted(queryset.filter(club=club).values_list(*fields), key=repr)

    return {
        "spazzumazz": spazzumazz_rows(club),
        "sputo": rows(
            RatingChange.objects.filter(game="sputo"),
            *("sequence", "player_id", "outcome_id", "at", "mu", "sigma", "volatility"),
            *("display", "delta"),
        ),
        "sputo_places": sorted(
            Entrant.objects.filter(tournament__club=club).values_list(
                "tournament_id", "player_id", "place"
            )
        ),
        "sputo_tally": rows(
            SputoTally.objects.exclude(matches=0, tournaments_won=0),
            *("season_id", "player_id", "matches", "won", "tournaments_won"),
        ),
        "sputo_now": rows(
            PlayerRating.objects.filter(game="sputo"),
            *("player_id", "mu", "sigma", "volatility", "display", "games", "provisional"),
        ),
        "championship_places": sorted(
            SeasonPlace.objects.filter(season__club=club).values_list(
                "season_id",
                "event__kind",
                "event__day",
                "event__tournament_id",
                "player_id",
                "place",
                "games",
            )
        ),
        "championship": sorted(
            (s, p, v, points, events, wins, best, [{**r, "id": None} for r in results])
            for s, p, v, points, events, wins, best, results in SeasonStanding.objects.filter(
                club=club
            ).values_list(
                "season_id",
                "player_id",
                "version",
                "points",
                "events",
                "wins",
                "best",
                "results",
            )
        ),
        "singapore": rows(
            SingaporeStats.objects,
            *("season_id", "player_id", "hands_played", "hands_won", "net_points"),
            *("net_money", "won_simple", "won_double", "won_quintuple", "biggest_hand"),
            *("quotas_won", "quotas_lost", "history", "last_played_at", "last_record_id"),
        ),
    }


class ClubNights(RuleBasedStateMachine):
    """One club's nights; ``world`` is set by the test (the people and the club)."""

    world: dict
    commit: object

    def __init__(self):
        super().__init__()
        self.atomic = transaction.atomic()
        self.atomic.__enter__()
        world = self.world
        self.club, self.admin, self.scorer = world["club"], world["admin"], world["scorer"]
        self.players = {name: clubs.add_guest(club=self.club, display_name=name) for name in NAMES}
        self.table_world = {"club": self.club, "scorer": self.scorer, "players": self.players}
        self.start = timezone.now() - timedelta(days=10)
        with self.commit(execute=True):
            self.seasons = [
                clubs.create_season(
                    club=self.club,
                    name="Stagione",
                    start=self.start.date(),
                    end=(self.start + timedelta(days=5)).date(),
                ),
                # Today's: the tables' hands and the tournaments are played in it.
                clubs.create_season(
                    club=self.club,
                    name="Stagione 2",
                    start=(self.start + timedelta(days=6)).date(),
                    end=(timezone.now() + timedelta(days=2)).date(),
                ),
            ]
            for season in self.seasons:
                championship.set_championship(season=season, by=self.admin, data=RULES)
            self.table = open_table(self.table_world, NAMES[:4], point_value="0.10", seed=5)
        self.spazz = []  # games recorded
        self.hands = []  # hands recorded
        self.tournaments = 0
        # A rated match to start from: the next result is a delta on it, not the first
        # rating (which every example would otherwise have to reach by chance).
        self.sputo_match(0, True)
        self.sputo_match(0, True)

    def teardown(self):
        try:
            with self.commit(execute=True):
                incremental = derived(self.club)
                for game in games.all():
                    game.rebuild(self.club.pk)
                championship_rebuild(self.club.pk)
                assert derived(self.club) == incremental
                result = check.run()
                assert result.ok, result.problems
        finally:
            transaction.set_rollback(True)
            self.atomic.__exit__(None, None, None)

    # --- The championship's rules, changed mid-season -----------------------------------

    @rule(
        n=st.integers(0, 1),
        best_of=st.one_of(st.none(), st.integers(1, 3)),
        min_games=st.integers(0, 2),
        sputo=st.booleans(),
    )
    def championship_changed(self, n, best_of, min_games, sputo):
        events = {
            "singapore_night": {"points": [5, 3, 1], "participation": 1, "min_games": min_games},
            "spazzumazz_night": {"points": [4, 2], "participation": 0, "min_games": min_games},
        }
        if sputo:
            events["sputo"] = {"points": [10, 6, 3], "participation": 1}
        with self.commit(execute=True):
            championship.set_championship(
                season=self.seasons[n],
                by=self.admin,
                data={"events": events, "best_of": best_of, "min_events": 0, "guests": True},
            )

    # --- Spazz'u'mazz: new games, late games, corrections, voids ---------------------------

    @rule(
        hours=st.integers(0, 200),
        tonight=st.booleans(),
        order=st.permutations(NAMES[:5]),
        size=st.integers(2, 5),
    )
    def spazzumazz_game(self, hours, tonight, order, size):
        """A game at any time (late ones replay), or, as on a club night, after every
        game so far (the delta): half of them each way, so that both paths run."""
        if tonight and self.spazz:
            latest = max(game.played_at for game in self.spazz)
            hours = int((latest - self.start).total_seconds() // 3600) + 1 + hours % 3
        people = [self.players[name] for name in order[:size]]
        with self.commit(execute=True):
            game, _outcome = record_spazzumazz_game(
                club=self.club,
                players=people,
                by=self.scorer,
                finish_order=[p.pk for p in people],
                played_at=self.start + timedelta(hours=hours),
            )
        self.spazz.append(game)

    @precondition(lambda self: self.spazz)
    @rule(n=st.integers(0, 50), data=st.data())
    def spazzumazz_corrected_or_voided(self, n, data):
        game = self.spazz[n % len(self.spazz)]
        if game.outcome_in_force() is None:
            return
        with self.commit(execute=True):
            if data.draw(st.booleans(), label="void"):
                steps.void_outcome(subject=game, by=self.scorer, reason="prova")
            else:
                order = data.draw(st.permutations([p.pk for p in game.players_in_turn_order()]))
                steps.correct_outcome(
                    subject=game, by=self.scorer, reason="prova", payload={"finish_order": order}
                )

    # --- Singapore: hands, corrections, voids ----------------------------------------------

    @rule(winner=st.sampled_from(["dealer", "opponent"]), quotas=st.integers(1, 3))
    def singapore_hand(self, winner, quotas):
        dealer, opponent = next_names(self.table_world, self.table)
        with self.commit(execute=True):
            recorded = play(
                self.table_world, self.table, dealer, opponent, winner=winner, quotas=quotas
            )
        self.hands.append(recorded.hand)

    @precondition(lambda self: self.hands)
    @rule(n=st.integers(0, 50), void=st.booleans(), quotas=st.integers(1, 3))
    def singapore_corrected_or_voided(self, n, void, quotas):
        hand = self.hands[n % len(self.hands)]
        if hand.outcome_in_force() is None:
            return
        with self.commit(execute=True):
            if void:
                steps.void_outcome(subject=hand, by=self.scorer, reason="prova")
            else:
                current = hand.outcome_in_force().payload
                steps.correct_outcome(
                    subject=hand,
                    by=self.scorer,
                    reason="prova",
                    payload={**current, "dealer_quotas": quotas, "covers": {}, "side_bets": []},
                )

    # --- Sputo: knockout matches and their corrections -------------------------------------

    def _ready(self) -> list[TournamentMatch]:
        return list(
            TournamentMatch.objects.filter(
                club=self.club, result="", player_a__isnull=False, player_b__isnull=False
            )
            .select_related("player_a", "player_b", "tournament")
            .order_by("pk")
        )

    @rule(n=st.integers(0, 50), a_wins=st.booleans())
    def sputo_match(self, n, a_wins):
        ready = self._ready()
        with self.commit(execute=True):
            if not ready:
                self.tournaments += 1
                order = [self.players[name] for name in NAMES[self.tournaments % 3 :][:4]]
                drawn(self.club, self.admin, order, name=f"Torneo {self.tournaments}")
                return
            match = ready[n % len(ready)]
            winner = match.player_a if a_wins else match.player_b
            steps.report_outcome(subject=match, payload=win(match, winner), by=self.admin)

    @rule(n=st.integers(0, 50))
    def sputo_corrected(self, n):
        """A played match whose next match is not played yet changes winner."""
        played = [
            m
            for m in TournamentMatch.objects.filter(club=self.club, result="played")
            .select_related("player_a", "player_b", "tournament")
            .order_by("pk")
            if m.outcome_in_force() is not None
            and not TournamentMatch.objects.filter(
                tournament=m.tournament, round__gt=m.round, result__gt=""
            ).exists()
        ]
        if not played:
            return
        match = played[n % len(played)]
        other = match.player_b if match.winner_id == match.player_a_id else match.player_a
        with self.commit(execute=True):
            steps.correct_outcome(
                subject=match, by=self.admin, reason="prova", payload=win(match, other)
            )


def test_every_derived_row_by_deltas_equals_a_rebuild_from_scratch(
    people, django_capture_on_commit_callbacks, monkeypatch
):
    from matches.championship import standings
    from matches.singapore import stats as singapore
    from matches.spazzumazz import stats as spazzumazz
    from matches.sputo import tasks as sputo

    used = {"spazzumazz": 0, "sputo": 0, "singapore": 0, "championship": 0}  # deltas at work

    def counted(module, name, game):
        original = getattr(module, name)

        def wrapper(*args, **kwargs):
            done = original(*args, **kwargs)
            used[game] += done is not None and done != 0
            return done

        monkeypatch.setattr(module, name, wrapper)

    counted(spazzumazz, "_add_later_games", "spazzumazz")
    counted(sputo, "_append", "sputo")
    counted(singapore, "add_record", "singapore")
    counted(standings, "refresh_event", "championship")
    monkeypatch.setattr("matches.singapore.tasks.add_record", singapore.add_record)
    ClubNights.world = people
    ClubNights.commit = staticmethod(django_capture_on_commit_callbacks)
    run_state_machine_as_test(
        ClubNights,
        settings=settings(
            max_examples=12,
            stateful_step_count=14,
            deadline=None,
            suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
        ),
    )
    assert all(used.values()), used  # each game's delta ran, not only the replays
