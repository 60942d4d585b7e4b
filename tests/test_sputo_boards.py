"""Sputo on the boards' pages: the leaderboard (rating, matches won and lost, tournaments
won), a player's section (tournaments entered, matches, statistics, the rating chart) and a
club night's section (standings and the night's matches, on the page and in the e-mail), on
a small cup worked out by hand; constant query counts; the cached pages refreshed by a
result that changes no rating."""

from datetime import UTC, date, datetime, timedelta
from types import SimpleNamespace

import pytest
from django.core import mail
from django.db import connection
from django.template.loader import render_to_string
from django.test.utils import CaptureQueriesContext
from django.utils import translation

from clubs import services as club_services
from matches.boards import night_of
from matches.boards.charts import line_chart
from matches.boards.tasks import send_night_report
from matches.results import steps
from matches.sputo import boards
from matches.sputo.tasks import update_sputo_ratings
from tests.sputo_world import drawn, match_at

pytestmark = pytest.mark.django_db

T0 = datetime(2025, 3, 7, 20, 30, tzinfo=UTC)  # a Friday, 21:30 in Rome
MINUTE = timedelta(minutes=1)


def game(winner, cards_left=3):
    return {"winner": winner.pk, "cards_left": cards_left}


def report(match, payload, *, at, by):
    return steps.report_outcome(subject=match, payload=payload, by=by, at=at)


@pytest.fixture
def club(people):
    return people["club"]


@pytest.fixture
def cup(people, club, django_capture_on_commit_callbacks):
    """A cup of four, best of three, with a third-place match, played on the night of
    7 March 2025 (seeds: Anna 1, Bruno 2, Carla 3, Dario 4):

    - semi-finals: Anna beats Dario 2-1; Carla goes through by walkover (Bruno absent);
    - final: Carla beats Anna 2-0;
    - third place, after midnight: Bruno wins a game, then retires: Dario is third.

    So, by hand: Carla 1st, Anna 2nd, Dario 3rd, Bruno 4th. Matches won-lost (walkovers do
    not count): Anna 1-1, Carla 1-0, Dario 1-1, Bruno 0-1. Games: Anna 2-3, Carla 2-0,
    Dario 1-3, Bruno 1-0."""
    admin = people["admin"]
    anna, bruno, carla, dario = (
        club_services.add_guest(club=club, display_name=name)
        for name in ("Anna", "Bruno", "Carla", "Dario")
    )
    with django_capture_on_commit_callbacks(execute=True):
        cup = drawn(
            club,
            admin,
            [anna, bruno, carla, dario],
            name="Coppa di marzo",
            starts_at=T0,
            best_of=3,
            third_place=True,
        )
    with django_capture_on_commit_callbacks(execute=True):
        semi_1, semi_2 = match_at(cup, 1, 0), match_at(cup, 1, 1)
        report(
            semi_1, {"games": [game(anna), game(dario), game(anna)]}, at=T0 + 20 * MINUTE, by=admin
        )
        report(semi_2, {"walkover": carla.pk}, at=T0 + 25 * MINUTE, by=admin)
    with django_capture_on_commit_callbacks(execute=True):
        final = match_at(cup, 2, 0)
        report(final, {"games": [game(carla), game(carla)]}, at=T0 + 60 * MINUTE, by=admin)
    with django_capture_on_commit_callbacks(execute=True):
        third = match_at(cup, 2, 0, kind="third_place")
        report(third, {"retired": bruno.pk, "games": [game(bruno)]}, at=T0 + 240 * MINUTE, by=admin)
    cup.refresh_from_db()
    return SimpleNamespace(
        tournament=cup,
        anna=anna,
        bruno=bruno,
        carla=carla,
        dario=dario,
        matches=[semi_1, semi_2, final, third],
        admin=admin,
    )


# --- The leaderboard -----------------------------------------------------------------------------


def board_rows(club, **kwargs):
    board = boards.leaderboard(club, **kwargs)
    return board, {
        row["name"]: (row["games"], row["won"], row["lost"], row["tournaments_won"])
        for row in board.rows
    }


def test_the_leaderboard_counts_matches_won_and_lost_and_tournaments_won(club, cup):
    board, rows = board_rows(club)
    assert rows == {
        "Anna": (2, 1, 1, 0),
        "Bruno": (1, 0, 1, 0),  # the walkover he gave counts for nobody
        "Carla": (1, 1, 0, 1),
        "Dario": (2, 1, 1, 0),
    }
    assert [c.key for c in board.columns][:5] == [
        "rating",
        "games",
        "won",
        "lost",
        "tournaments_won",
    ]
    assert all(row["rating"] is not None and row["provisional"] for row in board.rows)
    assert board.sorted_rows("tournaments_won")[0]["name"] == "Carla"
    _board, at_least_two = board_rows(club, min_games=2)
    assert set(at_least_two) == {"Anna", "Dario"}
    assert boards.leaderboard(club, min_games=3) is None


