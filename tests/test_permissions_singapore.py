"""Who may open the Singapore tables' pages and call their endpoints: every route, every
role, public and private. The policy and the helpers: ``tests/permission_matrix.py``.

A table's sheet says who owes whom, so tables are for the club's members: to anyone else
they read as tables that do not exist (404), even in a public club. Scorers and admins open
tables, seat people and record hands in force; a member may report a hand they play in (not
these: the hands here are between guests), and seat, sit out or remove only themself.
"""

from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from clubs import services as clubs
from clubs.models import Role
from matches.models import Hand, TableSession
from matches.results import steps
from matches.singapore import services
from tests.permission_matrix import (
    MINE,
    NOT_ALLOWED,
    POST_ONLY,
    ROLES,
    A,
    call,
    check_status,
    client_for,
    expand,
    page,
)
from tests.singapore_helpers import CLOSING, SEVENTY

MEMBER, SCORER, ADMIN = Role.MEMBER, Role.SCORER, Role.ADMIN

# Tables are for members: the outsider gets a 404 even in a public club.
SEEN = (A, 404, 200, 200, 200)
SCORERS = (A, 404, 403, 200, 200)
SCORERS_CREATE = (A, 404, 403, 201, 201)
ADMINS = (A, 404, 403, 403, 200)


def result(dealer, opponent, **extra):
    body = {
        "winner": "dealer",
        "winner_cards": CLOSING,
        "loser_cards": SEVENTY,
        "dealer_quotas": 2,
        "covers": {str(opponent.pk): 2},
        "side_bets": [],
    }
    body.update(extra)
    return body


def extend_world(world):
    """In each club: an open table of two guests and two members (``table``), a table with
    a hand in force (``done``, ``hand``), one with a hand a member reported (``reported``)
    and one with a disputed hand (``disputed``); a guest not seated (``newcomer``) and two
    more for new tables (``fresh``). Nobody sits at two open tables of one night, so the
    other tables are each on an earlier night."""
    ada, sam, bea = world["admin"], world["scorer"], world["bea"]
    for c in world["clubs"].values():
        club = c.club
        bea_p, mia_p = c.player_of(bea), c.player_of(world["member"])
        newcomer = clubs.add_guest(club=club, display_name="Nuovo Arrivato")
        fresh = [clubs.add_guest(club=club, display_name=f"Ospite {n}") for n in (1, 2)]

        def table(seats, name="Tavolo", club=club, nights_ago=0):
            return services.open_session(
                club=club,
                by=ada,
                name=name,
                seats=seats,
                first_dealer=seats[0],
                first_opponent=seats[1],
                date=timezone.localdate() - timedelta(days=7 * nights_ago),
            )

        open_table = table([c.guest, c.spare, bea_p, mia_p], "Tavolo 1")
        done = table([c.guest, c.spare], "Tavolo 2", nights_ago=1)
        hand = services.record_hand(
            session=done, by=sam, dealer=c.guest, opponent=c.spare, payload=result(c.guest, c.spare)
        ).hand
        reported_table = table([bea_p, c.guest], "Tavolo 3", nights_ago=2)
        reported = services.record_hand(
            session=reported_table,
            by=bea,
            dealer=bea_p,
            opponent=c.guest,
            payload=result(bea_p, c.guest),
        ).hand
        disputed_table = table([bea_p, c.spare], "Tavolo 4", nights_ago=3)
        disputed = services.record_hand(
            session=disputed_table,
            by=bea,
            dealer=bea_p,
            opponent=c.spare,
            payload=result(bea_p, c.spare),
        ).hand
        steps.dispute_outcome(subject=disputed, by=sam, reason="Le carte non tornano")
        closed = services.close_table(
            session=table([c.guest, c.spare], "Tavolo 5", nights_ago=4), by=ada
        )
        c.extra.update(
            closed=closed,
            table=open_table,
            done=done,
            hand=hand,
            reported_table=reported_table,
            reported=reported,
            disputed_table=disputed_table,
            disputed=disputed,
            newcomer=newcomer,
            fresh=fresh,
        )


TS = "/api/v1/table-sessions"


