"""Spazz'u'mazz's pages without a browser: quick entry (one game, a batch, a full turn log,
a mistake), the recent tables, and the result cycle from a game's page."""

import json

import pytest
from django.utils import translation
from django.utils.html import escape

from clubs import services
from matches.models import OutcomeStatus, SpazzumazzGame
from plumbing.rule_errors import RULE_MESSAGES
from rules.bots import spazzumazz as bot

pytestmark = pytest.mark.django_db


@pytest.fixture
def club(people):
    return people["club"]


@pytest.fixture
def table(club, people):
    return [
        club.players.get(user=people["member"]),
        services.add_guest(club=club, display_name="Bea"),
        people["guest"],
    ]


@pytest.fixture
def scorer(client, people):
    client.force_login(people["scorer"])
    return client


def csv(players):
    return ",".join(str(p.pk) for p in players)


def test_one_game_is_saved_from_the_tapped_order(scorer, club, table):
    response = scorer.post(
        f"/clubs/{club.slug}/spazzumazz/new/",
        {"players": csv(table), "order": ["", csv(table[::-1])]},
    )
    game = SpazzumazzGame.objects.get()
    assert response["Location"] == f"/clubs/{club.slug}/spazzumazz/{game.pk}/"
    assert game.outcome_in_force().payload["finish_order"] == [p.pk for p in table[::-1]]
    assert game.players_in_turn_order() == table


def test_several_games_of_one_table_are_saved_as_a_batch_in_order(scorer, club, table):
    orders = [csv(table), csv(table[::-1]), csv([table[1], table[0], table[2]])]
    scorer.post(f"/clubs/{club.slug}/spazzumazz/new/", {"players": csv(table), "order": orders})
    games = SpazzumazzGame.objects.order_by("played_at")
    assert [csv(p.player for p in g.places.order_by("place")) for g in games] == orders


def test_a_full_turn_log_pasted_is_checked_by_the_rules_engine(scorer, club, table):
    log = bot.play_game(5, [p.display_name for p in table])
    scorer.post(
        f"/clubs/{club.slug}/spazzumazz/new/",
        {"players": csv(table), "order": "", "record": json.dumps(log)},
    )
    assert SpazzumazzGame.objects.get().outcome_in_force().payload["log"] is True
    broken = {**log, "turns": log["turns"][:-1]}
    page = scorer.post(
        f"/clubs/{club.slug}/spazzumazz/new/",
        {"players": csv(table), "record": json.dumps(broken)},
        follow=True,
    )
    # The engine's error, translated, next to the pasted log (the page is in Italian).
    with translation.override("it"):
        expected = escape(str(RULE_MESSAGES["not_finished"]).removesuffix("."))
    html = page.content.decode()
    assert 'id="record-errors"' in html and expected in html
    assert html.index(expected) < html.index('name="record"')
    assert SpazzumazzGame.objects.count() == 1


@pytest.mark.parametrize(
    "order",
    ["", "1,2", "x,y,z"],
)
def test_a_wrong_order_is_said_and_nothing_is_saved(scorer, club, table, order):
    page = scorer.post(
        f"/clubs/{club.slug}/spazzumazz/new/", {"players": csv(table), "order": order}
    )
    assert page.status_code == 200
    assert 'class="message error"' in page.content.decode()
    assert not SpazzumazzGame.objects.exists()


def test_recent_tables_come_first_and_once(scorer, club, table):
    for _ in range(2):
        scorer.post(
            f"/clubs/{club.slug}/spazzumazz/new/", {"players": csv(table), "order": csv(table)}
        )
    scorer.post(
        f"/clubs/{club.slug}/spazzumazz/new/",
        {"players": csv(table[:2]), "order": csv(table[:2])},
    )
    page = scorer.get(f"/clubs/{club.slug}/spazzumazz/new/").content.decode()
    assert page.count('class="button secondary table-pick"') == 2
    assert page.index(f"?players={csv(table[:2])}") < page.index(f"?players={csv(table)}")


def test_a_report_is_confirmed_from_the_games_page(client, club, table, people, make_user):
    bea = make_user("bea")
    services.add_member(club=club, user=bea)
    players = [table[0], club.players.get(user=bea), table[2]]
    client.force_login(people["member"])
    client.post(
        f"/clubs/{club.slug}/spazzumazz/new/", {"players": csv(players), "order": csv(players)}
    )
    game = SpazzumazzGame.objects.get()
    assert game.open_outcome().status == OutcomeStatus.REPORTED
    page = client.get(f"/clubs/{club.slug}/spazzumazz/{game.pk}/").content.decode()
    assert "/withdraw/" in page and "/confirm/" not in page
    client.force_login(bea)
    page = client.get(f"/clubs/{club.slug}/spazzumazz/{game.pk}/").content.decode()
    assert "/confirm/" in page and "/dispute/" in page
    client.post(f"/clubs/{club.slug}/spazzumazz/{game.pk}/confirm/")
    assert game.outcome_in_force() is not None
    again = client.post(f"/clubs/{club.slug}/spazzumazz/{game.pk}/confirm/", follow=True)
    assert 'class="message error"' in again.content.decode()
