"""The pages people open on Saturday: the club's leaderboards, a player's page and the
end-of-evening report (page and e-mail), for every game through ``matches/boards.py``'s
providers; the Sputo and Singapore sections are proven here with fake providers. Cached,
invalidated by a correction, and in a constant number of queries at 10 and 1,000 players."""

import random
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from unittest.mock import patch

import pytest
from django.apps import apps
from django.core import mail
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from clubs import services
from clubs.models import Player
from matches import games as matches_games
from matches.boards import Column, Leaderboard, PlayerSection, ReportSection, night_of
from matches.boards.charts import line_chart, player_chart, thinned, wanted
from matches.boards.models import RatingChange
from matches.boards.tasks import send_night_report, send_night_reports
from matches.models import SpazzumazzGame, SpazzumazzPlace
from matches.results import steps
from matches.spazzumazz import boards as stats_boards
from matches.spazzumazz import stats
from matches.spazzumazz.services import record_spazzumazz_game

pytestmark = pytest.mark.django_db

T0 = datetime(2025, 3, 7, 20, 30, tzinfo=UTC)

# --- Fake providers of the two other games (their data switched on per club) ---------------------

HAS_DATA: set[int] = set()


def sputo_board(club, *, season=None, min_games=0, shown=None):  # every row: the page cuts
    if club.pk not in HAS_DATA:
        return None
    rows = [
        {"player": p.pk, "name": p.display_name, "rating": 1500.0 + 10 * n, "won": n, "lost": 1}
        for n, p in enumerate(club.players.active().order_by("pk"))
        if n + 1 >= min_games
    ]
    return Leaderboard(
        game="sputo",
        title="Sputo",
        columns=[
            Column("rating", "Rating", "rating"),
            Column("won", "Won"),
            Column("lost", "Lost"),
        ],
        rows=rows,
        default_sort="rating",
        min_games_key="won",
    )


def singapore_board(club, *, season=None, min_games=0, shown=None):
    if club.pk not in HAS_DATA:
        return None
    return Leaderboard(
        game="singapore",
        title="Singapore",
        columns=[Column("money", "Money", "money")],
        rows=[
            {"player": p.pk, "name": p.display_name, "money": Decimal("12.50")}
            for p in club.players.all()[:1]
        ],
        default_sort="money",
        unit="EUR",
    )


def singapore_section(player, *, season=None, page=1):
    if player.club_id not in HAS_DATA:
        return None
    chart = line_chart(
        "singapore-balance",
        [("1/3", -2.0), ("2/3", 3.5), ("3/3", 1.0)],
        title="Singapore running balance",
        description="The balance after each hand.",
    )
    return PlayerSection(
        game="singapore",
        title="Singapore",
        template="test_singapore_section.html",
        context={"chart": chart, "page": page},
    )


def sputo_night(club, *, day):
    if club.pk not in HAS_DATA:
        return None
    return ReportSection(
        game="sputo",
        title="Sputo",
        template="test_sputo_night.html",
        text_template="test_sputo_night.txt",
        context={"winner": "Tonino"},
    )


def fakes():
    """The house's games with Sputo's and Singapore's boards, a Singapore player section and a
    Sputo night replaced by the fakes above (their columns unknown to the API)."""
    stand_ins = {
        "sputo": {"leaderboard": sputo_board, "columns": (), "club_night_section": sputo_night},
        "singapore": {
            "leaderboard": singapore_board,
            "columns": (),
            "player_section": singapore_section,
        },
    }
    games = tuple(replace(game, **stand_ins.get(game.name, {})) for game in matches_games.all())
    return patch.object(apps.get_app_config("matches"), "games", games)


@pytest.fixture(autouse=True)
def fake_templates(tmp_path, settings):
    (tmp_path / "test_singapore_section.html").write_text(
        '<section id="player-singapore"><h2>Singapore</h2>'
        '{% include "matches/chart.html" with chart=chart %} page {{ page }}</section>'
    )
    (tmp_path / "test_sputo_night.html").write_text("<p>Torneo vinto da {{ winner }}</p>")
    (tmp_path / "test_sputo_night.txt").write_text("Torneo vinto da {{ winner }}")
    settings.TEMPLATES = [
        {**settings.TEMPLATES[0], "DIRS": [*settings.TEMPLATES[0]["DIRS"], tmp_path]}
    ]
    HAS_DATA.clear()
    yield
    HAS_DATA.clear()