def _upload():
    from django.core.files.uploadedfile import SimpleUploadedFile

    return SimpleUploadedFile("hands.jsonl", b'{"game": "singapore"}\n')


API = [
    ("ts-list", "get", f"{TS}/?club__slug={{slug}}", None, MINE, MINE),
    (
        "ts-create",
        "post",
        f"{TS}/",
        lambda c: {"club": c.slug, "name": "Nuovo", "seats": [p.pk for p in c.extra["fresh"]]},
        (A, 403, 403, 201, 201),
        (A, 404, 403, 201, 201),  # a club the caller cannot see is a club that is not there
    ),
    ("ts-retrieve", "get", f"{TS}/{{table}}/", None, SEEN, SEEN),
    # The upload itself is multipart: test_an_import_upload_answers_each_role.
    ("ts-import-get", "get", f"{TS}/import/", None, NOT_ALLOWED, None),
    ("ts-update", "put", f"{TS}/{{table}}/", lambda c: {"name": "x"}, NOT_ALLOWED, None),
    ("ts-delete", "delete", f"{TS}/{{table}}/", None, NOT_ALLOWED, None),
    ("ts-close", "post", f"{TS}/{{table}}/close/", None, SCORERS, SCORERS),
    ("ts-reopen", "post", f"{TS}/{{closed}}/reopen/", None, ADMINS, ADMINS),
    (
        "ts-join",
        "post",
        f"{TS}/{{table}}/seats/",
        lambda c: {"player": c.extra["newcomer"].pk},
        SCORERS_CREATE,
        SCORERS_CREATE,
    ),
    ("ts-leave", "post", f"{TS}/{{table}}/seats/{{guest}}/leave/", None, SCORERS, SCORERS),
    ("ts-sit-out", "post", f"{TS}/{{table}}/seats/{{guest}}/sit-out/", None, SCORERS, SCORERS),
    ("ts-return", "post", f"{TS}/{{table}}/seats/{{guest}}/return/", None, SCORERS, SCORERS),
    ("ts-hands", "get", f"{TS}/{{done}}/hands/", None, SEEN, SEEN),
    (
        "ts-hands-post",
        "post",
        f"{TS}/{{table}}/hands/",
        lambda c: {"dealer": c.guest.pk, "opponent": c.spare.pk, **result(c.guest, c.spare)},
        SCORERS_CREATE,
        SCORERS_CREATE,
    ),
    ("ts-hand", "get", f"{TS}/{{done}}/hands/{{hand}}/", None, SEEN, SEEN),
    (
        "ts-void",
        "post",
        f"{TS}/{{done}}/hands/{{hand}}/void/",
        lambda c: {"reason": "Mazzo sbagliato"},
        SCORERS,
        SCORERS,
    ),
    (
        "ts-correct",
        "post",
        f"{TS}/{{done}}/hands/{{hand}}/correct/",
        lambda c: {**result(c.guest, c.spare, dealer_quotas=3), "reason": "Tre quote"},
        SCORERS,
        SCORERS,
    ),
    (
        "ts-confirm",
        "post",
        f"{TS}/{{reported_table}}/hands/{{reported}}/confirm/",
        None,
        SCORERS,
        SCORERS,
    ),
    (
        "ts-dispute",
        "post",
        f"{TS}/{{reported_table}}/hands/{{reported}}/dispute/",
        lambda c: {"reason": "Non è andata così"},
        SCORERS,
        SCORERS,
    ),
    # Only the reporter (bea, who is none of the roles here) may withdraw.
    (
        "ts-withdraw",
        "post",
        f"{TS}/{{reported_table}}/hands/{{reported}}/withdraw/",
        None,
        (A, 404, 403, 403, 403),
        (A, 404, 403, 403, 403),
    ),
    (
        "ts-decide",
        "post",
        f"{TS}/{{disputed_table}}/hands/{{disputed}}/decide/",
        lambda c: {"uphold": True},
        SCORERS,
        SCORERS,
    ),
]

T = "/clubs/{slug}/tables"


def pages(needed, ok=200):
    return page(needed, public=True, ok=ok), page(needed, public=False, ok=ok)


