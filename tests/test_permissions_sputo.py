"""Who may open the tournament pages and call the tournament endpoints: every route, every
role, public and private clubs. The policy and the helpers: ``tests/permission_matrix.py``."""

import pytest

from clubs.models import Role
from matches.models import CalendarFeed
from matches.results import steps
from matches.sputo import services
from tests.permission_matrix import (
    EVERYONE,
    LOGIN,
    MEMBERS,
    READ,
    READ_PRIVATE,
    A,
    api_write,
    call,
    check_status,
    expand,
    page,
)

MEMBER, SCORER, ADMIN = Role.MEMBER, Role.SCORER, Role.ADMIN


def extend_world(world):
    """Per club: a tournament in registration (guests entered), one in check-in (mia
    entered), and running ones whose matches are ready, reported, disputed, decided."""
    for c in world["clubs"].values():
        _extend_club(c, world["admin"], world["member"], world["bea"])


def _extend_club(c, ada, mia, bea):
    from django.utils import timezone

    club = c.club
    mia_p, bea_p = c.player_of(mia), c.player_of(bea)

    def tournament(name, players, status="registration"):
        t = services.create_tournament(
            club=club, by=ada, name=name, starts_at=timezone.now(), seeding="manual"
        )
        services.update_tournament(tournament=t, by=ada, status="registration")
        entrants = [services.add_entrant(tournament=t, player=p, by=ada) for p in players]
        if status == "check_in":
            services.update_tournament(tournament=t, by=ada, status="check_in")
        return t, entrants

    reg, (guest_entry, _spare) = tournament("Iscrizioni", [c.guest, c.spare])
    checkin, _ = tournament("Appello", [mia_p, c.guest], status="check_in")

    def final(name, step=None):
        t, _ = tournament(name, [mia_p, bea_p])
        services.draw_tournament(tournament=t, by=ada)
        m = t.matches.get()
        payload = {"games": [{"winner": mia_p.pk, "cards_left": 3}]}
        if step in ("reported", "disputed"):
            steps.report_outcome(subject=m, payload=payload, by=bea)
        if step == "disputed":
            steps.dispute_outcome(subject=m, by=mia, reason="Non è così")
        if step == "mine":
            steps.report_outcome(subject=m, payload=payload, by=mia)
        if step == "decided":
            steps.report_outcome(subject=m, payload=payload, by=ada)
        return t, m

    running, ready = final("In corso")

    def staged(name, **values):
        """A tournament of mia and bea in a stage of standings, its first match decided."""
        t = services.create_tournament(
            club=club, by=ada, name=name, starts_at=timezone.now(), **values
        )
        services.update_tournament(tournament=t, by=ada, status="registration")
        for p in (mia_p, bea_p):
            services.add_entrant(tournament=t, player=p, by=ada)
        services.draw_tournament(tournament=t, by=ada)
        m = t.matches.exclude(player_b=None).get()
        payload = {"games": [{"winner": mia_p.pk, "cards_left": 3}]}
        steps.report_outcome(subject=m, payload=payload, by=ada)
        return t

    listed = services.create_tournament(
        club=club, by=ada, name="Con lista", starts_at=timezone.now(), capacity=2
    )
    services.update_tournament(tournament=listed, by=ada, status="registration")
    listed_entry = services.add_entrant(tournament=listed, player=mia_p, by=ada)
    for p in (bea_p, c.guest):  # the guest waits
        services.add_entrant(tournament=listed, player=p, by=ada)
    services.draw_tournament(tournament=listed, by=ada)
    robin = staged("Girone all'italiana", format="round_robin")
    grouped = staged("Gironi", format="groups_then_knockout", groups=1, advance=2)
    swissed = staged("Svizzero", format="swiss", swiss_rounds=2)
    _t, reported = final("Riportata", "reported")
    _t, disputed = final("Contestata", "disputed")
    _t, mine = final("Mia", "mine")
    _t, decided = final("Decisa", "decided")
    c.extra.update(
        reg=reg,
        checkin=checkin,
        running=running,
        ready=ready,
        reported=reported,
        disputed=disputed,
        mine=mine,
        decided=decided,
        robin=robin,
        listed=listed,
        listed_entry=listed_entry,
        grouped=grouped,
        swissed=swissed,
        guest_entry=guest_entry,
        mia_player=mia_p,
        feed=CalendarFeed.objects.get_or_create(user=mia)[0].token,
    )