def test_a_seasons_leaderboard_counts_that_seasons_tournaments_only(club, cup, people):
    spring = club_services.create_season(
        club=club, name="Primavera", start=date(2025, 4, 1), end=date(2025, 6, 30)
    )
    assert boards.leaderboard(club, season=spring) is None  # the cup was in March
    with translation.override("en"):
        winter = club_services.create_season(
            club=club, name="Inverno", start=date(2025, 1, 1), end=date(2025, 3, 31)
        )
        cup.tournament.season = winter
        cup.tournament.save(update_fields=["season"])
        board, rows = board_rows(club, season=winter)
    assert rows["Carla"] == (1, 1, 0, 1)
    assert "this season" in board.note


def test_a_club_without_tournaments_has_no_sputo_leaderboard(club):
    assert boards.leaderboard(club) is None


# --- The player's section ------------------------------------------------------------------------


def test_a_players_section_has_the_tournament_its_matches_and_statistics(club, cup):
    with translation.override("en"):
        section = boards.player_section(cup.anna)
    context = section.context
    assert context["statistics"] == {
        "won": 1,
        "lost": 1,
        "games_won": 2,
        "games_lost": 3,
        "tournaments": 1,
        "tournaments_won": 0,
        "best": "2nd",
    }
    [entry] = context["entries"]
    assert (entry.place, entry.round_label) == (2, "Final")
    assert [
        (m["round_label"], m["opponent"].display_name, m["score"], m["won"]) for m in entry.matches
    ] == [("Semi-finals", "Dario", "2–1", True), ("Final", "Carla", "0–2", False)]
    carla = boards.player_section(cup.carla).context
    assert carla["statistics"]["tournaments_won"] == 1 and carla["statistics"]["won"] == 1
    walkover = carla["entries"][0].matches[0]
    assert walkover["won"] and not walkover["counted"] and walkover["score"] == ""
    bruno = boards.player_section(cup.bruno).context
    assert (bruno["statistics"]["games_won"], bruno["statistics"]["lost"]) == (1, 1)
    assert bruno["entries"][0].place == 4


def test_a_running_tournament_says_who_is_still_in(
    club, people, django_capture_on_commit_callbacks
):
    players = [
        club_services.add_guest(club=club, display_name=n) for n in ("Ugo", "Vera", "Zeno", "Lia")
    ]
    with django_capture_on_commit_callbacks(execute=True):
        running = drawn(club, people["admin"], players, starts_at=T0)
        semi = match_at(running, 1, 0)
        report(semi, {"games": [game(players[0])]}, at=T0 + MINUTE, by=people["admin"])
    ugo = boards.player_section(players[0]).context["entries"][0]
    lia = boards.player_section(players[3]).context["entries"][0]
    vera = boards.player_section(players[1]).context["entries"][0]
    assert ugo.still_in and ugo.place is None
    assert not lia.still_in and lia.matches[0]["lost"]
    assert vera.still_in and vera.matches == []  # her semi-final is still to be played


def test_a_player_without_tournaments_has_no_sputo_section(club, cup):
    nobody = club_services.add_guest(club=club, display_name="Nessuno")
    assert boards.player_section(nobody) is None


def test_the_rating_chart_marks_the_provisional_ratings(
    club, people, django_capture_on_commit_callbacks
):
    anna, bruno = (club_services.add_guest(club=club, display_name=n) for n in ("Anna", "Bruno"))
    for n in range(6):
        with django_capture_on_commit_callbacks(execute=True):
            duel = drawn(
                club,
                people["admin"],
                [anna, bruno],
                starts_at=T0 + timedelta(days=n),
                name=f"Sfida {n}",
            )
            report(
                match_at(duel, 1, 0),
                {"games": [game(anna)]},
                at=T0 + timedelta(days=n, hours=1),
                by=people["admin"],
            )
    with translation.override("en"):
        chart = boards.player_section(anna).context["chart"]
    assert [value.endswith("(provisional)") for _day, value in chart.rows] == [True] * 4 + [
        False
    ] * 2
    assert chart.provisional_path and chart.path  # dashed, then solid
    values = [float(value.split()[0].replace(",", "")) for _day, value in chart.rows]
    assert values == sorted(values)  # six wins: the rating only goes up