@pytest.fixture
def club(people):
    # The leaderboards show by default the players with the house rule's minimum of games:
    # one game here, so that every player of these few games shows.
    services.update_house_rules(
        club=people["club"], game="spazzumazz", values={"idiot_min_games": 1}
    )
    return people["club"]


@pytest.fixture
def table(club, people):
    return [
        club.players.get(user=people["member"]),
        services.add_guest(club=club, display_name="Bea"),
        people["guest"],
    ]


@pytest.fixture
def play(club, table, people, django_capture_on_commit_callbacks):
    def play(order, *, at=0):
        with django_capture_on_commit_callbacks(execute=True):
            return record_spazzumazz_game(
                club=club,
                players=table,
                by=people["scorer"],
                finish_order=[table[i].pk for i in order],
                played_at=T0 + timedelta(minutes=10 * at),
            )[0]

    return play


def five_games(play):
    return [
        play(order, at=n)
        for n, order in enumerate([[0, 1, 2], [1, 0, 2], [2, 1, 0], [0, 2, 1], [1, 2, 0]])
    ]


# --- The leaderboards ----------------------------------------------------------------------------


def test_the_leaderboard_shows_spazzumazz_and_no_section_for_a_game_without_data(
    client, club, play
):
    five_games(play)
    with fakes():
        page = client.get(f"/clubs/{club.slug}/leaderboards/").content.decode()
    assert 'id="board-spazzumazz"' in page
    assert 'id="board-sputo"' not in page and 'id="board-singapore"' not in page


def test_the_sputo_and_singapore_sections_appear_when_their_data_exists(client, club, play, people):
    five_games(play)
    HAS_DATA.add(club.pk)
    client.force_login(people["member"])  # money is for the club's members
    with fakes():
        page = client.get(f"/clubs/{club.slug}/leaderboards/").content.decode()
    assert 'id="board-sputo"' in page and 'id="board-singapore"' in page
    assert "12,50 EUR" in page  # money in the club's currency, in Italian


def test_a_leaderboards_money_column_is_not_shown_to_the_public(client, club, play, people):
    five_games(play)
    HAS_DATA.add(club.pk)
    member = Client()
    member.force_login(people["member"])
    url = f"/clubs/{club.slug}/leaderboards/?sort=singapore.money"
    with fakes():
        seen = member.get(url).content.decode()  # the member's sections cached first
        page = client.get(url).content.decode()
        api = client.get(f"/api/v1/clubs/{club.slug}/leaderboards/singapore/").json()
    assert "12,50 EUR" in seen
    assert 'id="board-singapore"' in page and "12,50" not in page and "EUR" not in page
    assert api["columns"] == [] and api["unit"] == ""
    assert all("money" not in row for row in api["rows"])


def test_a_leaderboard_sorts_by_a_column_either_way_and_filters_by_games(client, club, play, table):
    five_games(play)
    play([2, 0, 1], at=9)  # six games each; Bea the idiot of two, Mia and Pino of two
    url = f"/clubs/{club.slug}/leaderboards/"

    def names(**params):
        page = client.get(url, params).content.decode()
        section = page.split('id="board-spazzumazz"')[1].split("</section>")[0]
        return sorted((p.display_name for p in table), key=lambda n: section.find(f">{n}<"))

    by_rating = [
        r["name"]
        for r in client.get(
            f"/api/v1/clubs/{club.slug}/leaderboards/spazzumazz/", {"ordering": "-rating"}
        ).json()["rows"]
    ]
    assert names(sort="spazzumazz.rating") == by_rating
    assert names(sort="spazzumazz.rating", dir="asc") == by_rating[::-1]
    sorted_page = client.get(url, {"sort": "spazzumazz.games", "dir": "asc"}).content.decode()
    assert 'aria-sort="ascending"' in sorted_page
    assert 'id="board-spazzumazz"' in client.get(url, {"min_games": 6}).content.decode()
    assert 'id="board-spazzumazz"' not in client.get(url, {"min_games": 7}).content.decode()


def test_a_long_leaderboard_shows_fifty_players_then_all_on_demand(client, make_user):
    club = services.create_club(name="Circolo Grande", founder=make_user("capo"))
    bulk_history(club, 70, games=150)
    url = f"/clubs/{club.slug}/leaderboards/"
    page = client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    section = page.split('id="board-spazzumazz"')[1]
    assert section.count("/players/") == 50 and "Show 20 more players" in section
    every = client.get(url, {"all": "spazzumazz"}).content.decode()
    assert every.split('id="board-spazzumazz"')[1].count("/players/") == 70


