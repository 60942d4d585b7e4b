"""The members page: a compact list sorted by name, searchable; errors shown at the form
that caused them; a confirmation page before removing anyone or merging a guest."""

import re
from collections import Counter

import pytest

from clubs import services
from clubs.models import Membership, Player, Role
from matches.results.steps import record_game

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _pages_in_english(client):
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "en"


@pytest.fixture
def admin(client, people):
    client.force_login(people["admin"])
    return client


def url(people, rest=""):
    return f"/clubs/{people['club'].slug}/members/{rest}"


def names_in(response, list_id):
    html = response.content.decode()
    block = html.split(f'id="{list_id}"', 1)[1].split("</ul>", 1)[0]
    return re.findall(r'data-name="([^"]+)"', block)


def play(club, *players):
    names = [p.display_name for p in players]
    record_game(
        club=club,
        record={"game": "spazzumazz", "players": names, "finish_order": names},
        players={p.display_name: p for p in players},
    )


def test_members_and_guests_are_listed_by_name_whatever_the_case(admin, people, make_user):
    club = people["club"]
    services.add_member(club=club, user=make_user("zeno", first_name="Zeno"))
    services.add_member(club=club, user=make_user("bruna", first_name="bruna"))
    services.add_guest(club=club, display_name="anna")
    services.add_guest(club=club, display_name="Beppe")
    response = admin.get(url(people))
    assert names_in(response, "members") == ["ada", "bruna", "mia", "sam", "Zeno"]
    assert names_in(response, "guests") == ["anna", "Beppe", "Zio Pino"]


def test_the_search_keeps_only_the_names_that_contain_it(admin, people):
    services.add_guest(club=people["club"], display_name="Zia Lina")
    response = admin.get(url(people), {"q": "zi"})
    assert names_in(response, "members") == []
    assert names_in(response, "guests") == ["Zia Lina", "Zio Pino"]
    assert response.context["q"] == "zi"
    assert names_in(admin.get(url(people), {"q": "MI"}), "members") == ["mia"]


def test_a_claimed_guest_shows_the_same_name_in_the_list_the_merge_choices_and_the_messages(
    admin, people, make_user
):
    club, pino = people["club"], people["guest"]
    invitation = services.create_invitation(club=club, by=people["admin"], player=pino)
    giuseppe = make_user("giuseppe", first_name="Giuseppe", last_name="Verdi")
    services.accept_invitation(token=invitation.token, user=giuseppe)
    spare = services.add_guest(club=club, display_name="Ospite")

    response = admin.get(url(people))
    assert "Zio Pino" in names_in(response, "members")
    assert "Giuseppe Verdi" not in response.content.decode()
    targets = [label for _value, label in response.context["merge_form"].fields["target"].choices]
    assert "Zio Pino" in targets

    response = admin.post(
        url(people, "merge/"), {"source": spare.pk, "target": pino.pk}, follow=True
    )
    assert "Zio Pino" in str(list(response.context["messages"])[0])


def test_adding_a_guest_with_a_taken_name_shows_the_error_at_that_form_keeping_the_name(
    admin, people
):
    response = admin.post(url(people, "guests/"), {"display_name": "Zio Pino"})
    assert response.status_code == 200
    form = response.context["guest_form"]
    assert form.errors["display_name"] == ["This club already has a player with this name."]
    html = response.content.decode()
    add_form = html.split('id="add-guest"', 1)[1].split("</form>", 1)[0]
    assert 'value="Zio Pino"' in add_form
    assert "already has a player with this name" in add_form


def test_an_admin_renames_a_guest(admin, people):
    response = admin.post(
        url(people, f"guests/{people['guest'].pk}/rename/"), {"display_name": " Zio  Peppino "}
    )
    assert response.status_code == 302
    people["guest"].refresh_from_db()
    assert people["guest"].display_name == "Zio Peppino"