def mia(c):
    return {"player": c.extra["mia_player"].pk}


def result(c):
    return {"games": [{"winner": c.extra["mia_player"].pk, "cards_left": 2}]}


T = "/clubs/{slug}/tournaments/"

PAGES = [
    ("tournaments", "get", T, None, EVERYONE, MEMBERS),
    (
        "tournament-create",
        "post",
        T + "new/",
        lambda c: {
            "name": "Nuovo",
            "starts_at": "2030-01-01T20:00",
            "variant": "classic",
            "best_of": 1,
            "seeding": "random",
        },
        page(ADMIN, public=True, ok=302),
        page(ADMIN, public=False, ok=302),
    ),
    ("tournament", "get", T + "{reg}/", None, EVERYONE, MEMBERS),
    ("bracket", "get", T + "{running}/bracket/", None, EVERYONE, MEMBERS),
    (
        "tournament-update",
        "post",
        T + "{reg}/update/",
        lambda c: {"status": "check_in"},
        page(ADMIN, public=True, ok=302),
        page(ADMIN, public=False, ok=302),
    ),
    (
        "enter",
        "post",
        T + "{reg}/entrants/",
        mia,
        page(MEMBER, public=True, ok=302),
        page(MEMBER, public=False, ok=302),
    ),
    (
        "withdraw-entry",
        "post",
        T + "{reg}/entrants/{guest_entry}/withdraw/",
        lambda c: {},
        page(SCORER, public=True, ok=302),
        page(SCORER, public=False, ok=302),
    ),
    (
        "withdraw-entry-get",  # the confirmation: for those who may withdraw it
        "get",
        T + "{reg}/entrants/{guest_entry}/withdraw/",
        None,
        page(SCORER, public=True),
        page(SCORER, public=False),
    ),
    (
        "enter-many-get",
        "get",
        T + "{reg}/entrants/add/",
        None,
        page(SCORER, public=True),
        page(SCORER, public=False),
    ),
    (
        "enter-many",
        "post",
        T + "{reg}/entrants/add/",
        lambda c: {"names": "Persona Nuova"},
        page(SCORER, public=True, ok=302),
        page(SCORER, public=False, ok=302),
    ),
    (
        "cancel-get",
        "get",
        T + "{running}/cancel/",
        None,
        page(ADMIN, public=True),
        page(ADMIN, public=False),
    ),
    (
        "cancel",
        "post",
        T + "{running}/cancel/",
        lambda c: {},
        page(ADMIN, public=True, ok=302),
        page(ADMIN, public=False, ok=302),
    ),
    (
        "check-in",
        "post",
        T + "{checkin}/check-in/",
        mia,
        page(MEMBER, public=True, ok=302),
        page(MEMBER, public=False, ok=302),
    ),
    (
        "draw",
        "post",
        T + "{reg}/draw/",
        lambda c: {},
        page(ADMIN, public=True, ok=302),
        page(ADMIN, public=False, ok=302),
    ),
    (
        "next-stage-page",
        "post",
        T + "{grouped}/next-stage/",
        lambda c: {},
        page(ADMIN, public=True, ok=302),
        page(ADMIN, public=False, ok=302),
    ),
    (
        "replace-entry-page",
        "post",
        T + "{listed}/entrants/{listed_entry}/replace/",
        lambda c: {},
        page(ADMIN, public=True, ok=302),
        page(ADMIN, public=False, ok=302),
    ),
    (
        "start-round-page",
        "post",
        T + "{swissed}/rounds/start/",
        lambda c: {"round": 1, "minutes": 20},
        page(ADMIN, public=True, ok=302),
        page(ADMIN, public=False, ok=302),
    ),
    (
        "forbid-pair-page",
        "post",
        T + "{swissed}/forbidden-pairs/",
        lambda c: {"remove": "0-0"},
        page(ADMIN, public=True, ok=302),
        page(ADMIN, public=False, ok=302),
    ),
    (
        "next-round-page",
        "post",
        T + "{swissed}/rounds/next/",
        lambda c: {},
        page(ADMIN, public=True, ok=302),
        page(ADMIN, public=False, ok=302),
    ),
    ("staged-tournament", "get", T + "{grouped}/", None, EVERYONE, MEMBERS),
    ("staged-bracket", "get", T + "{swissed}/bracket/", None, EVERYONE, MEMBERS),
    ("match", "get", T + "{running}/matches/{ready}/", None, EVERYONE, MEMBERS),
    (
        "match-report",
        "post",
        T + "{running}/matches/{ready}/report/",
        lambda c: {"winner_1": c.extra["mia_player"].pk, "cards_1": 3},
        page(MEMBER, public=True, ok=302),
        page(MEMBER, public=False, ok=302),
    ),
    (
        "match-resolve",  # the admin may; this match needs no resolving: a message
        "post",
        T + "{running}/matches/{ready}/resolve/",
        lambda c: {"action": "replay"},
        page(ADMIN, public=True, ok=302),
        page(ADMIN, public=False, ok=302),
    ),
    ("calendar", "get", "/calendar/", None, (LOGIN, 200, 200, 200, 200), None),
    ("calendar-regenerate", "post", "/calendar/", lambda c: {}, (LOGIN, 302, 302, 302, 302), None),
    ("my-calendar", "get", "/calendar/{feed}/matches.ics", None, EVERYONE, EVERYONE),
    ("club-calendar", "get", "/calendar/{feed}/clubs/{slug}.ics", None, EVERYONE, EVERYONE),
]

