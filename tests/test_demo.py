from io import StringIO

import pytest
from django.contrib.auth import authenticate
from django.core.management import call_command
from django.db.models import Count
from django.test import RequestFactory

from circolo.management.commands.demo import demo_parts
from clubs.demo import DEMO_PASSWORD, DEMO_SLUG, PRIVATE_SLUG
from clubs.models import Club, Player, Role
from matches.models import GameRecord

pytestmark = pytest.mark.django_db


def run(*args) -> str:
    out = StringIO()
    call_command("demo", *args, stdout=out)
    return out.getvalue()


def test_the_demo_builds_a_realistic_club_and_prints_the_logins():
    output = run()
    club = Club.objects.get(slug=DEMO_SLUG)
    players = club.players.active()
    assert 28 <= players.count() <= 35
    assert players.guests().count() >= 5
    roles = set(club.memberships.values_list("role", flat=True))
    assert roles == {Role.ADMIN, Role.SCORER, Role.MEMBER}
    assert club.seasons.count() >= 1
    assert club.current_house_rules("singapore") is not None
    games = dict(GameRecord.objects.filter(club=club).values_list("game").annotate(n=Count("id")))
    assert set(games) == {"singapore", "sputo", "spazzumazz"}
    assert all(record.season is not None for record in GameRecord.objects.all())
    assert not GameRecord.objects.filter(seats__player__club__in=Club.objects.exclude(pk=club.pk))
    assert DEMO_PASSWORD in output and "demo-admin" in output and "demo-scorer" in output
    request = RequestFactory().post("/accounts/login/")
    assert authenticate(request, username="demo-scorer", password=DEMO_PASSWORD) is not None


def test_running_the_demo_twice_changes_nothing():
    run()
    counts = (Club.objects.count(), Player.objects.count())
    output = run()
    assert "already there" in output
    assert (Club.objects.count(), Player.objects.count()) == counts


def test_reset_rebuilds_the_demo():
    run()
    Club.objects.get(slug=DEMO_SLUG).players.filter(display_name="Wanda").update(display_name="W")
    run("--reset")
    assert Club.objects.get(slug=DEMO_SLUG).players.filter(display_name="Wanda").exists()


def test_a_slug_taken_by_a_real_club_is_a_clear_error_and_nothing_is_half_built(make_user):
    from django.core.management.base import CommandError

    from clubs import services

    services.create_club(name="Real", founder=make_user("real"), slug=PRIVATE_SLUG)
    with pytest.raises(CommandError, match="Cannot build the demo"):
        run()
    assert not Club.objects.filter(slug=DEMO_SLUG).exists()


def test_each_app_contributes_its_own_parts_clubs_first_then_one_module_per_game():
    # and the season's championship after the games it counts
    names = [part.__name__ for part in demo_parts()]
    assert names == [
        "clubs.demo",
        "matches.spazzumazz.demo",
        "matches.sputo.demo",
        "matches.singapore.demo",
        "matches.championship.demo",  # after the games: it counts their results
        "ledger.demo",
    ]
    assert "matches.demo" not in names  # the package only holds what its game parts share