def test_a_rename_to_a_taken_name_is_shown_open_at_that_guest_with_what_was_typed(admin, people):
    other = services.add_guest(club=people["club"], display_name="Beppe")
    response = admin.post(url(people, f"guests/{other.pk}/rename/"), {"display_name": "mia"})
    assert response.status_code == 200
    html = response.content.decode()
    row = html.split(f'id="guest-{other.pk}"', 1)[1].split("</li>", 1)[0]
    assert "<details open>" in row
    assert 'value="mia"' in row
    assert "already has a player with this name" in row
    other.refresh_from_db()
    assert other.display_name == "Beppe"


def test_a_member_cannot_be_renamed_or_removed_as_a_guest(admin, people):
    mia = people["club"].players.get(user=people["member"])
    assert (
        admin.post(url(people, f"guests/{mia.pk}/rename/"), {"display_name": "X"}).status_code
        == 404
    )
    assert admin.post(url(people, f"guests/{mia.pk}/remove/")).status_code == 404


def test_removing_a_guest_asks_first_then_removes(admin, people):
    guest = people["guest"]
    page = admin.get(url(people, f"guests/{guest.pk}/remove/"))
    assert page.status_code == 200
    assert "Zio Pino" in page.context["question"]
    assert Player.objects.filter(pk=guest.pk).exists()
    response = admin.post(url(people, f"guests/{guest.pk}/remove/"))
    assert response.status_code == 302
    assert not Player.objects.filter(pk=guest.pk).exists()


def test_a_guest_with_games_is_not_removed_and_the_page_says_to_merge_instead(admin, people):
    club, guest = people["club"], people["guest"]
    play(club, guest, club.players.get(user=people["member"]))
    response = admin.post(url(people, f"guests/{guest.pk}/remove/"))
    assert response.status_code == 200
    assert "merge them into a member instead" in response.content.decode()
    assert Player.objects.filter(pk=guest.pk).exists()


def test_removing_a_member_asks_first_then_keeps_their_games_under_a_guest(admin, people):
    club = people["club"]
    membership = Membership.objects.get(club=club, user=people["member"])
    page = admin.get(url(people, f"{membership.pk}/remove/"))
    assert page.status_code == 200
    assert page.context["question"] == "Remove mia from Circolo Alfa?"
    assert Membership.objects.filter(pk=membership.pk).exists()
    admin.post(url(people, f"{membership.pk}/remove/"))
    assert not Membership.objects.filter(pk=membership.pk).exists()
    assert club.players.active().guests().filter(display_name="mia").exists()


def test_the_admin_leaves_from_the_leave_page_not_from_the_remove_button(admin, people):
    own = Membership.objects.get(club=people["club"], user=people["admin"])
    response = admin.get(url(people, f"{own.pk}/remove/"))
    assert response.status_code == 302
    assert response["Location"] == f"/clubs/{people['club'].slug}/leave/"


def test_merging_a_guest_asks_first_naming_both_then_merges(admin, people):
    club, guest = people["club"], people["guest"]
    mia = club.players.get(user=people["member"])
    page = admin.get(url(people, "merge/"), {"source": guest.pk, "target": mia.pk})
    assert page.status_code == 200
    assert page.context["question"] == "Merge the guest Zio Pino into mia?"
    assert "cannot be undone" in page.context["consequence"]
    guest.refresh_from_db()
    assert guest.merged_into is None
    html = page.content.decode()
    assert f'name="source" value="{guest.pk}"' in html
    assert f'name="target" value="{mia.pk}"' in html
    admin.post(url(people, "merge/"), {"source": guest.pk, "target": mia.pk})
    guest.refresh_from_db()
    assert guest.merged_into == mia


def test_a_merge_choice_that_cannot_work_is_shown_at_the_merge_form(admin, people):
    guest = people["guest"]
    response = admin.get(url(people, "merge/"), {"source": guest.pk, "target": guest.pk})
    assert response.status_code == 200
    assert response.context["merge_open"]
    assert response.context["merge_form"].non_field_errors() == [
        "A guest cannot be merged into themselves."
    ]


def test_a_merge_the_games_forbid_is_refused_on_the_confirmation_page(admin, people):
    club, guest = people["club"], people["guest"]
    mia = club.players.get(user=people["member"])
    play(club, guest, mia)
    response = admin.post(url(people, "merge/"), {"source": guest.pk, "target": mia.pk})
    assert response.status_code == 200
    assert response.context["error"].messages
    guest.refresh_from_db()
    assert guest.merged_into is None