def test_a_private_clubs_leaderboard_is_for_its_members(client, people, club, play):
    five_games(play)
    club.is_public = False
    club.save()
    assert client.get(f"/clubs/{club.slug}/leaderboards/").status_code == 404
    client.force_login(people["member"])
    assert client.get(f"/clubs/{club.slug}/leaderboards/").status_code == 200


# --- The player page -----------------------------------------------------------------------------


def test_a_players_page_has_statistics_head_to_head_charts_and_history(client, club, play, table):
    for n in range(20):
        play([n % 3, (n + 1) % 3, (n + 2) % 3], at=n)
    page = client.get(
        f"/clubs/{club.slug}/players/{table[2].pk}/", HTTP_ACCEPT_LANGUAGE="en"
    ).content.decode()
    assert 'id="player-spazzumazz"' in page
    assert page.count('role="img"') == 2  # rating and idiot rate, each with a text alternative
    assert "<title id=" in page and "<desc id=" in page and "chart-data" in page
    assert "Head to head" in page or "Testa a testa" in page
    assert page.count('class="num idiot"') + page.count('class="num"') > 0
    older = client.get(
        f"/clubs/{club.slug}/players/{table[2].pk}/", {"game": "spazzumazz", "page": 2}
    ).content.decode()
    assert "2/2" in older or "Pagina 2" in older or "Page 2" in older


def test_the_singapore_chart_appears_on_the_player_page_when_its_data_exists(
    client, club, play, table, django_capture_on_commit_callbacks
):
    five_games(play)
    with fakes():
        before = client.get(f"/clubs/{club.slug}/players/{table[0].pk}/").content.decode()
        HAS_DATA.add(club.pk)
        with django_capture_on_commit_callbacks(execute=True):  # the bump follows the commit
            stats.boards.bump(club.pk, "spazzumazz")
        after = client.get(f"/clubs/{club.slug}/players/{table[0].pk}/").content.decode()
    assert 'id="player-singapore"' not in before
    assert 'id="player-singapore"' in after and 'id="singapore-balance"' in after


def test_a_player_without_games_has_a_page_without_sections(client, club):
    lonely = services.add_guest(club=club, display_name="Solo")
    page = client.get(f"/clubs/{club.slug}/players/{lonely.pk}/")
    assert page.status_code == 200 and 'id="player-spazzumazz"' not in page.content.decode()


def test_a_long_historys_charts_read_only_the_points_they_show_and_equal_the_whole_line(
    club, play, table
):
    """130 games (more than a chart draws): the rating and idiot-rate charts, read thinned by
    the database, are the charts of the player's whole line, drawn in Python from every
    game; and a count that is off by one either way is found out and the rows counted."""
    rng = random.Random(7)
    for n in range(130):
        play(rng.sample(range(3), 3), at=n)
    me = table[1]
    rows = RatingChange.objects.filter(player=me, game="spazzumazz")
    everything = list(rows.order_by("sequence").values_list("at", "display"))
    places = SpazzumazzPlace.objects.filter(player=me, place__isnull=False).order_by(
        "game__played_at", "game_id"
    )
    rates, idiots = [], 0
    for n, (at, place, size) in enumerate(
        places.values_list("game__played_at", "place", "game__size"), 1
    ):
        idiots += place == size
        rates.append((at, idiots / n))

    section = stats_boards.player_section(me)
    rating_chart, rate_chart = section.context["charts"]

    def drawn(points, **options):
        return player_chart(me, "x", points, title="T", description="%(n)s", **options)

    for chart, whole, options in (
        (rating_chart, everything, {}),
        (rate_chart, rates, {"percent": True, "y_range": (0.0, 1.0)}),
    ):
        expected = drawn(whole, **options)
        assert (chart.path or chart.provisional_path) and len(chart.rows) == 60
        assert (chart.area, chart.y_labels, chart.x_labels, chart.rows[-5:]) == (
            expected.area,
            expected.y_labels,
            expected.x_labels,
            expected.rows[-5:],
        )
    assert "130" in rate_chart.description

    def read(count):
        return thinned(
            rows, ["sequence"], lambda r: (r["at"], r["display"]), "at", "display", count=count
        )

    right = read(len(everything))
    assert right.count == 130 and len(right.points) == len(wanted(130)) < 130
    assert read(129) == right == read(131) == read(None)