def test_a_chart_dashes_its_provisional_start():
    chart = line_chart(
        "c",
        [("a", 1.0), ("b", 2.0), ("c", 3.0), ("d", 4.0)],
        title="T",
        description="D",
        provisional=2,
    )
    assert chart.provisional_path.count("L") == 2  # a, b and on to c, the first firm point
    assert chart.path.count("L") == 1  # c to d
    assert [value for _label, value in chart.rows] == [
        "1.0 (provisional)",
        "2.0 (provisional)",
        "3.0",
        "4.0",
    ]
    everything = line_chart(
        "c", [("a", 1.0), ("b", 2.0)], title="T", description="D", provisional=5
    )
    assert everything.provisional_path and everything.path == ""


# --- The club night ------------------------------------------------------------------------------


def test_the_night_has_the_standings_and_the_nights_matches_after_midnight_too(club, cup):
    with translation.override("en"):
        section = boards.club_night_section(club, day=night_of(T0))
    [row] = section.context["tournaments"]
    assert [
        (s["place_label"], s["player"].display_name, s["round_label"]) for s in row["standings"]
    ] == [
        ("1st", "Carla", "Final"),
        ("2nd", "Anna", "Final"),
        ("3rd", "Dario", "Semi-finals"),
        ("4th", "Bruno", "Semi-finals"),
    ]
    assert [
        (m["first"].display_name, m["second"].display_name, m["score"], str(m["how"]))
        for m in row["matches"]
    ] == [
        ("Anna", "Dario", "2–1", ""),
        ("Carla", "Bruno", "", "Walkover"),
        ("Carla", "Anna", "2–0", ""),
        ("Dario", "Bruno", "0–1", "Retirement"),  # the winner first, who lost the only game
    ]
    assert boards.club_night_section(club, day=night_of(T0) + timedelta(days=1)) is None
    assert boards.club_night_section(club, day=night_of(T0) - timedelta(days=1)) is None


def test_a_night_shows_only_the_matches_decided_that_night(
    club, cup, django_capture_on_commit_callbacks
):
    """A second cup started the same night and finished a week later: each night its own
    matches, and the standings with the final."""
    admin = cup.admin
    with django_capture_on_commit_callbacks(execute=True):
        later = drawn(
            club, admin, [cup.anna, cup.bruno], starts_at=T0 + 2 * MINUTE, name="Coppa lunga"
        )
    week = timedelta(days=7)
    with django_capture_on_commit_callbacks(execute=True):
        report(match_at(later, 1, 0), {"games": [game(cup.bruno)]}, at=T0 + week, by=admin)
    first_night = boards.club_night_section(club, day=night_of(T0)).context["tournaments"]
    assert [r["tournament"].name for r in first_night] == ["Coppa di marzo"]
    [second] = boards.club_night_section(club, day=night_of(T0 + week)).context["tournaments"]
    assert second["tournament"].name == "Coppa lunga"
    assert [s["player"].display_name for s in second["standings"]] == ["Bruno", "Anna"]


def test_the_nights_email_has_the_standings_in_the_clubs_language(club, cup):
    club.memberships.filter(user=cup.admin).update(night_report=True)
    assert send_night_report(club.pk, night_of(T0).isoformat()) == "sent to 1"
    [message] = mail.outbox
    assert "== Sputo ==" in message.body
    assert "Classifica:" in message.body and "1º Carla (Finale)" in message.body
    assert "4º Bruno (Semifinali)" in message.body
    assert "Carla – Anna 2–0" in message.body and "(ritiro)" in message.body
    html = message.alternatives[0][0]
    assert "Coppa di marzo" in html and "<strong>Carla</strong>" in html


def test_the_text_of_a_running_tournament_says_the_standings_come_later(
    club, people, django_capture_on_commit_callbacks
):
    players = [
        club_services.add_guest(club=club, display_name=n) for n in ("Ugo", "Vera", "Zeno", "Lia")
    ]
    with django_capture_on_commit_callbacks(execute=True):
        running = drawn(club, people["admin"], players, starts_at=T0)
        report(
            match_at(running, 1, 0),
            {"games": [game(players[0])]},
            at=T0 + MINUTE,
            by=people["admin"],
        )
    with translation.override("en"):
        section = boards.club_night_section(club, day=night_of(T0))
        text = render_to_string(section.text_template, {**section.context, "club": club})
    assert "Still running: the standings come with the final." in text
    assert "Semi-finals: Ugo – Lia 1–0" in text


# --- The pages -----------------------------------------------------------------------------------


@pytest.fixture
def english(client):
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "en"
    return client


