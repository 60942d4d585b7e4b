"""Singapore statistics: precomputed per player and season by idempotent tasks, the same as a
rebuild from scratch; and the providers of the leaderboards, player page and club night."""

from decimal import Decimal

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from clubs import services as clubs
from clubs.merge import merge_players
from matches.models import SingaporeStats
from matches.results import steps
from matches.singapore import boards
from matches.singapore.stats import rebuild
from tests.singapore_helpers import HEAVY, QUINTUPLE, make_table, open_table, play

pytestmark = pytest.mark.django_db

FIELDS = [
    "hands_played",
    "hands_won",
    "net_points",
    "net_money",
    "won_simple",
    "won_double",
    "won_quintuple",
    "biggest_hand",
    "quotas_won",
    "quotas_lost",
]


@pytest.fixture
def world(make_user):
    return make_table(make_user, ("Anna", "Bruno", "Carla", "Dario"))


@pytest.fixture
def on_commit(django_capture_on_commit_callbacks):
    """Run the tasks queued after commit, as a worker would."""

    def run(call, *args, **kwargs):
        with django_capture_on_commit_callbacks(execute=True):
            return call(*args, **kwargs)

    return run


def figures(world):
    names = {p.pk: n for n, p in world["players"].items()}
    return {
        names[row.player_id]: {f: getattr(row, f) for f in FIELDS}
        for row in SingaporeStats.objects.filter(club=world["club"])
    }


def test_the_worked_example_in_the_statistics(world, on_commit):
    session = open_table(world, "Anna Bruno Carla Dario".split(), first=("Anna", "Bruno"))
    on_commit(
        play, world, session, "Anna", "Bruno", quotas=5, covers={"Bruno": 2, "Carla": 1, "Dario": 2}
    )
    stats = figures(world)
    assert stats["Anna"] == {
        "hands_played": 1,
        "hands_won": 1,
        "net_points": 350,
        "net_money": 0,
        "won_simple": 1,
        "won_double": 0,
        "won_quintuple": 0,
        "biggest_hand": 70,
        "quotas_won": 5,
        "quotas_lost": 0,
    }
    assert stats["Bruno"]["hands_played"] == 1 and stats["Bruno"]["net_points"] == -140
    assert stats["Carla"]["hands_played"] == 0 and stats["Carla"]["quotas_lost"] == 1
    assert stats["Dario"]["net_points"] == -140 and stats["Dario"]["quotas_lost"] == 2


def test_a_void_and_a_correction_are_followed_and_a_rebuild_gives_the_same(world, on_commit):
    session = open_table(
        world, "Anna Bruno Carla".split(), first=("Anna", "Bruno"), point_value="0.10"
    )
    first = on_commit(play, world, session, "Anna", "Bruno", quotas=2, covers={"Bruno": 2})
    second = on_commit(
        play,
        world,
        session,
        "Anna",
        "Carla",
        winner="opponent",
        winner_cards=QUINTUPLE,
        loser_cards=HEAVY,
        covers={"Carla": 1},
    )
    body = dict(first.outcome.payload, winner="opponent")
    on_commit(
        steps.correct_outcome,
        subject=first.hand,
        by=world["scorer"],
        payload=body,
        reason="Ha chiuso Bruno",
    )
    on_commit(steps.void_outcome, subject=second.hand, by=world["scorer"], reason="Prova")
    incremental = figures(world)
    assert incremental["Bruno"]["hands_won"] == 1 and incremental["Bruno"]["net_points"] == 140
    assert incremental["Bruno"]["net_money"] == Decimal("14.00")
    assert "Carla" not in incremental  # her only hand was voided
    SingaporeStats.objects.all().delete()
    call_command("rebuild_singapore_stats")
    assert figures(world) == incremental


def test_rebuilding_twice_or_in_any_order_changes_nothing(world, on_commit):
    session = open_table(world, "Anna Bruno".split(), first=("Anna", "Bruno"))
    for _ in range(3):
        on_commit(play, world, session, "Anna", "Bruno")
    before = figures(world)
    anna = world["players"]["Anna"].pk
    rebuild(world["club"].pk, player_ids=[anna])
    rebuild(world["club"].pk)
    rebuild(world["club"].pk, player_ids=[anna], season_ids=[None])
    assert figures(world) == before
    assert SingaporeStats.objects.count() == 2


