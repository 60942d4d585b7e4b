from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

from clubs import accounts, services
from clubs.models import Membership, Role
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db


def test_an_admin_creates_an_invitation_from_the_members_page(client, people):
    client.force_login(people["admin"])
    response = client.post(
        f"/clubs/{people['club'].slug}/invitations/", {"role": "scorer", "max_uses": 3}
    )
    assert response.status_code == 302
    invitation = people["club"].invitations.get()
    assert (invitation.role, invitation.max_uses, invitation.created_by) == (
        "scorer",
        3,
        people["admin"],
    )
    page = client.get(f"/clubs/{people['club'].slug}/members/")
    assert invitation.get_absolute_url() in page.content.decode()


def test_a_signed_in_user_joins_through_the_link(client, people):
    invitation = services.create_invitation(club=people["club"], by=people["admin"])
    client.force_login(people["outsider"])
    response = client.post(invitation.get_absolute_url())
    assert response.status_code == 302
    membership = Membership.objects.get(club=people["club"], user=people["outsider"])
    assert membership.role == Role.MEMBER
    assert people["club"].players.filter(user=people["outsider"]).exists()
    invitation.refresh_from_db()
    assert invitation.uses == 1


def newcomer(**extra):
    return {
        "username": "nuovo",
        "email": "nuovo@example.org",
        "first_name": "Nino",
        "last_name": "Nuovo",
        "password1": PASSWORD,
        "password2": PASSWORD,
        **extra,
    }


def test_a_newcomer_invited_by_e_mail_creates_an_account_and_is_in_at_once(
    client, people, mailoutbox, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        invitation = services.create_invitation(
            club=people["club"], by=people["admin"], email="Nuovo@Example.org"
        )
    response = client.post(invitation.get_absolute_url(), newcomer())
    assert response.status_code == 302
    membership = Membership.objects.get(club=people["club"], user__username="nuovo")
    assert people["club"].players.get(user=membership.user).display_name == "Nino Nuovo"
    assert client.get("/").wsgi_request.user.username == "nuovo"
    assert len(mailoutbox) == 1  # the invitation; no confirmation needed


def test_a_newcomer_with_a_shared_link_joins_but_confirms_the_address_before_logging_in(
    client, people, mailoutbox, django_capture_on_commit_callbacks
):
    invitation = services.create_invitation(club=people["club"], by=people["admin"])
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(invitation.get_absolute_url(), newcomer())
    assert response.status_code == 302
    assert response["Location"] == "/accounts/confirm/"
    membership = Membership.objects.get(club=people["club"], user__username="nuovo")
    assert not membership.user.is_active
    assert not client.get("/").wsgi_request.user.is_authenticated
    assert [m.to for m in mailoutbox] == [["nuovo@example.org"]]
    invitation.refresh_from_db()
    assert invitation.uses == 1


def test_a_taken_username_at_signup_is_one_message_whatever_its_case(client, people):
    invitation = services.create_invitation(club=people["club"], by=people["admin"])
    response = client.post(
        invitation.get_absolute_url(), newcomer(username="MIA"), HTTP_ACCEPT_LANGUAGE="en"
    )
    assert response.status_code == 200
    taken = ["A user with that username already exists."]
    assert response.context["signup"].errors["username"] == taken
    with pytest.raises(ValidationError) as refused:
        accounts.sign_up(username="Mia", email="x@example.org", password=PASSWORD)
    assert refused.value.message_dict == {"username": taken}
    invitation.refresh_from_db()
    assert invitation.uses == 0


def test_a_weak_password_at_signup_is_a_form_error_and_nobody_joins(client, people):
    invitation = services.create_invitation(club=people["club"], by=people["admin"])
    response = client.post(
        invitation.get_absolute_url(),
        {
            "username": "nuovo",
            "email": "nuovo@example.org",
            "password1": "12345678",
            "password2": "12345678",
        },
    )
    assert response.status_code == 200
    assert response.context["signup"].errors["password2"]
    assert not Membership.objects.filter(user__username="nuovo").exists()
    invitation.refresh_from_db()
    assert invitation.uses == 0


def test_an_invitation_for_a_guest_hands_the_guest_over(client, people):
    invitation = services.create_invitation(
        club=people["club"], by=people["admin"], player=people["guest"]
    )
    client.force_login(people["outsider"])
    client.post(invitation.get_absolute_url())
    people["guest"].refresh_from_db()
    assert people["guest"].user == people["outsider"]


@pytest.mark.parametrize("spoil", ["revoked", "expired", "used_up"])
def test_a_spent_invitation_is_refused_with_a_clear_message(client, people, spoil):
    invitation = services.create_invitation(club=people["club"], by=people["admin"])
    if spoil == "revoked":
        services.revoke_invitation(invitation=invitation)
    elif spoil == "expired":
        invitation.expires_at = timezone.now() - timedelta(minutes=1)
        invitation.save()
    else:
        services.accept_invitation(
            token=invitation.token,
            user=people["member"].__class__.objects.create_user("x1", password=PASSWORD),
        )
    client.force_login(people["outsider"])
    page = client.get(invitation.get_absolute_url())
    assert page.context["usable"] is False
    response = client.post(invitation.get_absolute_url())
    assert response.status_code == 200
    assert not Membership.objects.filter(club=people["club"], user=people["outsider"]).exists()


def test_an_unknown_token_is_a_404(client, db):
    assert client.get("/invite/not-a-token/").status_code == 404


def test_joining_twice_is_refused(people):
    invitation = services.create_invitation(club=people["club"], by=people["admin"], max_uses=5)
    with pytest.raises(ValidationError, match="already a member"):
        services.accept_invitation(token=invitation.token, user=people["member"])
    invitation.refresh_from_db()
    assert invitation.uses == 0


def test_an_invitation_to_claim_a_guest_is_single_use(people):
    with pytest.raises(ValidationError) as error:
        services.create_invitation(
            club=people["club"], by=people["admin"], player=people["guest"], max_uses=2
        )
    assert "max_uses" in error.value.message_dict


def test_an_invitation_that_would_already_be_expired_is_refused(people):
    with pytest.raises(ValidationError) as error:
        services.create_invitation(
            club=people["club"], by=people["admin"], expires_at=timezone.now() - timedelta(days=1)
        )
    assert "expires_at" in error.value.message_dict
    assert not people["club"].invitations.exists()


def test_a_club_name_with_a_line_break_still_gets_its_invitation_mailed(
    client, people, mailoutbox, django_capture_on_commit_callbacks
):
    # Found by fuzzing the API: a name typed with a newline made the subject an invalid
    # header, and the mail task (in-process by default) turned the POST into a 500.
    club = people["club"]
    club.name = "Circolo\ndel Tressette"
    club.save(update_fields=["name"])
    client.force_login(people["admin"])
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            "/api/v1/invitations/",
            {"club": club.slug, "email": "nuovo@example.org"},
            content_type="application/json",
        )
    assert response.status_code == 201, response.content
    [mail] = mailoutbox
    assert "Circolo del Tressette" in mail.subject
    assert "\n" not in mail.subject
