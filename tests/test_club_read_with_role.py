"""A club read with the user's role in it (``Club.objects.visible_with_role``, the API's
``ClubSlugField``): the same clubs as ``visible_to``, and an access check that asks the
database no more, for that user only."""

import pytest
from django.contrib.auth.models import AnonymousUser
from django.db import connection
from django.http import Http404
from django.test.utils import CaptureQueriesContext

from clubs.access import access_club, read_with_role
from clubs.models import Club

pytestmark = pytest.mark.django_db

WHO = ["admin", "scorer", "member", "outsider", "anonymous"]


def _user(people, who):
    return AnonymousUser() if who == "anonymous" else people[who]


@pytest.mark.parametrize("who", WHO)
def test_the_same_clubs_as_visible_to_each_with_the_users_role(people, who):
    user = _user(people, who)
    read = {club.pk: club.role_here for club in Club.objects.visible_with_role(user)}
    assert set(read) == set(Club.objects.visible_to(user).values_list("pk", flat=True))
    for club in Club.objects.filter(pk__in=read):
        assert read[club.pk] == club.role_of(user)
    private = people["other"].pk
    assert (private in read) == (who == "outsider")  # the private club's founder alone


@pytest.mark.parametrize("who", WHO)
def test_access_to_a_club_so_read_asks_nothing_more_and_agrees(people, who):
    user = _user(people, who)
    fresh = access_club(user, people["club"])
    club = read_with_role(Club.objects.visible_with_role(user).get(pk=people["club"].pk), user)
    with CaptureQueriesContext(connection) as asked:
        access = access_club(user, club)
    assert len(asked) == 0
    assert (access.role, access.user_id) == (fresh.role, fresh.user_id)


def test_a_club_read_for_someone_else_is_asked_again_for_this_user(people):
    club = Club.objects.visible_with_role(people["admin"]).get(pk=people["club"].pk)
    read_with_role(club, people["admin"])
    with CaptureQueriesContext(connection) as asked:
        access = access_club(people["member"], club)
    assert len(asked) == 1
    assert access.role == "member"
    outsider_sees = Club.objects.visible_with_role(people["outsider"]).get(pk=people["other"].pk)
    read_with_role(outsider_sees, people["outsider"])
    with pytest.raises(Http404):
        access_club(people["member"], outsider_sees)  # private, and not the member's
