"""Who sees the club's money: every page and endpoint that may show it, every viewer, public
and private. The statuses of these routes for the five roles are in each
feature's table; this one adds what each viewer sees of the money.

The rule (``clubs.access.ClubAccess.sees_money``): money (balances, winnings, running
balances, payments) is for the club's members, never for anonymous visitors nor for other
clubs' members; a club may hide it from its members too (``Club.members_see_money`` off),
and then only its admins see everyone's, and each person their own.

The viewers: anonymous, an outsider (a member of another club), a member (mia), the same
member when the club hides money, an admin (ada), and the person concerned (bea, who won the
money) when the club hides it. In each club bea won two hands of a table at 0,37 a point
against a guest (140 points, 51,80 EUR, each; 103,60 in all), and the guest has a pending
payment of 12,34 to her.
"""

from decimal import Decimal

import pytest
from django.test import Client
from rest_framework.test import APIClient

from clubs.models import Club, Role
from ledger import services as ledger
from matches.singapore import services, stats
from tests.permission_matrix import LOGIN, A, check_status
from tests.singapore_helpers import CLOSING, SEVENTY, nights_ago

VIEWERS = ["anonymous", "outsider", "member", "member-hidden", "admin", "self-hidden"]
USERS = {
    "anonymous": None,
    "outsider": "outsider",
    "member": "member",
    "member-hidden": "member",
    "admin": "admin",
    "self-hidden": "bea",
}
HIDDEN = {"member-hidden", "self-hidden"}  # the club hides money from its members

# What gives money away: bea's winnings and balance, the payment, her running balance chart.
MONEY = ["103.60", "103,60", "51.80", "51,80", "12.34", "12,34", "singapore-balance-"]

# Every route here is in its feature's permission table; this module adds no route.
ROUTES: list = []


def extend_world(world):
    ada, bea = world["admin"], world["bea"]
    for c in world["clubs"].values():
        bea_p = c.player_of(bea)
        done = services.open_session(
            club=c.club,
            by=ada,
            name="Tavolo dei soldi",
            seats=[bea_p, c.guest],
            point_value=Decimal("0.37"),
            first_dealer=bea_p,
            first_opponent=c.guest,
            date=nights_ago(6),  # not a night when the guest sits at another world's table
        )
        hands = []
        for _n in range(2):
            hands.append(
                services.record_hand(
                    session=done,
                    by=ada,
                    dealer=bea_p,
                    opponent=c.guest,
                    payload={
                        "winner": "dealer",
                        "winner_cards": CLOSING,
                        "loser_cards": SEVENTY,
                        "dealer_quotas": 2,
                        "covers": {str(c.guest.pk): 2},
                        "side_bets": [],
                    },
                ).hand
            )
        stats.rebuild_club(c.club.pk)  # the task that runs after commit, run here
        payment = ledger.record_payment(
            club=c.club, payer=c.guest, payee=bea_p, amount=Decimal("12.34"), unit="EUR", by=ada
        )
        c.extra.update(
            money_table=done,
            money_hand=hands[0],
            money_day=done.date.isoformat(),
            bea_p=bea_p,
            money_payment=payment,
        )


def shown(*seen: str) -> tuple[bool, ...]:
    """Money seen by these viewers, in VIEWERS order."""
    return tuple(viewer in seen for viewer in VIEWERS)


NOBODY = shown()
MEMBERS = shown("member", "admin")  # everyone's money: members, or admins only when hidden
OWN = shown("member", "admin", "self-hidden")  # and the person concerned, their own

# Statuses in VIEWERS order.
OPEN = (200,) * 6
OPEN_PRIVATE = (404, 404, 200, 200, 200, 200)
LEDGER_PAGE = (LOGIN, 403, 200, 200, 200, 200)
LEDGER_PAGE_PRIVATE = (LOGIN, 404, 200, 200, 200, 200)
OTHERS_STATEMENT = (LOGIN, 403, 200, 403, 200, 200)  # mia may not read bea's when hidden
OTHERS_STATEMENT_PRIVATE = (LOGIN, 404, 200, 403, 200, 200)
TABLE = (LOGIN, 403, 200, 200, 200, 200)
TABLE_PRIVATE = (LOGIN, 404, 200, 200, 200, 200)
LEDGER_API = (A, 403, 200, 200, 200, 200)
LEDGER_API_PRIVATE = (A, 404, 200, 200, 200, 200)
STATEMENT_API = (A, 403, 200, 403, 200, 200)
STATEMENT_API_PRIVATE = (A, 404, 200, 403, 200, 200)
TABLE_API = (A, 404, 200, 200, 200, 200)
MINE = (A, 200, 200, 200, 200, 200)

