"""The tables' pages: opening a table, the hand form (preview, refusals next to the card,
out of turn), corrections and voids, the sheet and its CSV."""

import csv
import io

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext, override_settings
from django.utils import translation
from django.utils.html import escape

from ledger import reads as ledger_reads
from ledger import services as ledger
from matches.models import Hand, Outcome, TableSession
from matches.results import steps
from matches.singapore import services, turns
from plumbing.rule_errors import rule_message
from tests.singapore_helpers import CLOSING, SEVENTY, make_table, nights_ago, open_table, play

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(make_user):
    return make_table(make_user, ("Anna", "Bruno", "Carla", "Dario"))


@pytest.fixture
def client(client):
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "en"
    return client


@pytest.fixture
def scorer(client, world):
    client.force_login(world["scorer"])
    return client


def base(world, session):
    return f"/clubs/{world['club'].slug}/tables/{session.pk}"


def form_data(world, dealer, opponent, *, winner="dealer", quotas=1, covers=None, **extra):
    p = world["players"]
    data = {
        "dealer": p[dealer].pk,
        "opponent": p[opponent].pk,
        "winner": winner,
        "winner_cards": " ".join(CLOSING),
        "loser_cards": " ".join(SEVENTY),
        "dealer_quotas": quotas,
        "action": "save",
    }
    for name, q in (covers or {opponent: 1}).items():
        data[f"cover_{p[name].pk}"] = q
    data.update(extra)
    return data


