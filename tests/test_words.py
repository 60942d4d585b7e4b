"""Words and numbers people read: dates as each language writes them,
plurals, people by the name they go by, ISO date fields in Italian, sentences instead of
field codes, suit symbols, no seed, a table's ledger named by the table, the leaderboards'
house minimum."""

import re
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

import pytest
from django.template import Context, Template
from django.utils import formats, translation

from clubs import services as clubs
from ledger import services as ledger
from matches.models import TableSession
from matches.spazzumazz.services import record_spazzumazz_game
from matches.templatetags.cards import suited
from tests.singapore_helpers import CLOSING, SEVENTY, make_table, open_table, play

pytestmark = pytest.mark.django_db

FRIDAY = date(2026, 12, 4)


@pytest.fixture
def world(make_user):
    return make_table(make_user, ("Anna", "Bruno", "Carla", "Dario"))


def page(client, url, language="en", **data):
    return client.get(url, data, HTTP_ACCEPT_LANGUAGE=language)


# --- Dates and numbers ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "language, long, short",
    [
        ("it", "venerdì 4 dicembre 2026", "04/12/2026"),
        ("en", "Friday 4 December 2026", "4 Dec 2026"),
    ],
)
def test_a_date_reads_as_each_language_writes_it(language, long, short):
    with translation.override(language):
        assert formats.date_format(FRIDAY, "DATE_FORMAT") == long
        assert formats.date_format(FRIDAY, "SHORT_DATE_FORMAT") == short
        assert Template("{{ d|date }}").render(Context({"d": FRIDAY})) == long


def test_no_english_date_is_written_month_first():
    with translation.override("en"):
        text = formats.date_format(date(2026, 3, 4), "SHORT_DATE_FORMAT")
        assert not re.match(r"^\d{1,2}/\d{1,2}/", text) and text == "4 Mar 2026"


@pytest.mark.parametrize(
    "language, number, shown",
    [("it", 12345, "12.345"), ("en", 12345, "12,345"), ("it", Decimal("1234.50"), "1.234,50")],
)
def test_points_and_money_have_the_languages_separators(language, number, shown):
    with translation.override(language):
        assert Template("{{ n|grouped }}").render(Context({"n": number})) == shown


@pytest.mark.parametrize("language, typed", [("en", "12,50"), ("it", "0.001")])
def test_a_typed_amount_is_never_read_as_grouped(language, typed):
    # "12,50" in English is not 1250, "0.001" in Italian is not 1: no group is stripped.
    with translation.override(language):
        assert formats.sanitize_separators(typed) not in {"1250", "0001"}


def test_an_id_in_a_link_is_never_grouped():
    with translation.override("it"):
        assert Template("{{ n|unlocalize }}").render(Context({"n": 12345})) == "12345"


def test_the_night_page_names_the_evening_in_italian(client, world):
    url = f"/clubs/{world['club'].slug}/nights/{FRIDAY.isoformat()}/"
    text = page(client, url, "it").content.decode()
    assert "venerdì 4 dicembre 2026" in text


# --- Plurals ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "n, italian",
    [
        (1, "Chiusura: <strong>x</strong> (1 combinazione, ×1)"),
        (3, "Chiusura: <strong>x</strong> (3 combinazioni, ×1)"),
    ],
)
def test_combinations_are_counted_with_the_right_plural(n, italian):
    template = Template(
        "{% load i18n %}{% blocktranslate with closing='x' m=1 count n=n %}Closing: "
        "<strong>{{ closing }}</strong> ({{ n }} combination, ×{{ m }}){% plural %}Closing: "
        "<strong>{{ closing }}</strong> ({{ n }} combinations, ×{{ m }}){% endblocktranslate %}"
    )
    with translation.override("it"):
        assert template.render(Context({"n": n})) == italian


def test_one_game_saved_is_singular():
    with translation.override("it"):
        assert translation.ngettext("%(n)s game saved.", "%(n)s games saved.", 1) % {"n": 1} == (
            "1 partita salvata."
        )