def hand_form(c, dealer, opponent, **extra):
    data = {
        "dealer": dealer.pk,
        "opponent": opponent.pk,
        "winner": "dealer",
        "winner_cards": " ".join(CLOSING),
        "loser_cards": " ".join(SEVENTY),
        "dealer_quotas": 2,
        f"cover_{opponent.pk}": 2,
        "action": "save",
    }
    data.update(extra)
    return data


PAGES = [
    ("tables", "get", f"{T}/", None, *pages(MEMBER)),
    ("open-table-form", "get", f"{T}/new/", None, *pages(SCORER)),
    (
        "open-table",
        "post",
        f"{T}/new/",
        lambda c: {
            "name": "Tavolo nuovo",
            "date": "2026-03-06",
            "seats": [p.pk for p in c.extra["fresh"]],
            "order": "",
            "first_dealer": "",
            "first_opponent": "",
        },
        *pages(SCORER, ok=302),
    ),
    ("table", "get", f"{T}/{{table}}/", None, *pages(MEMBER)),
    (
        "join",
        "post",
        f"{T}/{{table}}/seats/",
        lambda c: {"player": c.extra["newcomer"].pk},
        *pages(SCORER, ok=302),
    ),
    ("join-get", "get", f"{T}/{{table}}/seats/", None, POST_ONLY, POST_ONLY),
    ("seat-leave", "post", f"{T}/{{table}}/seats/{{guest}}/leave/", None, *pages(SCORER, ok=302)),
    ("seat-out", "post", f"{T}/{{table}}/seats/{{guest}}/sit-out/", None, *pages(SCORER, ok=302)),
    ("seat-get", "get", f"{T}/{{table}}/seats/{{guest}}/leave/", None, POST_ONLY, POST_ONLY),
    ("close", "post", f"{T}/{{table}}/close/", None, *pages(SCORER, ok=302)),
    # Closing asks first: GET is its confirmation page, changing nothing.
    ("close-get", "get", f"{T}/{{table}}/close/", None, *pages(SCORER)),
    ("reopen", "post", f"{T}/{{closed}}/reopen/", None, *pages(ADMIN, ok=302)),
    ("reopen-get", "get", f"{T}/{{closed}}/reopen/", None, POST_ONLY, POST_ONLY),
    ("new-hand-form", "get", f"{T}/{{table}}/hands/new/", None, *pages(MEMBER)),
    (
        "new-hand",
        "post",
        f"{T}/{{table}}/hands/new/",
        lambda c: hand_form(c, c.guest, c.spare),
        *pages(SCORER, ok=302),
    ),
    ("hand", "get", f"{T}/{{done}}/hands/{{hand}}/", None, *pages(MEMBER)),
    ("correct-form", "get", f"{T}/{{done}}/hands/{{hand}}/correct/", None, *pages(SCORER)),
    (
        "correct",
        "post",
        f"{T}/{{done}}/hands/{{hand}}/correct/",
        lambda c: hand_form(c, c.guest, c.spare, dealer_quotas=3, reason="Tre"),
        *pages(SCORER, ok=302),
    ),
    (
        "void",
        "post",
        f"{T}/{{done}}/hands/{{hand}}/void/",
        lambda c: {"reason": "Mazzo sbagliato"},
        *pages(SCORER, ok=302),
    ),
    (
        "confirm",
        "post",
        f"{T}/{{reported_table}}/hands/{{reported}}/confirm/",
        None,
        *pages(SCORER, ok=302),
    ),
    (
        "uphold",
        "post",
        f"{T}/{{disputed_table}}/hands/{{disputed}}/uphold/",
        lambda c: {"reason": "Va bene"},
        *pages(SCORER, ok=302),
    ),
    # Voiding asks first: GET is its confirmation page, changing nothing.
    ("void-get", "get", f"{T}/{{done}}/hands/{{hand}}/void/", None, *pages(SCORER)),
    (
        "confirm-get",
        "get",
        f"{T}/{{reported_table}}/hands/{{reported}}/confirm/",
        None,
        POST_ONLY,
        POST_ONLY,
    ),
    ("sheet", "get", f"{T}/{{done}}/sheet/", None, *pages(MEMBER)),
    ("sheet-csv", "get", f"{T}/{{done}}/sheet.csv", None, *pages(MEMBER)),
]