M = "/api/v1/tournament-matches/"
TA = "/api/v1/tournaments/"

API = [
    ("tournaments-list", "get", TA, None, READ, None),
    (
        "tournaments-create",
        "post",
        TA,
        lambda c: {"club": c.slug, "name": "Nuovo", "starts_at": "2030-01-01T20:00:00Z"},
        (A, 403, 403, 403, 201),
        (A, 404, 403, 403, 201),  # a club the caller cannot see is a club that is not there
    ),
    ("tournaments-retrieve", "get", TA + "{reg}/", None, READ, READ_PRIVATE),
    (
        "tournaments-update",
        "patch",
        TA + "{reg}/",
        lambda c: {"name": "Rinominato"},
        api_write(ADMIN, public=True),
        api_write(ADMIN, public=False),
    ),
    (
        "tournaments-put",
        "put",
        TA + "{reg}/",
        lambda c: {"club": c.slug, "name": "Rinominato", "starts_at": "2030-01-01T20:00:00Z"},
        api_write(ADMIN, public=True),
        api_write(ADMIN, public=False),
    ),
    (
        "tournaments-delete",
        "delete",
        TA + "{reg}/",
        None,
        (A, 405, 405, 405, 405),
        (A, 405, 405, 405, 405),
    ),
    ("entrants", "get", TA + "{reg}/entrants/", None, READ, READ_PRIVATE),
    (
        "entrants-add",
        "post",
        TA + "{reg}/entrants/",
        mia,
        api_write(MEMBER, public=True, ok=201),
        api_write(MEMBER, public=False, ok=201),
    ),
    (
        "entrants-bulk",
        "post",
        TA + "{reg}/entrants/bulk/",
        lambda c: {"names": ["Persona Nuova"]},
        api_write(SCORER, public=True, ok=201),
        api_write(SCORER, public=False, ok=201),
    ),
    (
        "entrants-remove",
        "delete",
        TA + "{reg}/entrants/{guest_entry}/",
        None,
        api_write(SCORER, public=True, ok=204),
        api_write(SCORER, public=False, ok=204),
    ),
    (
        "check-in",
        "post",
        TA + "{checkin}/check-in/",
        mia,
        api_write(MEMBER, public=True),
        api_write(MEMBER, public=False),
    ),
    (
        "draw",
        "post",
        TA + "{reg}/draw/",
        None,
        api_write(ADMIN, public=True),
        api_write(ADMIN, public=False),
    ),
    ("bracket", "get", TA + "{running}/bracket/", None, READ, READ_PRIVATE),
    ("standings", "get", TA + "{robin}/standings/", None, READ, READ_PRIVATE),
    ("stage-matches", "get", TA + "{robin}/matches/?round=1", None, READ, READ_PRIVATE),
    (
        "next-stage",
        "post",
        TA + "{grouped}/next-stage/",
        None,
        api_write(ADMIN, public=True),
        api_write(ADMIN, public=False),
    ),
    (
        "replace-entrant",
        "post",
        TA + "{listed}/entrants/{listed_entry}/replace/",
        None,
        api_write(ADMIN, public=True),
        api_write(ADMIN, public=False),
    ),
    (
        "start-round",
        "post",
        TA + "{grouped}/rounds/1/start/",
        lambda c: {"minutes": 20},
        api_write(ADMIN, public=True),
        api_write(ADMIN, public=False),
    ),
    (
        "next-round",
        "post",
        TA + "{swissed}/rounds/next/",
        None,
        api_write(ADMIN, public=True),
        api_write(ADMIN, public=False),
    ),
    ("match-retrieve", "get", M + "{ready}/", None, READ, READ_PRIVATE),
    (
        "report",
        "post",
        M + "{ready}/report/",
        result,
        api_write(MEMBER, public=True, ok=201),
        api_write(MEMBER, public=False, ok=201),
    ),
    (
        "confirm",
        "post",
        M + "{reported}/confirm/",
        None,
        api_write(MEMBER, public=True),
        api_write(MEMBER, public=False),
    ),
    (
        "dispute",
        "post",
        M + "{reported}/dispute/",
        lambda c: {"reason": "Non è andata così"},
        api_write(MEMBER, public=True),
        api_write(MEMBER, public=False),
    ),
    (
        "withdraw",  # only the reporter (mia) takes back a report
        "post",
        M + "{mine}/withdraw/",
        None,
        (A, 403, 200, 403, 403),
        (A, 404, 200, 403, 403),
    ),
    (
        "decide",
        "post",
        M + "{disputed}/decide/",
        lambda c: {"uphold": True},
        api_write(SCORER, public=True),
        api_write(SCORER, public=False),
    ),
    (
        "correct",
        "post",
        M + "{decided}/correct/",
        lambda c: {"walkover": c.extra["mia_player"].pk, "reason": "Errore", "preview": True},
        api_write(ADMIN, public=True),
        api_write(ADMIN, public=False),
    ),
    (
        "resolve",  # the admin may; this match needs no resolving: a 409
        "post",
        M + "{decided}/resolve/",
        lambda c: {"action": "replay"},
        api_write(ADMIN, public=True, ok=409),
        api_write(ADMIN, public=False, ok=409),
    ),
]

