"""A member's whole page kept for them (``plumbing.public_pages.member_page``): the second
visit is answered from the cache, and nothing they should see is ever missed: a write
request, a notification, a message, another member's page, a sign-out, a removal."""

import re

import pytest
from django.test import Client
from django.test.utils import override_settings

from clubs import services as clubs
from clubs.inbox import services as inbox
from clubs.inbox.services import Waiting
from clubs.models import Membership, Role
from tests.test_member_pages import queries as visit  # (queries, html) of a 200

pytestmark = pytest.mark.django_db


def signed_in(user) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE="en", enforce_csrf_checks=True)
    client.force_login(user)
    return client


def token(html: str) -> str:
    return re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html).group(1)


@override_settings(PUBLIC_PAGE_RECHECK_SECONDS=0)  # every visit asks the cache
def test_the_second_visit_is_the_kept_page_with_a_token_of_its_own(people):
    club = people["club"]
    path = f"/clubs/{club.slug}/members/"
    mia = signed_in(people["member"])
    built, first = visit(mia, path)
    kept, second = visit(mia, path)
    assert kept < built and kept <= 2  # the session and the user
    assert "Zio Pino" in second
    assert "csrf-hole" not in first + second
    # The form's token of the kept page is good: the POST passes the CSRF check (a member
    # may not add a guest: a 403 from the page, not the CSRF failure page).
    refused = mia.post(
        f"/clubs/{club.slug}/members/guests/",
        {"display_name": "Nonna Lina", "csrfmiddlewaretoken": token(second)},
    )
    assert refused.status_code == 403 and b"CSRF" not in refused.content


def test_a_process_answers_the_same_session_from_memory_for_a_moment(people):
    path = f"/clubs/{people['club'].slug}/members/"
    mia = signed_in(people["member"])
    visit(mia, path)
    assert visit(mia, path)[0] == 0  # within PUBLIC_PAGE_RECHECK_SECONDS
    otto = signed_in(people["outsider"])  # another session: never the member's page
    assert otto.get(path).status_code == 403  # a public club's members: for its members


def test_a_write_request_shows_at_once(people):
    club = people["club"]
    path = f"/clubs/{club.slug}/members/"
    mia = signed_in(people["member"])
    assert "Nonna Lina" not in visit(mia, path)[1]
    admin = signed_in(people["admin"])
    form = admin.get(f"/clubs/{club.slug}/members/").content.decode()
    added = admin.post(
        f"/clubs/{club.slug}/members/guests/",
        {"display_name": "Nonna Lina", "csrfmiddlewaretoken": token(form)},
    )
    assert added.status_code == 302
    assert "Nonna Lina" in visit(mia, path)[1]


def test_a_write_shows_at_once_to_its_writer_in_every_process_of_the_server(people):
    """The server's other process kept the admin's page in its memory before the admin
    wrote (here: this process's memory as it was, put back after the write): the write's
    answer names it in a cookie, so the next page misses what any process kept before."""
    from plumbing import public_pages

    club = people["club"]
    path = f"/clubs/{club.slug}/members/"
    admin = signed_in(people["admin"])
    form = visit(admin, path)[1]
    assert visit(admin, path)[0] == 0  # kept in memory
    other_process = dict(public_pages._memory)
    added = admin.post(
        f"/clubs/{club.slug}/members/guests/",
        {"display_name": "Nonna Lina", "csrfmiddlewaretoken": token(form)},
    )
    assert added.status_code == 302 and public_pages.WROTE_COOKIE in added.cookies
    cookie = added.cookies[public_pages.WROTE_COOKIE]
    assert cookie["httponly"] and cookie["samesite"] == "Lax"
    admin.cookies.pop("messages", None)  # as after a write by the API: no message to show
    public_pages._memory.update(other_process)
    assert "Nonna Lina" in visit(admin, path)[1]


def test_each_member_has_their_own_page(people, make_user):
    club = people["club"]
    bea = make_user("bea")
    clubs.add_member(club=club, user=bea, role=Role.MEMBER)
    path = f"/clubs/{club.slug}/"
    mia_page = visit(signed_in(people["member"]), path)[1]
    bea_page = visit(signed_in(bea), path)[1]
    assert "(mia)" in mia_page and "(mia)" not in bea_page
    assert "(bea)" in bea_page


@override_settings(PUBLIC_PAGE_RECHECK_SECONDS=0)
def test_what_waits_for_the_member_shows_though_no_request_wrote_it(people, committed):
    club = people["club"]
    path = f"/clubs/{club.slug}/"
    mia = signed_in(people["member"])
    assert 'class="bell-count"' not in visit(mia, path)[1]
    # A task (no request) puts something in her inbox: her kept page is not shown again.
    waiting = Waiting(user_id=people["member"].pk, kind="invitation", url="/inbox/", data={})
    committed(
        lambda: inbox.sync(key="test:1", club_id=club.pk, kinds={"invitation"}, waiting=[waiting])
    )
    assert 'class="bell-count">1<' in visit(mia, path)[1]


@override_settings(PUBLIC_PAGE_RECHECK_SECONDS=0)
def test_a_page_with_a_message_is_shown_once_and_never_kept(people):
    club = people["club"]
    admin = signed_in(people["admin"])
    path = f"/clubs/{club.slug}/members/"
    visit(admin, path)  # kept
    form = admin.get(path).content.decode()
    response = admin.post(
        f"/clubs/{club.slug}/members/guests/",
        {"display_name": "Nonna Lina", "csrfmiddlewaretoken": token(form)},
        follow=True,
    )
    messages = [str(m) for m in response.context["messages"]]
    assert messages and messages[0] in response.content.decode()
    assert messages[0] not in visit(admin, path)[1]  # shown once


@override_settings(PUBLIC_PAGE_RECHECK_SECONDS=0)
def test_a_member_removed_or_signed_out_gets_the_page_no_more(people):
    club = people["club"]
    path = f"/clubs/{club.slug}/members/"
    mia = signed_in(people["member"])
    visit(mia, path)
    admin = signed_in(people["admin"])
    page = admin.get(path).content.decode()
    membership = Membership.objects.get(club=club, user=people["member"])
    removed = admin.post(
        f"/clubs/{club.slug}/members/{membership.pk}/remove/",
        {"csrfmiddlewaretoken": token(page)},
    )
    assert removed.status_code in (200, 302)
    assert Membership.objects.filter(pk=membership.pk).count() == 0
    assert mia.get(path).status_code == 403  # no longer a member of this public club
    sam = signed_in(people["scorer"])
    visit(sam, path)
    sam.logout()
    assert sam.get(path).status_code == 302  # to the login page


@override_settings(MEMBER_PAGE_SECONDS=0, PUBLIC_PAGE_RECHECK_SECONDS=0)
def test_turned_off_every_visit_builds_the_page(people):
    path = f"/clubs/{people['club'].slug}/members/"
    mia = signed_in(people["member"])
    assert min(visit(mia, path)[0], visit(mia, path)[0]) > 2
