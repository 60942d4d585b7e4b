import os
import random

import pytest

from clubs import services as club_services
from matches.models import Tournament
from matches.sputo.demo import build_tournaments
from tests.conftest import PASSWORD
from tests.sputo_world import make_guests, make_members
from tests.test_browser import browser  # noqa: F401

pytestmark = [pytest.mark.django_db(transaction=True)]
OUT = "/tmp/shots-sputo"


def test_shots(live_server, browser, make_user):  # noqa: F811
    os.makedirs(OUT, exist_ok=True)
    admin = make_user("ada")
    scorer = make_user("sam")
    club = club_services.create_club(name="Circolo La Matta", founder=admin, city="Bologna")
    club_services.add_member(club=club, user=scorer, role="scorer")
    make_members(club, 14)
    make_guests(club, 3)
    build_tournaments(club, admin=admin, scorer=scorer, rng=random.Random(3))
    finished = Tournament.objects.get(name="Coppa della Matta")
    running = Tournament.objects.get(name="Sputo del venerdì")
    ready = running.matches.filter(
        result="", player_a__isnull=False, player_b__isnull=False
    ).first()
    decided = finished.matches.filter(round=1, result="played").first()
    url = live_server.url
    pages = {
        "list": f"/clubs/{club.slug}/tournaments/",
        "running": running.get_absolute_url(),
        "finished": finished.get_absolute_url(),
        "full": f"/clubs/{club.slug}/tournaments/{finished.pk}/bracket/",
        "match": ready.get_absolute_url(),
        "decided": decided.get_absolute_url(),
    }
    for lang, locale in (("it", "it-IT"), ("en", "en-GB")):
        for w, h in ((390, 844), (1366, 900)):
            context = browser.new_context(locale=locale, viewport={"width": w, "height": h})
            page = context.new_page()
            page.goto(f"{url}/accounts/login/")
            page.fill("input[name=username]", "ada")
            page.fill("input[name=password]", PASSWORD)
            page.click("main button[type=submit]")
            page.wait_for_url(f"{url}/")
            for name, path in pages.items():
                page.goto(url + path)
                page.screenshot(path=f"{OUT}/{name}-{lang}-{w}.png", full_page=name != "full")
            page.goto(url + pages["decided"])
            page.click("details:has(#correct-reason) summary")
            page.locator("details:has(#correct-reason) input[type=radio]").nth(1).check()
            page.fill("#correct-reason", "Errore")
            page.locator("details:has(#correct-reason) input[type=number]").first.fill("2")
            page.click("details:has(#correct-reason) button[type=submit]")
            page.screenshot(path=f"{OUT}/preview-{lang}-{w}.png", full_page=True)
            context.close()