ROUTES = PAGES + API


@pytest.mark.parametrize("kind, method, path, body, role, expected", expand(PAGES))
def test_each_page_answers_each_role_as_the_rules_say(
    world, kind, method, path, body, role, expected
):
    check_status(call(world, kind, method, path, body, role, api=False), expected)


@pytest.mark.parametrize("kind, method, path, body, role, expected", expand(API))
def test_each_endpoint_answers_each_role_as_the_rules_say(
    world, kind, method, path, body, role, expected
):
    check_status(call(world, kind, method, path, body, role, api=True), expected)


def test_a_refused_report_or_draw_changes_nothing(world):
    from tests.permission_matrix import client_for

    c = world["clubs"]["public"]
    outsider = client_for(world, "outsider")
    outsider.post(f"/clubs/{c.slug}/tournaments/{c.extra['reg'].pk}/draw/")
    outsider.post(
        f"/clubs/{c.slug}/tournaments/{c.extra['running'].pk}/matches/{c.extra['ready'].pk}/report/",
        {"winner_1": c.extra["mia_player"].pk, "cards_1": 3},
    )
    c.extra["reg"].refresh_from_db()
    c.extra["ready"].refresh_from_db()
    assert c.extra["reg"].status == "registration"
    assert c.extra["ready"].result == "" and c.extra["ready"].outcome_in_force() is None