def test_a_players_history_is_in_the_games_order_and_follows_a_game_moved_in_the_admin(
    club, play, table, people
):
    """Each place keeps its game's time (the index the history is read by): a game recorded
    late, back-dated, takes its place among the earlier ones, and a game whose time the
    admin changes moves with its places."""
    from django.contrib import admin as django_admin
    from django.test import RequestFactory

    games = [play([0, 1, 2], at=n) for n in (5, 6, 7)]
    late = play([2, 1, 0], at=1)  # recorded last, played first
    me = table[0]
    for game in (*games, late):
        assert {(p.played_at, p.size) for p in game.places.all()} == {(game.played_at, 3)}

    def history():
        return [row["game"].pk for row in stats_boards.player_section(me).context["history"]]

    assert history() == [games[2].pk, games[1].pk, games[0].pk, late.pk]
    late.played_at = T0 + timedelta(hours=2)  # corrected in the admin: the latest game now
    late.save()
    form = type("Form", (), {"instance": late, "save_m2m": lambda self: None})()
    request = RequestFactory().post("/admin/")
    request.user = people["admin"]
    django_admin.site._registry[SpazzumazzGame].save_related(request, form, [], change=True)
    assert history() == [late.pk, games[2].pk, games[1].pk, games[0].pk]


def test_charts_are_svg_that_scales_with_a_text_alternative():
    chart = line_chart(
        "c", [("a", 0.0), ("b", 0.5), ("c", 0.25)], title="T", description="D", percent=True
    )
    assert chart.path.startswith("M") and chart.rows == [("a", "0%"), ("b", "50%"), ("c", "25%")]
    assert line_chart("c", [("a", 1.0)], title="T", description="D") is None
    many = line_chart("m", [(str(n), float(n)) for n in range(1000)], title="T", description="D")
    assert many.path.count("L") < 200 and len(many.rows) == 60


# --- Caching and queries -------------------------------------------------------------------------


def test_a_correction_refreshes_the_cached_leaderboard(
    client, club, play, people, table, django_capture_on_commit_callbacks
):
    games = five_games(play)
    url = f"/clubs/{club.slug}/leaderboards/"

    def board():
        return client.get(url).content.decode().split('id="board-spazzumazz"')[1]

    first = board()
    assert board() == first  # served from the cache
    with django_capture_on_commit_callbacks(execute=True):
        steps.correct_outcome(
            subject=games[0],
            by=people["scorer"],
            reason="Bea era l'idiota",
            payload={"finish_order": [table[0].pk, table[2].pk, table[1].pk]},
        )
    second = board()
    assert second != first
    row = stats.SpazzumazzStats.objects.get(player=table[1], season=None)
    assert row.idiot == 2


def test_renaming_a_player_refreshes_the_cached_leaderboard(
    client, club, play, table, django_capture_on_commit_callbacks
):
    five_games(play)
    url = f"/clubs/{club.slug}/leaderboards/"
    assert table[1].display_name in client.get(url).content.decode()  # now in the cache
    with django_capture_on_commit_callbacks(execute=True):
        services.rename_player(player=table[1], display_name="Beatrice la Grande")
    page = client.get(url).content.decode()
    assert "Beatrice la Grande" in page


def bulk_history(club, players: int, games: int, seed: int = 1):
    """A club with ``players`` guests and ``games`` games of 3 to 5 of them, written in bulk
    and rebuilt by the same code as the tasks."""
    rng = random.Random(seed)
    services.update_house_rules(club=club, game="spazzumazz", values={"idiot_min_games": 1})
    people = Player.objects.bulk_create(
        Player(club=club, display_name=f"Giocatore {n:04d}") for n in range(players)
    )
    made = SpazzumazzGame.objects.bulk_create(
        SpazzumazzGame(club=club, played_at=T0 - timedelta(hours=games - n), size=0)
        for n in range(games)
    )
    places = []
    for game in made:
        table = rng.sample(people, rng.randint(3, 5))
        game.size = len(table)
        for turn, player in enumerate(table):
            places.append(
                SpazzumazzPlace(
                    game=game,
                    player=player,
                    turn=turn,
                    place=turn + 1,
                    played_at=game.played_at,
                    size=game.size,
                )
            )
    SpazzumazzGame.objects.bulk_update(made, ["size"])
    SpazzumazzPlace.objects.bulk_create(places)
    stats.rebuild_club(club.pk)
    return people


def queries(client, url) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url).status_code == 200
    return len(captured)