def test_the_merge_link_of_a_guest_opens_the_merge_form_with_that_guest_chosen(admin, people):
    response = admin.get(url(people), {"merge": people["guest"].pk})
    assert response.context["merge_open"]
    assert response.context["merge_form"]["source"].value() == str(people["guest"].pk)


def test_the_only_admin_stepping_down_sees_the_error_at_their_own_row(admin, people):
    own = Membership.objects.get(club=people["club"], user=people["admin"])
    response = admin.post(url(people, f"{own.pk}/role/"), {"role": "member"})
    assert response.status_code == 200
    row = response.content.decode().split(f'id="member-{own.pk}"', 1)[1].split("</li>", 1)[0]
    assert "<details open>" in row
    assert "A club must keep at least one admin." in row
    own.refresh_from_db()
    assert own.role == Role.ADMIN


def test_an_admin_changes_a_members_role(admin, people):
    mia = Membership.objects.get(club=people["club"], user=people["member"])
    response = admin.post(url(people, f"{mia.pk}/role/"), {"role": "scorer"}, follow=True)
    assert "mia is now: Scorer." in [str(m) for m in response.context["messages"]]
    mia.refresh_from_db()
    assert mia.role == Role.SCORER


def test_a_scorer_sees_names_and_adds_guests_but_manages_nobody(client, people):
    client.force_login(people["scorer"])
    response = client.get(url(people))
    html = response.content.decode()
    assert 'id="add-guest"' in html
    assert (
        "/remove/" not in html and "/rename/" not in html and "merge_form" not in response.context
    )
    assert "invitations" not in response.context


def test_invitations_show_their_expiry_and_a_copy_button(admin, people):
    invitation = services.create_invitation(club=people["club"], by=people["admin"], max_uses=3)
    html = admin.get(url(people)).content.decode()
    row = html.split(f'id="invitation-{invitation.pk}"', 1)[1].split("</li>", 1)[0]
    assert "Expires" in row
    assert "used 0 of 3" in row
    assert f'data-copy="#link-{invitation.pk}"' in row
    assert invitation.get_absolute_url() in row


def test_a_bad_invitation_is_shown_at_its_form_with_what_was_typed(admin, people):
    response = admin.post(
        f"/clubs/{people['club'].slug}/invitations/",
        {"role": "member", "max_uses": "0", "email": "not-an-address"},
    )
    assert response.status_code == 200
    form = response.context["invitation_form"]
    assert set(form.errors) == {"max_uses", "email"}
    assert 'value="not-an-address"' in response.content.decode()
    assert not people["club"].invitations.exists()


def test_no_two_elements_of_the_members_page_share_an_id(admin, people):
    for name in ["Beppe", "Wanda"]:
        services.add_guest(club=people["club"], display_name=name)
    services.create_invitation(club=people["club"], by=people["admin"])
    html = admin.get(url(people)).content.decode()
    repeated = [i for i, n in Counter(re.findall(r'\sid="([^"]+)"', html)).items() if n > 1]
    assert repeated == []


def test_twenty_two_members_fit_in_a_short_page(admin, people, make_user):
    """The old table gave each member a select over its own button: about 180 px a row."""
    for n in range(20):
        services.add_member(club=people["club"], user=make_user(f"socio{n:02d}"))
    html = admin.get(url(people)).content.decode()
    members = html.split('id="members"', 1)[1].split("</ul>", 1)[0]
    assert members.count("<li ") == 23
    assert members.count("<details>") == 23  # each one folded
    assert "<select" in members  # inside the folded details, not on the row


def test_after_a_failed_action_the_search_and_the_links_still_lead_to_the_members_page(
    admin, people
):
    """The page is then shown at the action's address: nothing on it may be relative."""
    response = admin.post(url(people, "guests/"), {"display_name": ""})
    html = response.content.decode()
    assert f'action="{url(people)}" class="search"' in html
    assert f'href="{url(people)}?merge={people["guest"].pk}#merge"' in html
