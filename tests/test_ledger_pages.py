"""The ledger's pages: a club's balances, plan and payments, a person's statement and its
CSV; recording and confirming a payment through the forms; bad input never a 500."""

import csv
import io
import re

import pytest

from ledger import reads as ledger_reads
from ledger import services
from ledger.models import Payment, PaymentStatus
from tests.ledger_helpers import players_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def p(people):
    return players_of(people)


@pytest.fixture
def ledger(people, p):
    club = people["club"]
    services.post_transaction(
        club=club,
        unit="EUR",
        key="h1",
        memo="Serata del venerdì",
        entries={p["ada"]: "12.50", p["mia"]: "-12.50"},
    )
    services.post_transaction(
        club=club, unit="points", key="h2", entries={p["sam"]: 30, p["mia"]: -30}
    )
    return club


def login(client, user, language="en"):
    client.force_login(user)
    client.cookies["django_language"] = language
    return client


def test_a_member_sees_balances_the_plan_and_a_form_for_their_own_payments(
    client, people, ledger, p
):
    login(client, people["member"])
    response = client.get("/clubs/circolo-alfa/ledger/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "+12.50" in html and "−12.50" in html
    assert "<strong>mia</strong> pays <strong>ada</strong>" in html
    form = response.context["form"]
    assert [label for _, label in form.fields["payer"].choices] == ["mia"]
    assert response.context["unit"] == "EUR"
    points = client.get("/clubs/circolo-alfa/ledger/?unit=points").content.decode()
    assert "+30" in points and "−30" in points


def test_a_payment_recorded_in_italian_is_confirmed_by_the_payee_on_the_page(
    client, people, ledger, p
):
    login(client, people["member"], "it")
    response = client.post(
        "/clubs/circolo-alfa/ledger/payments/",
        {"payer": p["mia"].pk, "payee": p["ada"].pk, "amount": "12,50", "unit": "EUR"},
        follow=True,
    )
    assert response.status_code == 200
    payment = Payment.objects.get()
    assert (payment.amount_minor, payment.status) == (1250, PaymentStatus.PENDING)
    pending = response.context["pending"]
    assert [(row["may_confirm"], row["may_cancel"]) for row in pending] == [(False, True)]
    login(client, people["admin"])
    page = client.get("/clubs/circolo-alfa/ledger/").content.decode()
    assert f"/ledger/payments/{payment.pk}/confirm/" in page
    client.post(f"/clubs/circolo-alfa/ledger/payments/{payment.pk}/confirm/")
    payment.refresh_from_db()
    assert payment.status == PaymentStatus.CONFIRMED
    assert ledger_reads.balance_minors(club=ledger, unit="EUR") == {p["ada"].pk: 0, p["mia"].pk: 0}
    after = client.get("/clubs/circolo-alfa/ledger/")
    assert "Everyone is square." in after.content.decode()


def test_the_plans_paid_button_records_that_payment(client, people, ledger, p):
    login(client, people["member"])
    page = client.get("/clubs/circolo-alfa/ledger/")
    assert page.context["plan"][0]["may_record"]
    client.post(
        "/clubs/circolo-alfa/ledger/payments/",
        {"payer": p["mia"].pk, "payee": p["ada"].pk, "amount": "12.50", "unit": "EUR"},
    )
    assert Payment.objects.get().amount_minor == 1250


def test_each_pairs_debt_opens_to_what_it_comes_from_and_is_paid_pair_by_pair(client, people, p):
    club = people["club"]
    for key, legs in [("b1", [(p["mia"], p["ada"], 30), (p["sam"], p["pino"], 10)])] + [
        ("b2", [(p["mia"], p["ada"], 20)])
    ]:
        services.post_transaction(club=club, unit="points", key=key, source=f"bet:{key}", legs=legs)
    payment = services.record_payment(
        club=club, payer=p["mia"], payee=p["ada"], amount=15, unit="points", by=people["member"]
    )
    services.confirm_payment(payment=payment, by=people["admin"])
    login(client, people["member"])
    response = client.get("/clubs/circolo-alfa/ledger/?unit=points")
    html = response.content.decode()
    assert "<strong>mia</strong> owes <strong>ada</strong>" in html
    assert "Where it comes from (2 entries)" in html
    for text, amount in [("bet:b1", "+30"), ("bet:b2", "+20"), ("Already settled", "−15")]:
        shown = re.escape(text) + rf".{{0,120}}<span class=\"num\">{re.escape(amount)}</span>"
        assert re.search(shown, html, re.S)
    rows = {
        (r["debt"].debtor.display_name, r["debt"].minor): r["may_record"]
        for r in response.context["debts"]
    }
    assert rows == {("mia", 35): True, ("sam", 10): False}  # a member pays only their own
    assert f'name="payer" value="{p["mia"].pk}"' in html and 'name="amount" value="35"' in html
    login(client, people["member"], "it")
    italian = client.get("/clubs/circolo-alfa/ledger/?unit=points").content.decode()
    assert "<strong>mia</strong> deve a <strong>ada</strong>" in italian
    statement = client.get(f"/clubs/circolo-alfa/ledger/players/{p['mia'].pk}/?unit=points")
    assert re.search(r"ada <span class=\"debit\">−30</span>", statement.content.decode())


def test_a_statement_shows_each_entry_and_downloads_as_csv(client, people, ledger, p):
    login(client, people["member"])
    response = client.get(f"/clubs/circolo-alfa/ledger/players/{p['mia'].pk}/?unit=EUR")
    assert response.status_code == 200
    html = response.content.decode()
    assert "Serata del venerdì" in html and "−12.50" in html
    download = client.get(
        f"/clubs/circolo-alfa/ledger/players/{p['mia'].pk}/statement.csv?unit=EUR"
    )
    assert download["Content-Type"].startswith("text/csv")
    assert "attachment" in download["Content-Disposition"]
    rows = list(csv.reader(io.StringIO(download.content.decode())))
    assert rows[0] == ["Date", "Description", "Kind", "Key", "Amount", "Balance", "Unit"]
    assert rows[1][1:] == ["Serata del venerdì", "Posting", "h1", "-12.50", "-12.50", "EUR"]


def test_the_club_page_links_members_to_the_ledger(client, people):
    login(client, people["member"])
    assert "/clubs/circolo-alfa/ledger/" in client.get("/clubs/circolo-alfa/").content.decode()
    client.logout()
    assert "/ledger/" not in client.get("/clubs/circolo-alfa/").content.decode()


@pytest.mark.parametrize(
    "path, body",
    [
        ("/clubs/circolo-alfa/ledger/payments/", {}),
        (
            "/clubs/circolo-alfa/ledger/payments/",
            {"payer": "x", "payee": "10" * 20, "amount": "1e400", "unit": "€"},
        ),
        (
            "/clubs/circolo-alfa/ledger/payments/",
            {"payer": "{mia}", "payee": "{mia}", "amount": "5", "unit": "EUR"},
        ),
        (
            "/clubs/circolo-alfa/ledger/payments/",
            {"payer": "{mia}", "payee": "{ada}", "amount": "0,001", "unit": "EUR"},
        ),
        (
            "/clubs/circolo-alfa/ledger/payments/",
            {"payer": "{mia}", "payee": "{ada}", "amount": "x" * 5000, "unit": "EUR"},
        ),
        ("/clubs/circolo-alfa/ledger/payments/99999999999999999999999/confirm/", {}),
        ("/clubs/circolo-alfa/ledger/payments/424242/cancel/", {}),
    ],
)
def test_bad_input_on_the_ledger_pages_is_shown_never_a_500(client, people, ledger, p, path, body):
    login(client, people["member"])
    body = {k: v.format(mia=p["mia"].pk, ada=p["ada"].pk) for k, v in body.items()}
    response = client.post(path, body)
    assert response.status_code in {302, 404}
    assert not Payment.objects.exists()


@pytest.mark.parametrize(
    "query",
    ["?unit=dollars", "?unit=", "?session=abc", "?session=" + "9" * 50, "?unit=EUR&session=0"],
)
def test_odd_queries_on_the_ledger_pages_fall_back_to_the_default(client, people, ledger, p, query):
    login(client, people["member"])
    assert client.get(f"/clubs/circolo-alfa/ledger/{query}").status_code == 200
    assert (
        client.get(f"/clubs/circolo-alfa/ledger/players/{p['mia'].pk}/{query}").status_code == 200
    )


def test_a_statement_of_a_player_of_another_club_is_a_404(client, people, ledger):
    login(client, people["member"])
    stranger = people["other"].players.first()
    assert client.get(f"/clubs/circolo-alfa/ledger/players/{stranger.pk}/").status_code == 404