def test_a_merged_guest_s_statistics_move_to_the_member(world, on_commit):
    guest = clubs.add_guest(club=world["club"], display_name="Ospite")
    world["players"]["Ospite"] = guest
    session = open_table(world, ["Anna", "Ospite"], first=("Anna", "Ospite"))
    on_commit(play, world, session, "Anna", "Ospite", quotas=2, covers={"Ospite": 2})
    on_commit(merge_players, source=guest, target=world["players"]["Bruno"])
    stats = figures(world)
    assert stats["Bruno"]["net_points"] == -140 and "Ospite" not in stats


def test_the_leaderboard_sorts_filters_and_sums_seasons(world, on_commit):
    club = world["club"]
    clubs.create_season(club=club, name="Ora", start="2000-01-01", end="2999-12-31")
    session = open_table(world, "Anna Bruno Carla".split(), first=("Anna", "Bruno"))
    on_commit(play, world, session, "Anna", "Bruno", quotas=2, covers={"Bruno": 1, "Carla": 1})
    on_commit(play, world, session, "Anna", "Carla", covers={"Carla": 1})
    board = boards.leaderboard(club)
    assert [r["name"] for r in board.sorted_rows()] == ["Anna", "Bruno", "Carla"]
    assert board.rows[0]["net_points"] == 210 and board.unit == "EUR"
    assert [r["name"] for r in boards.leaderboard(club, min_games=2).rows] == ["Anna"]
    season = club.seasons.get()
    assert boards.leaderboard(club, season=season).rows[0]["hands_won"] == 2
    assert boards.leaderboard(club, min_games=3) is None


def test_the_leaderboard_reads_in_as_many_queries_for_3_players_as_for_8(make_user, on_commit):
    counts = []
    for size in (3, 8):
        names = [f"P{size}{n}" for n in range(size)]
        world = make_table(make_user, names) if size == 3 else _second_club(make_user, names)
        session = open_table(world, names, first=(names[0], names[1]))
        on_commit(
            play, world, session, names[0], names[1], quotas=size, covers={n: 1 for n in names[1:]}
        )
        with CaptureQueriesContext(connection) as queries:
            board = boards.leaderboard(world["club"])
        assert len(board.rows) == size
        counts.append(len(queries))
    assert counts[0] == counts[1]


def _second_club(make_user, names):
    from clubs.models import Role

    admin = make_user("ada2")
    club = clubs.create_club(name="Circolo Due", founder=admin)
    scorer = make_user("sam2")
    clubs.add_member(club=club, user=scorer, role=Role.SCORER)
    return {
        "club": club,
        "scorer": scorer,
        "players": {n: clubs.add_guest(club=club, display_name=n) for n in names},
    }


def test_the_player_section_and_the_club_night(world, on_commit):
    session = open_table(world, "Anna Bruno".split(), first=("Anna", "Bruno"))
    for _ in range(2):
        on_commit(play, world, session, "Anna", "Bruno", quotas=2, covers={"Bruno": 2})
    section = boards.player_section(world["players"]["Anna"])
    assert section.context["figures"]["net_points"] == 280
    assert [b for _when, b in section.context["history"]] == [140, 280]
    assert section.context["chart"].rows[-1][1] == "280"  # the text alternative
    assert len(section.context["page"]) == 2
    assert boards.player_section(world["players"]["Carla"]) is None
    night = boards.club_night_section(world["club"], day=session.date)
    (sheet,) = night.context["sheets"]
    assert {t.player.display_name: t.points for t in sheet.totals} == {"Anna": 280, "Bruno": -280}
    from django.template.loader import render_to_string

    text = render_to_string(night.text_template, {**night.context, "money": True})
    assert "Bruno: dare 280" in text and "Anna: avere 280" in text
    hidden = render_to_string(night.text_template, {**night.context, "money": False})
    assert "Anna, Bruno" in hidden and "280" not in hidden and "dare" not in hidden
    assert boards.club_night_section(world["club"], day=session.date.replace(year=2001)) is None