# --- People by the name they go by ---------------------------------------------------------


def test_the_audit_names_people_by_display_name_in_a_sentence(client, world):
    club, scorer = world["club"], world["scorer"]
    clubs.rename_player(player=club.players.get(user=scorer), display_name="Samuele Segna")
    table = [world["players"][n] for n in ("Anna", "Bruno", "Carla")]
    game = record_spazzumazz_game(
        club=club, players=table, by=scorer, finish_order=[p.pk for p in table]
    )[0]
    client.force_login(world["admin"])
    url = f"/clubs/{club.slug}/spazzumazz/{game.pk}/"
    for language, sentence in [
        ("it", "Samuele Segna ha segnalato il risultato."),
        ("en", "Samuele Segna reported the result."),
    ]:
        text = page(client, url, language).content.decode()
        history = text.split('class="audit"', 1)[1].split("</ul>", 1)[0]
        assert sentence in history
        assert "sam" not in re.sub(r"<[^>]+>", " ", history).split()  # never the user name
        assert "report" not in re.findall(r">([^<]*)<", history)  # no step code


def test_the_house_rules_history_names_who_saved_by_display_name(client, world):
    club, admin = world["club"], world["admin"]
    clubs.rename_player(player=club.players.get(user=admin), display_name="Ada Amministra")
    clubs.update_house_rules(club=club, game="spazzumazz", values={"idiot_min_games": 3}, by=admin)
    client.force_login(admin)
    text = page(client, f"/clubs/{club.slug}/settings/").content.decode()
    versions = text.split('class="versions"', 1)[1].split("</ul>", 1)[0]
    assert "Ada Amministra" in versions and "· ada<" not in versions


# --- Date fields in Italian ----------------------------------------------------------------


def test_the_table_forms_date_is_iso_in_italian_and_opening_a_table_works(client, world):
    club = world["club"]
    client.force_login(world["scorer"])
    url = f"/clubs/{club.slug}/tables/new/"
    form = page(client, url, "it").content.decode()
    value = re.search(r'<input type="date" name="date" value="([^"]*)"', form).group(1)
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", value), value
    p = world["players"]
    opened = client.post(
        url,
        {
            "name": "Tavolo verde",
            "date": value,
            "point_value": "0,10",
            "seats": [p["Anna"].pk, p["Bruno"].pk],
        },
        HTTP_ACCEPT_LANGUAGE="it",
    )
    assert opened.status_code == 302, opened.content.decode()[:3000]
    assert TableSession.objects.get().date.isoformat() == value


def test_the_season_and_tournament_dates_are_iso_in_italian(client, world):
    from clubs.forms import InvitationForm, SeasonForm
    from matches.sputo.forms import TournamentForm

    with translation.override("it"):
        season = SeasonForm(club=world["club"], initial={"start": FRIDAY}).as_p()
        tournament = TournamentForm(initial={"starts_at": datetime(2026, 12, 4, 21, 0)}).as_p()
        invitation = InvitationForm(
            club=world["club"], initial={"expires_at": datetime(2026, 12, 4, 21, 0, tzinfo=UTC)}
        ).as_p()
    assert 'value="2026-12-04"' in season
    assert 'value="2026-12-04T21:00"' in tournament
    assert re.search(r'value="2026-12-04T\d\d:00"', invitation)


# --- Sentences, not field codes ------------------------------------------------------------

FIELD_CODES = re.compile(r"side_bets|winner_cards|loser_cards|dealer_quotas|covers[.\[):]|\(at ")


def errors_of(text: str) -> list[str]:
    found = re.findall(
        r'<(?:ul|p|li|div)[^>]*class="(?:errorlist|message error)[^"]*"[^>]*>(.*?)</', text, re.S
    )
    return [re.sub(r"<[^>]+>", " ", e).strip() for e in found if e.strip()]