ROUTES = PAGES + API


@pytest.mark.parametrize("kind, method, path, body, role, expected", expand(API))
def test_each_endpoint_answers_each_role_as_the_rules_say(
    world, kind, method, path, body, role, expected
):
    check_status(call(world, kind, method, path, body, role, api=True), expected)


@pytest.mark.parametrize("kind, method, path, body, role, expected", expand(PAGES))
def test_each_page_answers_each_role_as_the_rules_say(
    world, kind, method, path, body, role, expected
):
    check_status(call(world, kind, method, path, body, role, api=False), expected)


@pytest.mark.parametrize(
    "kind, role, expected",
    [
        (kind, role, expected)
        for kind, statuses in [
            ("public", (A, 403, 403, 200, 200)),
            ("private", (A, 404, 403, 200, 200)),
        ]
        for role, expected in zip(ROLES, statuses, strict=True)
    ],
)
def test_an_import_upload_answers_each_role(world, kind, role, expected):
    c = world["clubs"][kind]
    api = client_for(world, role, APIClient)
    body = {"club": c.slug, "file": _upload()}
    check_status(api.post(f"{TS}/import/", body, format="multipart"), expected)


def test_a_member_may_seat_sit_out_and_remove_only_themself(world):
    c = world["clubs"]["private"]
    mia = c.player_of(world["member"])
    api = client_for(world, "member", APIClient)
    base = f"{TS}/{c.extra['table'].pk}/seats/"
    assert api.post(f"{base}{mia.pk}/sit-out/").status_code == 200
    assert api.post(f"{base}{mia.pk}/return/").status_code == 200
    assert api.post(f"{base}{mia.pk}/leave/").status_code == 200
    assert api.post(base, {"player": mia.pk}, format="json").status_code == 201
    assert api.post(f"{base}{c.guest.pk}/leave/").status_code == 403


def test_a_member_may_report_a_hand_they_play_in(world):
    c = world["clubs"]["private"]
    table = c.extra["table"]
    mia, bea = c.player_of(world["member"]), c.player_of(world["bea"])
    admin = client_for(world, "admin", APIClient)
    # The guest beats the spare, then bea: next the guest deals to mia.
    for opponent in (c.spare, bea):
        body = {"dealer": c.guest.pk, "opponent": opponent.pk, **result(c.guest, opponent)}
        assert admin.post(f"{TS}/{table.pk}/hands/", body, format="json").status_code == 201
    member = client_for(world, "member", APIClient)
    body = {"dealer": c.guest.pk, "opponent": mia.pk, **result(c.guest, mia, winner="opponent")}
    response = member.post(f"{TS}/{table.pk}/hands/", body, format="json")
    assert response.status_code == 201 and response.data["status"] == "reported"


@pytest.mark.parametrize("role", ["outsider", "member"])
def test_a_refused_write_changes_nothing(world, role):
    c = world["clubs"]["private"]
    api = client_for(world, role, APIClient)
    hand = c.extra["hand"]
    api.post(f"{TS}/{c.extra['done'].pk}/hands/{hand.pk}/void/", {"reason": "x"}, format="json")
    api.post(f"{TS}/{c.extra['table'].pk}/close/")
    api.post(f"{TS}/{c.extra['table'].pk}/seats/{c.guest.pk}/leave/")
    assert hand.outcome_in_force() is not None
    table = TableSession.objects.get(pk=c.extra["table"].pk)
    assert table.closed_at is None
    assert table.seats.get(player=c.guest).left_at is None
    assert Hand.objects.filter(session=table).count() == 0


def test_another_clubs_table_is_a_404_even_to_its_admin_elsewhere(world):
    """Otto administers Beta: Alfa's tables do not exist for him."""
    alfa = world["clubs"]["public"]
    otto = client_for(world, "outsider", APIClient)
    assert otto.get(f"{TS}/{alfa.extra['table'].pk}/").status_code == 404
    listed = otto.get(f"{TS}/").data["results"]
    assert alfa.extra["table"].pk not in [t["id"] for t in listed]