LB = "/api/v1/clubs/{slug}/leaderboards/singapore/"
Q = "?club={slug}&unit=EUR"
TS = "/api/v1/table-sessions/{money_table}"

# (name, path, api, public statuses, private statuses, who sees money)
MATRIX = [
    ("player-page", "/clubs/{slug}/players/{bea_p}/", False, OPEN, OPEN_PRIVATE, OWN),
    ("leaderboards", "/clubs/{slug}/leaderboards/", False, OPEN, OPEN_PRIVATE, MEMBERS),
    (
        "leaderboards-by-money",
        "/clubs/{slug}/leaderboards/?sort=singapore.net_money",
        False,
        OPEN,
        OPEN_PRIVATE,
        MEMBERS,
    ),
    ("club-night", "/clubs/{slug}/nights/{money_day}/", False, OPEN, OPEN_PRIVATE, MEMBERS),
    ("club-page", "/clubs/{slug}/", False, OPEN, OPEN_PRIVATE, NOBODY),
    ("ledger", "/clubs/{slug}/ledger/?unit=EUR", False, LEDGER_PAGE, LEDGER_PAGE_PRIVATE, OWN),
    (
        "statement",
        "/clubs/{slug}/ledger/players/{bea_p}/?unit=EUR",
        False,
        OTHERS_STATEMENT,
        OTHERS_STATEMENT_PRIVATE,
        OWN,
    ),
    (
        "statement-csv",
        "/clubs/{slug}/ledger/players/{bea_p}/statement.csv?unit=EUR",
        False,
        OTHERS_STATEMENT,
        OTHERS_STATEMENT_PRIVATE,
        OWN,
    ),
    # The sheet's plan lists bea's own payment to receive; its figures are points.
    ("sheet", "/clubs/{slug}/tables/{money_table}/sheet/", False, TABLE, TABLE_PRIVATE, OWN),
    (
        "sheet-csv",
        "/clubs/{slug}/tables/{money_table}/sheet.csv",
        False,
        TABLE,
        TABLE_PRIVATE,
        MEMBERS,
    ),
    (
        "hand",
        "/clubs/{slug}/tables/{money_table}/hands/{money_hand}/",
        False,
        TABLE,
        TABLE_PRIVATE,
        MEMBERS,
    ),
    ("api-leaderboard", LB, True, OPEN, OPEN_PRIVATE, MEMBERS),
    (
        "api-leaderboard-by-money",
        LB + "?ordering=-net_money",
        True,
        OPEN,
        OPEN_PRIVATE,
        MEMBERS,
    ),
    ("api-balances", "/api/v1/ledger/balances/" + Q, True, LEDGER_API, LEDGER_API_PRIVATE, OWN),
    ("api-debts", "/api/v1/ledger/debts/" + Q, True, LEDGER_API, LEDGER_API_PRIVATE, OWN),
    (
        "api-settle-up",
        "/api/v1/ledger/settle-up/" + Q,
        True,
        LEDGER_API,
        LEDGER_API_PRIVATE,
        OWN,
    ),
    (
        "api-statement",
        "/api/v1/ledger/statements/{bea_p}/?unit=EUR",
        True,
        STATEMENT_API,
        STATEMENT_API_PRIVATE,
        OWN,
    ),
    ("api-payments", "/api/v1/ledger/payments/?club={slug}", True, MINE, MINE, OWN),
    (
        "api-payment",
        "/api/v1/ledger/payments/{money_payment}/",
        True,
        (A, 404, 200, 404, 200, 200),
        (A, 404, 200, 404, 200, 200),
        OWN,
    ),
    ("api-hands", TS + "/hands/", True, TABLE_API, TABLE_API, MEMBERS),
    ("api-hand", TS + "/hands/{money_hand}/", True, TABLE_API, TABLE_API, MEMBERS),
]


def cases():
    for name, path, api, public, private, money in MATRIX:
        for kind, statuses in [("public", public), ("private", private)]:
            for viewer, status, sees in zip(VIEWERS, statuses, money, strict=True):
                yield pytest.param(
                    kind, path, api, viewer, status, sees, id=f"{name}-{kind}-{viewer}"
                )


def fill(path: str, c) -> str:
    return path.format(slug=c.slug, **{k: getattr(v, "pk", v) for k, v in c.extra.items()})


def look(world, kind: str, path: str, viewer: str, *, api: bool):
    c = world["clubs"][kind]
    if viewer in HIDDEN:
        Club.objects.filter(pk=c.club.pk).update(members_see_money=False)
    client = APIClient() if api else Client()
    role = USERS[viewer]
    if role is not None:
        client.force_login(world[role])
    return client.get(fill(path, c))