def test_a_scorer_opens_a_table_with_the_seats_in_the_order_ticked(scorer, world):
    p = world["players"]
    response = scorer.post(
        f"/clubs/{world['club'].slug}/tables/new/",
        {
            "name": "Tavolo verde",
            "date": "2026-03-06",
            "point_value": "0.10",
            "seats": [p["Anna"].pk, p["Bruno"].pk, p["Carla"].pk],
            "order": f"{p['Carla'].pk},{p['Anna'].pk},{p['Bruno'].pk}",
            "first_dealer": "",
            "first_opponent": "",
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    session = TableSession.objects.get()
    assert [s.player.display_name for s in session.seats.order_by("position")] == [
        "Carla",
        "Anna",
        "Bruno",
    ]
    assert str(session.point_value) == "0.10" and session.draw["seed"] >= 0


def test_the_texts_worked_example_from_the_form_to_the_sheet(scorer, world):
    session = open_table(world, ["Anna", "Bruno", "Carla", "Dario"], first=("Anna", "Bruno"))
    url = f"{base(world, session)}/hands/new/"
    page = scorer.get(url)
    assert page.status_code == 200
    assert 'data-rank="Q"' in page.content.decode()
    data = form_data(world, "Anna", "Bruno", quotas=5, covers={"Bruno": 2, "Carla": 1, "Dario": 2})
    preview = scorer.post(url, dict(data, action="preview"))
    text = preview.content.decode()
    assert preview.status_code == 200
    assert "Bruno → Anna: <strong>140</strong>" in text
    assert "Carla → Anna: <strong>70</strong>" in text
    assert "<strong>70 points</strong>" in text
    assert not Hand.objects.exists()
    saved = scorer.post(url, data)
    assert saved.status_code == 302
    sheet = scorer.get(f"{base(world, session)}/sheet/")
    totals = {t.player.display_name: t.points for t in sheet.context["sheet"].totals}
    assert totals == {"Anna": 350, "Bruno": -140, "Carla": -70, "Dario": -140}
    in_the_ledger = ledger_reads.balances(
        club=world["club"], unit="points", scope=ledger.scope_of_session(session.pk)
    )
    assert {b.player.display_name: b.amount for b in in_the_ledger} == totals
    plan = sheet.content.decode().split('id="settle-up"', 1)[1].split("</section>", 1)[0]
    assert "Bruno pays Anna <strong>140</strong> points" in plan
    assert "Carla pays Anna <strong>70</strong> points" in plan
    assert "3 payments clear every balance of this table." in plan


def test_a_refused_hand_shows_the_engines_error_next_to_the_offending_card(scorer, world):
    session = open_table(world, ["Anna", "Bruno"], first=("Anna", "Bruno"))
    data = form_data(world, "Anna", "Bruno", winner_cards=" ".join(CLOSING[:9] + ["1D"]))
    response = scorer.post(f"{base(world, session)}/hands/new/", data)
    assert response.status_code == 400
    text = response.content.decode()
    # The engine's error translated (the page is in English here), by the card it is about.
    with translation.override("en"):
        note = escape(rule_message({"code": "unknown_card", "message": "unknown card '1D'"}))
    assert "not a card" in note and "1D" in note
    assert f'class="sg-chip bad" data-card="1D" data-error="{note}"' in text
    assert f'<li class="sg-err" role="alert">{note}</li>' in text
    assert not Hand.objects.exists()


def test_a_refused_hand_is_shown_in_italian_by_the_card(scorer, world):
    session = open_table(world, ["Anna", "Bruno"], first=("Anna", "Bruno"))
    data = form_data(world, "Anna", "Bruno", winner_cards=" ".join(CLOSING[:9] + ["1D"]))
    response = scorer.post(f"{base(world, session)}/hands/new/", data, HTTP_ACCEPT_LANGUAGE="it")
    with translation.override("it"):
        note = escape(rule_message({"code": "unknown_card", "message": "unknown card '1D'"}))
    assert f'data-card="1D" data-error="{note}"' in response.content.decode()


def test_three_copies_are_marked_on_every_copy(scorer, world):
    session = open_table(world, ["Anna", "Bruno"], first=("Anna", "Bruno"))
    data = form_data(world, "Anna", "Bruno", loser_cards="QH QH " + " ".join(SEVENTY[2:]))
    text = scorer.post(f"{base(world, session)}/hands/new/", data).content.decode()
    assert text.count('class="sg-chip bad" data-card="QH"') == 3


@pytest.fixture
def admin(client, world):
    client.force_login(world["admin"])
    return client


def test_out_of_turn_from_the_form_is_refused_then_allowed_by_an_admin_with_a_reason(admin, world):
    session = open_table(world, ["Anna", "Bruno", "Carla"], first=("Anna", "Bruno"))
    url = f"{base(world, session)}/hands/new/"
    refused = admin.post(url, form_data(world, "Bruno", "Carla"))
    assert refused.status_code == 409
    assert "Anna (dealing) against Bruno" in refused.content.decode()
    allowed = admin.post(url, form_data(world, "Bruno", "Carla", override="Anna al bar"))
    assert allowed.status_code == 302 and Hand.objects.get().out_of_turn


def test_the_challenger_dealing_is_a_form_error_by_the_dealer_naming_who_deals(scorer, world):
    session = open_table(world, ["Anna", "Bruno", "Carla"], first=("Anna", "Bruno"))
    response = scorer.post(f"{base(world, session)}/hands/new/", form_data(world, "Bruno", "Anna"))
    assert response.status_code == 409
    form = response.context["form"]
    assert form.errors["dealer"] == [
        "Out of turn: the winner stays and deals, so the next hand is Anna (dealing) against Bruno."
    ]
    text = response.content.decode()
    assert "the next hand is Anna (dealing) against Bruno" in text
    assert 'name="override"' not in text  # a scorer may not allow it
    assert not Hand.objects.exists()


def test_the_form_error_names_the_dealer_in_italian(scorer, world):
    session = open_table(world, ["Anna", "Bruno", "Carla"], first=("Anna", "Bruno"))
    response = scorer.post(
        f"{base(world, session)}/hands/new/",
        form_data(world, "Bruno", "Anna"),
        HTTP_ACCEPT_LANGUAGE="it",
    )
    assert response.status_code == 409
    [message] = response.context["form"].errors["dealer"]
    assert message.startswith("Fuori turno") and "Anna" in message


def test_only_an_admin_sees_the_override_and_a_forged_one_is_refused(scorer, admin, world):
    session = open_table(world, ["Anna", "Bruno", "Carla"], first=("Anna", "Bruno"))
    url = f"{base(world, session)}/hands/new/"
    assert 'name="override"' in admin.get(url).content.decode()
    scorer.force_login(world["scorer"])
    assert 'name="override"' not in scorer.get(url).content.decode()
    forged = scorer.post(url, form_data(world, "Bruno", "Anna", override="lo dico io"))
    assert forged.status_code == 403 and not Hand.objects.exists()


def test_a_hand_allowed_out_of_turn_is_marked_on_the_sheet_and_its_csv(admin, world):
    session = open_table(world, ["Anna", "Bruno", "Carla"], first=("Anna", "Bruno"))
    play(world, session, "Anna", "Bruno")
    play(world, session, "Carla", "Anna", by=world["admin"], override="Anna al telefono")
    text = admin.get(f"{base(world, session)}/sheet/").content.decode()
    section = text.split('id="out-of-turn"', 1)[1].split("</section>", 1)[0]
    assert "Hand 2: allowed out of turn by ada: Anna al telefono" in section
    assert text.count('class="badge warn" href="#out-of-turn"') == 1
    rows = list(
        csv.reader(io.StringIO(admin.get(f"{base(world, session)}/sheet.csv").content.decode()))
    )
    assert rows[0][7] == "out of turn"
    assert [row[7] for row in rows[1:3]] == ["", "allowed out of turn by ada: Anna al telefono"]
    hand_page = admin.get(f"{base(world, session)}/hands/{Hand.objects.get(number=2).pk}/")
    history = hand_page.content.decode()
    assert "ada allowed the hand out of turn." in history and "Anna al telefono" in history
    assert "Carla closed: simple, 70 points a quota." in history  # the result, beside it


def test_a_scorer_corrects_and_voids_a_hand_and_the_sheet_keeps_the_history(scorer, world):
    session = open_table(world, ["Anna", "Bruno", "Carla"], first=("Anna", "Bruno"))
    first = play(world, session, "Anna", "Bruno", quotas=2, covers={"Bruno": 2}).hand
    play(world, session, "Anna", "Carla", covers={"Carla": 1})
    hand_url = f"{base(world, session)}/hands/{first.pk}"
    assert scorer.get(f"{hand_url}/correct/").status_code == 200
    data = form_data(world, "Anna", "Bruno", quotas=2, covers={"Bruno": 1}, reason="Una sola")
    assert scorer.post(f"{hand_url}/correct/", data).status_code == 302
    assert scorer.post(f"{hand_url}/void/", {"reason": "Mazzo sbagliato"}).status_code == 302
    sheet = scorer.get(f"{base(world, session)}/sheet/").context["sheet"]
    assert [(r.hand.number, r.status) for r in sheet.rows] == [
        (1, "superseded"),
        (1, "voided"),
        (2, "confirmed"),
    ]
    assert {t.player.display_name: t.points for t in sheet.totals} == {
        "Anna": 70,
        "Bruno": 0,
        "Carla": -70,
    }


def test_a_correction_without_a_reason_is_refused_on_the_form(scorer, world):
    session = open_table(world, ["Anna", "Bruno"], first=("Anna", "Bruno"))
    first = play(world, session, "Anna", "Bruno").hand
    data = form_data(world, "Anna", "Bruno", quotas=3, covers={"Bruno": 3})
    response = scorer.post(f"{base(world, session)}/hands/{first.pk}/correct/", data)
    assert response.status_code == 400 and "Say why" in response.content.decode()
    assert Outcome.objects.count() == 1


def test_a_player_reports_from_the_form_and_the_other_confirms_on_the_hand_page(client, world):
    session = open_table(world, ["Anna", "Bruno"], first=("Anna", "Bruno"))
    client.force_login(world["users"]["Anna"])
    assert (
        client.post(
            f"{base(world, session)}/hands/new/", form_data(world, "Anna", "Bruno")
        ).status_code
        == 302
    )
    hand = Hand.objects.get()
    assert hand.outcome_in_force() is None
    client.force_login(world["users"]["Bruno"])
    page = client.get(f"{base(world, session)}/hands/{hand.pk}/")
    assert "Confirm" in page.content.decode()
    client.post(f"{base(world, session)}/hands/{hand.pk}/confirm/")
    assert hand.outcome_in_force() is not None


def test_the_sheet_as_csv(scorer, world):
    session = open_table(world, ["Anna", "Bruno"], first=("Anna", "Bruno"), point_value="0.50")
    play(world, session, "Anna", "Bruno", quotas=2, covers={"Bruno": 2})
    response = scorer.get(f"{base(world, session)}/sheet.csv")
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert rows[0][:7] == ["hand", "status", "dealer", "opponent", "winner", "closing", "points"]
    assert rows[1][:7] == ["1", "confirmed", "Anna", "Bruno", "Anna", "simple", "70"]
    assert rows[0][7] == "out of turn" and rows[1][7] == ""  # in turn
    assert rows[1][8:] == ["70.00", "70.00", "-70.00", "-70.00"]
    assert rows[-1][8:] == ["", "70.00", "", "-70.00"]


def _sheet_queries(client, world, session) -> int:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(f"{base(world, session)}/sheet/")
    assert response.status_code == 200
    return len(queries)


@override_settings(MEMBER_PAGE_SECONDS=0)  # the page as built, not as kept for the member
def test_the_sheet_takes_as_many_queries_for_30_hands_as_for_3(scorer, world):
    small = open_table(world, ["Anna", "Bruno", "Carla", "Dario"], first=("Anna", "Bruno"))
    big = open_table(
        world, ["Anna", "Bruno", "Carla", "Dario"], first=("Anna", "Bruno"), date=nights_ago(1)
    )
    for session, n in ((small, 3), (big, 30)):
        dealer, opponent = "Anna", "Bruno"
        for _ in range(n):
            play(
                world,
                session,
                dealer,
                opponent,
                covers={opponent: 1, "Carla" if opponent != "Carla" else "Dario": 1},
                quotas=3,
            )
            state = turns.table_state(session)
            names = {p.pk: name for name, p in world["players"].items()}
            dealer, opponent = names[state.next[0]], names[state.next[1]]
    first = Hand.objects.filter(session=big).first()
    steps.void_outcome(subject=first, by=world["scorer"], reason="prova")
    _sheet_queries(scorer, world, small)  # the member's own cached bits (the bell's count) warm
    assert _sheet_queries(scorer, world, small) == _sheet_queries(scorer, world, big)


def test_the_table_page_shows_who_sits_where_and_who_is_next(scorer, world):
    session = open_table(world, ["Anna", "Bruno", "Carla"], first=("Anna", "Bruno"))
    play(world, session, "Anna", "Bruno")
    services.sit_out(session=session, player=world["players"]["Carla"], by=world["scorer"])
    text = scorer.get(f"{base(world, session)}/").content.decode()
    assert "<strong>Anna</strong> deals against <strong>Bruno</strong>" in text
    assert "sitting out" in text


def test_the_club_page_shows_members_the_open_tables_and_who_is_next(client, world):
    session = open_table(world, ["Anna", "Bruno", "Carla"], first=("Anna", "Bruno"))
    play(world, session, "Anna", "Bruno")
    client.force_login(world["users"]["Carla"])
    html = client.get(f"/clubs/{world['club'].slug}/").content.decode()
    section = html.split('id="section-tables"', 1)[1].split("</section>", 1)[0]
    assert "Tavolo 1" in section and "Next: Anna deals against Carla" in section
    assert f'href="/clubs/{world["club"].slug}/tables/"' in html  # the tab
    client.logout()
    html = client.get(f"/clubs/{world['club'].slug}/").content.decode()
    assert 'id="section-tables"' not in html and "/tables/" not in html