@pytest.mark.parametrize("page", ["leaderboards", "player"])
def test_the_pages_take_as_many_queries_at_1000_players_as_at_10(client, people, make_user, page):
    counts = {}
    for size in (10, 1000):
        admin = make_user(f"admin{size}")
        club = services.create_club(name=f"Circolo {size}", founder=admin)
        people_ = bulk_history(club, size, games=size * 2)
        url = (
            f"/clubs/{club.slug}/leaderboards/"
            if page == "leaderboards"
            else f"/clubs/{club.slug}/players/{people_[0].pk}/"
        )
        client.force_login(admin)
        counts[size] = (queries(client, url), queries(client, url))  # cold, then cached
    print(f"{page}: queries (cold, cached) at 10 and 1000 players: {counts}")
    assert counts[10] == counts[1000], counts
    cold, warm = counts[1000]
    assert warm < cold <= 20, counts


# --- The club night ------------------------------------------------------------------------------


def test_the_night_page_has_every_games_section(client, club, play):
    five_games(play)
    HAS_DATA.add(club.pk)
    day = night_of(T0)
    with fakes():
        page = client.get(f"/clubs/{club.slug}/nights/{day.isoformat()}/").content.decode()
        listing = client.get(f"/clubs/{club.slug}/nights/").content.decode()
    assert 'id="night-spazzumazz"' in page and "Torneo vinto da Tonino" in page
    assert day.isoformat() in listing
    empty = client.get(f"/clubs/{club.slug}/nights/2020-01-01/").content.decode()
    assert "night-spazzumazz" not in empty
    assert client.get(f"/clubs/{club.slug}/nights/not-a-day/").status_code == 404


def test_the_report_is_mailed_once_to_the_members_who_asked(client, club, play, people, make_user):
    five_games(play)
    HAS_DATA.add(club.pk)
    client.force_login(people["member"])
    client.post("/accounts/profile/night-reports/", {"club": [club.pk, people["other"].pk]})
    profile = client.get("/accounts/profile/").content.decode()
    reports = profile[
        profile.index('id="night-reports"') : profile.index(
            "</form>", profile.index('id="night-reports"')
        )
    ]
    assert reports.count("checked") == 1
    day = night_of(T0).isoformat()
    with fakes():
        assert send_night_report(club.pk, day) == "sent to 1"
        assert send_night_report(club.pk, day) == "already sent"
    [message] = mail.outbox
    assert message.to == [people["member"].email]
    assert "Zio Pino" in message.body and "Torneo vinto da Tonino" in message.body
    html = message.alternatives[0][0]
    assert "<html" in html and 'class="idiot"' in html
    client.post("/accounts/profile/night-reports/", {})
    assert not club.memberships.filter(night_report=True).exists()


def test_the_morning_task_queues_last_nights_reports(
    club, play, people, client, django_capture_on_commit_callbacks
):
    five_games(play)
    client.force_login(people["admin"])
    client.post("/accounts/profile/night-reports/", {"club": [club.pk]})
    for _ in range(2):  # each report is queued (through the outbox) and sent once
        with django_capture_on_commit_callbacks(execute=True):
            assert send_night_reports(night_of(T0).isoformat()) == 1
        assert len(mail.outbox) == 1
    assert send_night_reports("2020-01-01") == 0


def test_anonymous_visitors_get_the_page_from_the_cache_with_their_own_csrf_token(club, play):
    import re

    from django.test import Client

    five_games(play)
    url = f"/clubs/{club.slug}/leaderboards/"
    Client().get(url)  # fills the cache
    for _ in range(2):
        visitor = Client(enforce_csrf_checks=True)
        page = visitor.get(url)
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.content.decode())
        assert token and "csrf-hole" not in token.group(1)
        switched = visitor.post(
            "/i18n/setlang/", {"language": "en", "next": url, "csrfmiddlewaretoken": token.group(1)}
        )
        assert switched.status_code == 302
    club.is_public = False
    club.save()
    assert Client().get(url).status_code == 404  # the access check runs before the cache


def test_a_players_ratings_for_an_empty_or_unknown_game_are_a_400_naming_game(people, api):
    api.force_authenticate(people["admin"])
    url = f"/api/v1/players/{people['guest'].pk}/ratings/"
    assert api.get(url).status_code == 200
    for game in ("", "scopa"):
        answer = api.get(url, {"game": game})
        assert answer.status_code == 400 and "game" in answer.json()