def text_of(response) -> str:
    if getattr(response, "streaming", False):
        return b"".join(response.streaming_content).decode()
    return response.content.decode()


def has_money(text: str) -> bool:
    return any(marker in text for marker in MONEY)


@pytest.mark.parametrize("kind, path, api, viewer, status, sees", list(cases()))
def test_each_viewer_sees_the_money_the_rule_allows(world, kind, path, api, viewer, status, sees):
    response = look(world, kind, path, viewer, api=api)
    check_status(response, status)
    assert has_money(text_of(response)) is sees


def test_the_world_has_money_to_hide(world):
    """The markers are real: the member sees the winnings, the payment and the chart."""
    c = world["clubs"]["public"]
    page = text_of(look(world, "public", "/clubs/{slug}/players/{bea_p}/", "member", api=False))
    assert "103,60" in page or "103.60" in page
    assert "singapore-balance-" in page
    ledger_page = text_of(
        look(world, "public", "/clubs/{slug}/ledger/?unit=EUR", "admin", api=False)
    )
    assert "12,34" in ledger_page or "12.34" in ledger_page
    assert c.club.members_see_money


def test_an_anonymous_player_page_shows_no_money_even_after_a_member_filled_the_cache(world):
    """The contract: ``GET /clubs/<slug>/players/<id>/`` as an anonymous visitor of a public
    club shows no money figure for any game, whoever opened the page before (the games'
    sections are cached per club, and whole public pages per address)."""
    path = "/clubs/{slug}/players/{bea_p}/"
    for viewer in ["member", "admin", "anonymous", "member", "anonymous"]:
        page = text_of(look(world, "public", path, viewer, api=False))
        assert has_money(page) is (viewer != "anonymous"), viewer
    assert 'id="player-singapore"' in page  # the game's section is there, without money


def test_the_admin_sees_everyones_money_when_the_club_hides_it_from_members(world):
    c = world["clubs"]["public"]
    Club.objects.filter(pk=c.club.pk).update(members_see_money=False)
    admin = APIClient()
    admin.force_login(world["admin"])
    board = admin.get(fill(LB, c)).json()
    assert "net_money" in {column["key"] for column in board["columns"]}
    bea_row = next(row for row in board["rows"] if row["player"] == c.extra["bea_p"].pk)
    assert bea_row["net_money"] == "103.60"


def test_a_member_sees_only_their_own_balance_when_the_club_hides_money(world):
    c = world["clubs"]["private"]
    Club.objects.filter(pk=c.club.pk).update(members_see_money=False)
    bea = APIClient()
    bea.force_login(world["bea"])
    balances = bea.get(fill("/api/v1/ledger/balances/" + Q, c)).json()
    assert [row["player"] for row in balances] == [c.extra["bea_p"].pk]
    assert balances[0]["balance"] == "103.60"
    mia = APIClient()
    mia.force_login(world["member"])
    assert mia.get(fill("/api/v1/ledger/balances/" + Q, c)).json() == []


def test_the_night_report_mail_carries_money_only_to_who_sees_it(world, mailoutbox):
    from clubs.models import Membership
    from matches.boards.tasks import send_night_report

    c = world["clubs"]["public"]
    Club.objects.filter(pk=c.club.pk).update(members_see_money=False)
    Membership.objects.filter(club=c.club).update(night_report=True)
    send_night_report(c.club.pk, c.extra["money_day"])
    by_address = {m.to[0]: m for m in mailoutbox}
    admin, member = by_address["ada@example.org"], by_address["mia@example.org"]
    assert "103,60" in admin.body or "103.60" in admin.body
    assert not has_money(member.body) and not has_money(member.alternatives[0][0])
    assert "Tavolo dei soldi" in member.body


@pytest.mark.parametrize("role", [Role.MEMBER, Role.SCORER])
def test_the_clubs_setting_is_the_admins_to_change(world, role):
    c = world["clubs"]["public"]
    user = {Role.MEMBER: world["member"], Role.SCORER: world["scorer"]}[role]
    client = APIClient()
    client.force_login(user)
    response = client.patch(f"/api/v1/clubs/{c.slug}/", {"members_see_money": False}, "json")
    assert response.status_code == 403
    assert Club.objects.get(pk=c.club.pk).members_see_money
    admin = APIClient()
    admin.force_login(world["admin"])
    response = admin.patch(f"/api/v1/clubs/{c.slug}/", {"members_see_money": False}, "json")
    assert response.status_code == 200 and response.json()["members_see_money"] is False
    assert not Club.objects.get(pk=c.club.pk).members_see_money