@pytest.mark.parametrize("language", ["it", "en"])
def test_stake_errors_are_sentences_by_their_fields_and_the_side_bets_open(client, world, language):
    session = open_table(world, ["Anna", "Bruno", "Carla", "Dario"], first=("Anna", "Bruno"))
    client.force_login(world["scorer"])
    p = world["players"]
    response = client.post(
        f"/clubs/{world['club'].slug}/tables/{session.pk}/hands/new/",
        {
            "dealer": p["Anna"].pk,
            "opponent": p["Bruno"].pk,
            "winner": "dealer",
            "winner_cards": " ".join(CLOSING),
            "loser_cards": " ".join(SEVENTY),
            "dealer_quotas": 2,
            f"cover_{p['Bruno'].pk}": 2,
            f"cover_{p['Carla'].pk}": 1,
            "bet_0_winner": p["Dario"].pk,
            "bet_0_loser": p["Dario"].pk,
            "bet_0_quotas": 1,
            "action": "preview",
        },
        HTTP_ACCEPT_LANGUAGE=language,
    )
    assert response.status_code == 400
    text = response.content.decode()
    errors = errors_of(text)
    assert len(errors) == 2, errors
    assert not [e for e in errors if FIELD_CODES.search(e)], errors
    if language == "it":
        assert not [e for e in errors if "covers" in e or "side_bets" in e], errors
    covers = text.split("sg-covers", 1)[0].rsplit("<fieldset>", 1)[1]
    assert errors_of(covers), "the covers' error is by the covers"
    bets = text.split('<details class="sg-bets"', 1)[1].split("</details>", 1)[0]
    assert bets.startswith(" open>") and errors_of(bets)


def test_the_tournament_form_shows_its_errors_by_the_fields(client, world):
    client.force_login(world["admin"])
    url = f"/clubs/{world['club'].slug}/tournaments/new/"
    response = client.post(url, {"name": "", "starts_at": "not a date"}, HTTP_ACCEPT_LANGUAGE="it")
    assert response.status_code == 400
    text = response.content.decode()
    form = text.split('id="new-tournament"', 1)[1].split("</form>", 1)[0]
    assert 'id="id_name_error"' in form and 'id="id_starts_at_error"' in form
    assert not re.search(r'class="message error"', text)  # not at the top of the page


# --- Cards, seeds, tables -------------------------------------------------------------------


@pytest.mark.parametrize(
    "code, shown", [("AS", "A♠"), ("QH", "Q♥"), ("10d", "10♦"), ("7C", "7♣"), ("XX", "XX")]
)
def test_a_card_chip_shows_the_suit_symbol(code, shown):
    assert suited(code) == shown


@pytest.mark.parametrize("language", ["it", "en"])
def test_the_hand_page_shows_suit_symbols_and_the_form_keeps_the_typed_codes(
    client, world, language
):
    session = open_table(world, ["Anna", "Bruno"], first=("Anna", "Bruno"))
    hand = play(world, session, "Anna", "Bruno").hand
    client.force_login(world["scorer"])
    base = f"/clubs/{world['club'].slug}/tables/{session.pk}"
    shown = page(client, f"{base}/hands/{hand.pk}/", language).content.decode()
    assert '<span class="sg-chip" data-card="AS">A♠</span>' in shown
    assert '<span class="sg-chip" data-card="QH">Q♥</span>' in shown
    typed = "as 2S 3S QH QD QC 7D 8D 9D XX"
    refused = client.post(
        f"{base}/hands/new/",
        {"dealer": world["players"]["Bruno"].pk, "winner_cards": typed, "action": "preview"},
        HTTP_ACCEPT_LANGUAGE=language,
    ).content.decode()
    assert f'value="{typed}"' in refused  # the codes as typed
    assert ">A♠<" in refused and ">XX<" in refused


def test_the_table_page_does_not_show_the_random_seed(client, world):
    session = open_table(world, ["Anna", "Bruno", "Carla"], seed=987654)
    client.force_login(world["scorer"])
    url = f"/clubs/{world['club'].slug}/tables/{session.pk}/"
    for language in ("it", "en"):
        text = page(client, url, language).content.decode()
        assert "987654" not in text and "987.654" not in text
    assert "First pair drawn by lot." in page(client, url, "en").content.decode()