def test_the_pages_show_the_sputo_sections_with_data(english, club, cup):
    player = english.get(f"/clubs/{club.slug}/players/{cup.anna.pk}/").content.decode()
    assert 'id="player-sputo"' in player and "Coppa di marzo" in player
    assert f'id="sputo-rating-{cup.anna.pk}"' in player and "<desc id=" in player
    assert "Dashed: provisional" in player
    board = english.get(f"/clubs/{club.slug}/leaderboards/").content.decode()
    assert 'id="board-sputo"' in board and "Tournaments won" in board
    night = english.get(f"/clubs/{club.slug}/nights/{night_of(T0).isoformat()}/").content.decode()
    assert 'id="night-sputo"' in night and "Standings" in night and "1st" in night


def test_the_pages_hide_the_sputo_sections_without_data(english, club):
    lonely = club_services.add_guest(club=club, display_name="Solo")
    assert (
        'id="player-sputo"'
        not in english.get(f"/clubs/{club.slug}/players/{lonely.pk}/").content.decode()
    )
    assert (
        'id="board-sputo"' not in english.get(f"/clubs/{club.slug}/leaderboards/").content.decode()
    )
    night = english.get(f"/clubs/{club.slug}/nights/{night_of(T0).isoformat()}/").content.decode()
    assert 'id="night-sputo"' not in night


def test_a_walkover_refreshes_the_cached_player_page(
    english, club, people, django_capture_on_commit_callbacks
):
    """A walkover changes no rating, so the rating task bumps nothing: the service does."""
    players = [
        club_services.add_guest(club=club, display_name=n) for n in ("Ugo", "Vera", "Zeno", "Lia")
    ]
    with django_capture_on_commit_callbacks(execute=True):
        running = drawn(club, people["admin"], players, starts_at=T0)
    url = f"/clubs/{club.slug}/players/{players[0].pk}/"
    before = english.get(url).content.decode()
    assert "No match decided yet." in before
    with django_capture_on_commit_callbacks(execute=True):
        report(
            match_at(running, 1, 0), {"walkover": players[0].pk}, at=T0 + MINUTE, by=people["admin"]
        )
    after = english.get(url).content.decode()
    assert "No match decided yet." not in after and "won · walkover" in after


# --- Queries -------------------------------------------------------------------------------------


def knockouts(club, admin, players, count, *, start, capture):
    """``count`` finished cups of four, a day apart, the first seed winning every match."""
    for n in range(count):
        at = start + timedelta(days=n)
        with capture(execute=True):
            cup = drawn(club, admin, players, starts_at=at, name=f"Coppa {n}", third_place=True)
        for round_, kind, position in (
            (1, "main", 0),
            (1, "main", 1),
            (2, "main", 0),
            (2, "third_place", 0),
        ):
            match = match_at(cup, round_, position, kind=kind)
            with capture(execute=True):
                report(
                    match,
                    {"games": [game(match.player_a)]},
                    at=at + timedelta(minutes=10 * round_),
                    by=admin,
                )


def count_queries(function):
    with CaptureQueriesContext(connection) as captured:
        function()
    return len(captured)


def test_the_providers_take_as_many_queries_for_a_long_history_as_for_a_short_one(
    club, people, client, django_capture_on_commit_callbacks
):
    players = [
        club_services.add_guest(club=club, display_name=n) for n in ("Ugo", "Vera", "Zeno", "Lia")
    ]
    client.force_login(people["admin"])  # a logged-in page: never the whole-page cache
    client.get("/clubs/")  # the member's own cached bits (the bell's count) warm
    url = f"/clubs/{club.slug}/players/{players[0].pk}/"
    client.get(url)  # this process knows the club's id by its slug from now on
    counts = []
    for count in (2, 12):  # two cups, then fourteen (over a page of history)
        knockouts(
            club,
            people["admin"],
            players,
            count,
            start=T0 + timedelta(days=len(counts) * 30),
            capture=django_capture_on_commit_callbacks,
        )
        update_sputo_ratings(club_id=club.pk)
        day = night_of(T0 + timedelta(days=len(counts) * 30))

        def render():
            section = boards.player_section(players[0])
            render_to_string(
                section.template, {**section.context, "club": club, "player": players[0]}
            )

        def night(day=day):
            section = boards.club_night_section(club, day=day)
            render_to_string(section.template, {**section.context, "club": club})

        counts.append(
            (
                count_queries(render),
                count_queries(night),
                count_queries(lambda: boards.leaderboard(club)),
                count_queries(lambda: client.get(url)),  # the board version was bumped: cold
            )
        )
    print(f"queries (player section, night, leaderboard, player page) at 2 and 14 cups: {counts}")
    assert counts[0] == counts[1]
    section = boards.player_section(players[0])
    assert section.context["statistics"]["tournaments_won"] == 14
    assert section.context["page"].paginator.num_pages == 2