def test_the_ledger_names_a_session_by_its_tables_name(client, world):
    session = open_table(world, ["Anna", "Bruno"], first=("Anna", "Bruno"))
    session.name, session.date = "Tavolo del camino", FRIDAY
    session.save(update_fields=["name", "date"])
    play(world, session, "Anna", "Bruno")
    client.force_login(world["admin"])
    url = f"/clubs/{world['club'].slug}/ledger/"
    text = page(client, url, "it", session=session.pk).content.decode()
    assert "Solo Tavolo del camino, venerdì 4 dicembre 2026." in text
    assert f'href="/clubs/{world["club"].slug}/tables/{session.pk}/"' in text
    assert "Session" not in text and "Sessione" not in text
    player = world["players"]["Anna"]
    statement = page(
        client, f"/clubs/{world['club'].slug}/ledger/players/{player.pk}/", "en", session=session.pk
    ).content.decode()
    assert "Only Tavolo del camino, Friday 4 December 2026." in statement
    assert ledger.scope_of_session(session.pk) not in statement


# --- Leaderboards ---------------------------------------------------------------------------


def test_the_leaderboard_defaults_to_the_house_rules_minimum_of_games(
    client, world, django_capture_on_commit_callbacks
):
    club = world["club"]
    clubs.update_house_rules(club=club, game="spazzumazz", values={"idiot_min_games": 2})
    p = world["players"]
    three, four = [p["Anna"], p["Bruno"], p["Carla"]], [p["Anna"], p["Bruno"], p["Dario"]]
    start = datetime(2026, 12, 4, 20, 0, tzinfo=UTC)
    for n, table in enumerate([three, three, four]):
        with django_capture_on_commit_callbacks(execute=True):
            record_spazzumazz_game(
                club=club,
                players=table,
                by=world["scorer"],
                finish_order=[x.pk for x in table],
                played_at=start + timedelta(minutes=n),
            )
    url = f"/clubs/{club.slug}/leaderboards/"
    board = page(client, url, "en").content.decode().split('id="board-spazzumazz"')[1]
    board = board.split("</section>")[0]
    assert ">Carla<" in board and ">Dario<" not in board  # Dario played one game
    assert "Players with at least 2 games, as the club's house rule says." in board
    everyone = page(client, url, "en", min_games=0).content.decode()
    assert ">Dario<" in everyone.split('id="board-spazzumazz"')[1]
    form = page(client, url, "it").content.decode()
    assert re.search(r'name="min_games" id="min_games" min="0" value=""', form)


def test_the_provisional_mark_is_explained_in_words(
    client, world, django_capture_on_commit_callbacks
):
    club = world["club"]
    table = [world["players"][n] for n in ("Anna", "Bruno", "Carla")]
    with django_capture_on_commit_callbacks(execute=True):
        record_spazzumazz_game(
            club=club, players=table, by=world["scorer"], finish_order=[x.pk for x in table]
        )
    text = page(client, f"/clubs/{club.slug}/leaderboards/", "en", min_games=0).content.decode()
    assert "? after a rating: provisional" in text


@pytest.mark.parametrize("language", ["it", "en"])
def test_a_page_shows_an_engine_error_without_its_path_but_with_its_move(language):
    from plumbing.rule_errors import for_people, rules_validation_error
    from rules.errors import UnknownCardError

    with translation.override(language):
        error = rules_validation_error(UnknownCardError("11H", at="loser[8]"), field="record")
        assert "loser[8]" in error.messages[0]  # the API's message keeps it
        (shown,) = for_people(error, "record")
        assert "loser" not in shown and "11H" in shown
        moved = rules_validation_error([{"code": "too_low", "message": "5H < 9S", "at": 4}])
        assert "4" in for_people(moved)[0]
