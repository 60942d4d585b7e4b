"""Club pages. Each view: authorize, fetch, act, render.

A form that fails is shown again where it was, with its errors and what was typed: the
members and settings pages are rendered by one function each, which any of their actions
can call with its bound form. Destructive actions (removing a member or a guest, merging a
guest, leaving a club, deleting a season) open a confirmation page first, a plain GET page
whose button POSTs: it works without JavaScript.
"""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.db.models import Count, F, OuterRef, Q, Subquery
from django.db.models.functions import Coalesce, Lower
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from clubs import accounts, club_page, services
from clubs.access import club_page as club_view
from clubs.account_views import remember_sign_up
from clubs.confirm import confirm_page
from clubs.forms import (
    HOUSE_RULE_FORMS,
    ClubForm,
    GuestForm,
    InvitationForm,
    MergeForm,
    RenameForm,
    SeasonForm,
    SignUpForm,
    add_service_errors,
)
from clubs.house_rules_history import history
from clubs.models import Club, Game, Invitation, Membership, Player, Role, Season
from clubs.throttles import INVITATION, SIGN_UP, limit_mails
from plumbing.once.sent import once_per_form
from plumbing.public_pages import ANYTHING, member_page, public_page


def home(request):
    public = Club.objects.public().annotate(
        n_players=Count("players", filter=Q(players__merged_into=None))
    )
    tonight = club_page.tonight_at_my_clubs(request.user)
    return render(request, "clubs/home.html", {"public_clubs": public[:12], "tonight": tonight})


def club_list(request):
    clubs = Club.objects.visible_to(request.user).annotate(
        n_players=Count("players", filter=Q(players__merged_into=None), distinct=True)
    )
    query = request.GET.get("q", "").strip()
    if query:
        clubs = clubs.filter(Q(name__icontains=query) | Q(city__icontains=query))
    return render(request, "clubs/club_list.html", {"clubs": clubs, "q": query})


@login_required
@once_per_form
def club_create(request):
    form = ClubForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            club = services.create_club(founder=request.user, **form.cleaned_data)
        except ValidationError as error:
            add_service_errors(form, error)
        else:
            messages.success(request, _("Club created: you are its admin."))
            return redirect(club)
    return render(request, "clubs/club_form.html", {"form": form})


def _players_counted(members: bool) -> Subquery:
    players = Player.objects.filter(
        club=OuterRef("pk"), merged_into=None, user__isnull=not members
    ).order_by()
    return Coalesce(Subquery(players.values("club").annotate(n=Count("pk")).values("n")), 0)


@public_page(ANYTHING)  # every area: its sections are kept each under its own
@member_page(ANYTHING)
@club_view(annotate={"n_members": _players_counted(True), "n_guests": _players_counted(False)})
def club_detail(request, access):
    club = access.club
    sections = club_page.sections(request, access)
    return render(
        request,
        "clubs/club_detail.html",
        {
            "club": club,
            "access": access,
            "n_members": club.n_members,
            "n_guests": club.n_guests,
            "sections": sections,
            "empty_sections": [section for section in sections if not section.html],
        },
    )


# --- Members ----------------------------------------------------------------------------------


def _members_page(
    request,
    access,
    *,
    guest_form=None,
    merge_form=None,
    invitation_form=None,
    renaming=None,
    role_error=None,
):
    """The members page; an action that failed passes its bound form (``renaming``: the
    guest's id and form; ``role_error``: the membership's id and the messages)."""
    club, is_admin = access.club, access.is_admin
    query = request.GET.get("q", "").strip()
    player_name = Player.objects.filter(
        club=OuterRef("club"), user=OuterRef("user"), merged_into=None
    ).values("display_name")[:1]
    memberships = (
        club.memberships.select_related("user")
        .annotate(name=Coalesce(Subquery(player_name), F("user__username")))
        .order_by(Lower("name"), "pk")
    )
    by_name = club.players.active().order_by(Lower("display_name"), "pk")
    # An admin's forms offer every player: one query gives them and, unsearched, the guests.
    players = list(by_name) if is_admin else None
    if query:
        memberships = memberships.filter(name__icontains=query)
        guests = list(by_name.guests().filter(display_name__icontains=query))
    elif players is not None:
        guests = [p for p in players if p.user_id is None]
    else:
        guests = list(by_name.guests())
    memberships = list(memberships)
    for membership in memberships:
        membership.is_me = membership.user_id == request.user.pk
        membership.errors = role_error[1] if role_error and role_error[0] == membership.pk else []
    if is_admin:
        for guest in guests:
            if renaming and renaming[0] == guest.pk:
                guest.rename_form = renaming[1]
            else:
                guest.rename_form = RenameForm(
                    initial={"display_name": guest.display_name}, auto_id=f"rename-{guest.pk}-%s"
                )
    context = {
        "club": club,
        "access": access,
        "is_admin": is_admin,
        "can_add_guests": access.is_scorer,
        "q": query,
        "memberships": memberships,
        "guests": guests,
        "guest_form": guest_form or GuestForm(auto_id="guest-%s"),
        "role_choices": Role.choices,
    }
    if is_admin:
        chosen = request.GET.get("merge", "")
        context["merge_open"] = merge_form is not None or chosen.isdigit()
        context["merge_form"] = merge_form or MergeForm(
            club=club, players=players, initial={"source": chosen} if chosen.isdigit() else None
        )
        context["invitation_form"] = invitation_form or InvitationForm(club=club, players=players)
        context["invitations"] = club.invitations.usable().select_related("player")
    return render(request, "clubs/members.html", context)


def _to_members(club: Club):
    return redirect("clubs:members", slug=club.slug)


@member_page()  # the club's own area alone
@club_view(at_least=Role.MEMBER)
def members(request, access):
    return _members_page(request, access)


@require_POST
@club_view(at_least=Role.SCORER)
@once_per_form
def add_guest(request, access):
    club = access.club
    form = GuestForm(request.POST, auto_id="guest-%s")
    if form.is_valid():
        try:
            guest = services.add_guest(club=club, display_name=form.cleaned_data["display_name"])
        except ValidationError as error:
            add_service_errors(form, error)
        else:
            messages.success(request, _("Guest added: %(name)s.") % {"name": guest.display_name})
            return _to_members(club)
    return _members_page(request, access, guest_form=form)


def _guest_of(club: Club, player_id: int) -> Player:
    return get_object_or_404(club.players.active().guests(), pk=player_id)


@require_POST
@club_view(at_least=Role.ADMIN)
def rename_guest(request, access, player_id):
    club = access.club
    guest = _guest_of(club, player_id)
    old_name = guest.display_name
    form = RenameForm(request.POST, auto_id=f"rename-{guest.pk}-%s")
    if form.is_valid():
        try:
            services.rename_player(player=guest, display_name=form.cleaned_data["display_name"])
        except ValidationError as error:
            add_service_errors(form, error)
        else:
            messages.success(
                request,
                _("%(old)s is now called %(new)s.") % {"old": old_name, "new": guest.display_name},
            )
            return _to_members(club)
    return _members_page(request, access, renaming=(guest.pk, form))


@club_view(at_least=Role.ADMIN)
def remove_guest(request, access, player_id):
    club = access.club
    guest = _guest_of(club, player_id)
    return confirm_page(
        request,
        access,
        act=lambda: services.remove_guest(player=guest),
        done=_("Guest removed: %(name)s.") % {"name": guest.display_name},
        then=reverse("clubs:members", args=[club.slug]),
        title=_("Remove a guest"),
        question=_("Remove the guest %(name)s from %(club)s?")
        % {"name": guest.display_name, "club": club.name},
        consequence=_(
            "A guest with games in the club's history cannot be removed: merge them into "
            "a member instead."
        ),
        button=_("Remove"),
    )


@require_POST
@club_view(at_least=Role.ADMIN)
def change_role(request, access, membership_id):
    club = access.club
    membership = get_object_or_404(Membership, club=club, pk=membership_id)
    role = request.POST.get("role")
    try:
        services.change_role(membership=membership, role=role)
    except ValidationError as error:
        return _members_page(request, access, role_error=(membership.pk, error.messages))
    messages.success(
        request,
        _("%(name)s is now: %(role)s.")
        % {"name": _member_name(membership), "role": Role(role).label},
    )
    return _to_members(club)


def _member_name(membership: Membership) -> str:
    """A member's name in the club: their player's, as on every page."""
    player = membership.club.players.active().filter(user=membership.user_id).first()
    return player.display_name if player else membership.user.get_username()


@club_view(at_least=Role.ADMIN)
def remove_member(request, access, membership_id):
    club = access.club
    membership = get_object_or_404(
        Membership.objects.select_related("user"), club=club, pk=membership_id
    )
    name = _member_name(membership)
    if membership.user_id == request.user.pk:
        return redirect("clubs:leave", slug=club.slug)
    return confirm_page(
        request,
        access,
        act=lambda: services.remove_member(membership=membership),
        done=_("%(name)s removed; their games stay in the club's history under their name.")
        % {"name": name},
        then=reverse("clubs:members", args=[club.slug]),
        title=_("Remove a member"),
        question=_("Remove %(name)s from %(club)s?") % {"name": name, "club": club.name},
        consequence=_(
            "They lose access to the club's private pages. Their games stay in the club's "
            "history, under their name, as a guest's."
        ),
        button=_("Remove"),
    )


@club_view(at_least=Role.ADMIN)
def merge_guest(request, access):
    """GET: the confirmation of the merge chosen on the members page; POST: the merge."""
    club = access.club
    data = request.POST if request.method == "POST" else request.GET
    if request.method == "GET" and not data:
        return _to_members(club)
    form = MergeForm(data, club=club)
    if not form.is_valid():
        return _members_page(request, access, merge_form=form)
    source, target = form.cleaned_data["source"], form.cleaned_data["target"]
    names = {"guest": source.display_name, "name": target.display_name}
    return confirm_page(
        request,
        access,
        act=lambda: services.merge_players(source=source, target=target),
        done=_("%(guest)s merged: their history now belongs to %(name)s.") % names,
        then=reverse("clubs:members", args=[club.slug]),
        title=_("Merge a guest"),
        question=_("Merge the guest %(guest)s into %(name)s?") % names,
        consequence=_(
            "All of %(guest)s's games move to %(name)s and %(guest)s leaves the list. "
            "A merge cannot be undone."
        )
        % names,
        button=_("Merge"),
        hidden={"source": source.pk, "target": target.pk},
    )


@club_view(at_least=Role.MEMBER)
def leave(request, access):
    club = access.club
    membership = get_object_or_404(Membership, club=club, user=request.user)
    return confirm_page(
        request,
        access,
        act=lambda: services.remove_member(membership=membership),
        refused=_("You are the only admin of %(club)s: make another member admin before you leave.")
        % {"club": club.name},
        done=_("You left %(club)s.") % {"club": club.name},
        then=reverse("home"),
        title=_("Leave the club"),
        question=_("Leave %(club)s?") % {"club": club.name},
        consequence=_(
            "Your games stay in the club's history under your name. To come back you "
            "need a new invitation."
        )
        if not club.is_public
        else _("Your games stay in the club's history under your name."),
        button=_("Leave"),
        back=club.get_absolute_url(),
    )


# --- Invitations ------------------------------------------------------------------------------


@require_POST
@club_view(at_least=Role.ADMIN)
@once_per_form
@limit_mails(INVITATION, when=lambda request: bool(request.POST.get("email", "").strip()))
def create_invitation(request, access):
    club = access.club
    form = InvitationForm(request.POST, club=club)
    if form.is_valid():
        try:
            services.create_invitation(
                club=club,
                by=request.user,
                **{k: v for k, v in form.cleaned_data.items() if v is not None},
            )
        except ValidationError as error:
            add_service_errors(form, error)
        else:
            messages.success(request, _("Invitation created: copy its link from the list."))
            return redirect(reverse("clubs:members", args=[club.slug]) + "#invitations")
    return _members_page(request, access, invitation_form=form)


@require_POST
@club_view(at_least=Role.ADMIN)
def revoke_invitation(request, access, invitation_id):
    club = access.club
    invitation = get_object_or_404(Invitation, club=club, pk=invitation_id)
    services.revoke_invitation(invitation=invitation)
    messages.success(request, _("Invitation revoked."))
    return redirect(reverse("clubs:members", args=[club.slug]) + "#invitations")


@once_per_form
@limit_mails(SIGN_UP, when=lambda request: not request.user.is_authenticated)
def invitation(request, token):
    """Join a club through an invitation link: with one's account, or making one here."""

    invitation = get_object_or_404(Invitation.objects.select_related("club", "player"), token=token)
    usable = invitation.is_usable()
    already = (
        request.user.is_authenticated
        and invitation.club.memberships.filter(user=request.user).exists()
    )
    signup = None
    if not request.user.is_authenticated:
        signup = SignUpForm(request.POST or None, initial={"email": invitation.email})
    if request.method == "POST" and usable and not already:
        if signup is None:
            try:
                services.accept_invitation(token=token, user=request.user)
            except ValidationError as error:
                for message in error.messages:
                    messages.error(request, message)
            else:
                messages.success(request, _("Welcome to %(club)s!") % {"club": invitation.club})
                return redirect(invitation.club)
        elif signup.is_valid():
            try:
                user = accounts.sign_up(
                    **_sign_up_fields(signup), language=request.LANGUAGE_CODE, invitation=token
                )
            except ValidationError as error:
                add_service_errors(signup, error, aliases={"password": "password2"})
            else:
                return remember_sign_up(request, user, club=invitation.club)
    return render(
        request,
        "clubs/invitation.html",
        {"invitation": invitation, "usable": usable, "already": already, "signup": signup},
    )


def _sign_up_fields(form) -> dict:
    data = form.cleaned_data
    return {
        "username": data["username"],
        "email": data["email"],
        "password": data["password1"],
        "first_name": data.get("first_name", ""),
        "last_name": data.get("last_name", ""),
    }


# --- Settings ---------------------------------------------------------------------------------


def _settings_page(request, access, *, club_form=None, season_form=None, rule_forms=None):
    club = access.club
    forms = {
        game: form_class(initial=services.house_rules_for(club=club, game=game), prefix=game)
        for game, form_class in HOUSE_RULE_FORMS.items()
    }
    forms.update(rule_forms or {})
    return render(
        request,
        "clubs/settings.html",
        {
            "club": club,
            "access": access,
            "club_form": club_form or ClubForm(instance=club),
            "season_form": season_form or SeasonForm(club=club),
            "seasons": club.seasons.all(),
            "rule_forms": [
                {
                    "game": game,
                    "label": Game(game).label,
                    "form": form,
                    "history": history(club, game),
                }
                for game, form in forms.items()
            ],
        },
    )


@club_view(at_least=Role.ADMIN)
def settings_page(request, access):
    club = access.club
    if request.method != "POST":
        return _settings_page(request, access)
    section = request.POST.get("section")
    if section == "club":
        form = ClubForm(request.POST, instance=Club.objects.get(pk=club.pk))
        if form.is_valid():
            try:
                services.update_club(club=Club.objects.get(pk=club.pk), **form.cleaned_data)
            except ValidationError as error:
                add_service_errors(form, error)
            else:
                messages.success(request, _("Club settings saved."))
                return redirect("clubs:settings", slug=club.slug)
        return _settings_page(request, access, club_form=form)
    if section == "season":
        form = SeasonForm(request.POST, club=club)
        if form.is_valid():
            try:
                season = services.create_season(club=club, **form.cleaned_data)
            except ValidationError as error:
                add_service_errors(form, error)
            else:
                messages.success(request, _("Season added: %(name)s.") % {"name": season.name})
                return redirect(reverse("clubs:settings", args=[club.slug]) + "#seasons")
        return _settings_page(request, access, season_form=form)
    if section in HOUSE_RULE_FORMS:
        form = HOUSE_RULE_FORMS[section](request.POST, prefix=section)
        if form.is_valid():
            try:
                version = services.update_house_rules(
                    club=club, game=section, values=form.cleaned_data, by=request.user
                )
            except ValidationError as error:
                add_service_errors(form, error)
            else:
                messages.success(
                    request, _("House rules saved (version %(n)s).") % {"n": version.version}
                )
                return redirect(reverse("clubs:settings", args=[club.slug]) + f"#rules-{section}")
        return _settings_page(request, access, rule_forms={section: form})
    messages.error(request, _("Unknown settings section."))
    return _settings_page(request, access)


@club_view(at_least=Role.ADMIN)
def edit_season(request, access, season_id):
    club = access.club
    season = get_object_or_404(Season, club=club, pk=season_id)
    initial = {"name": season.name, "start": season.start, "end": season.end}
    form = SeasonForm(request.POST or None, club=club, initial=initial)
    if request.method == "POST" and form.is_valid():
        try:
            services.update_season(season=season, **form.cleaned_data)
        except ValidationError as error:
            add_service_errors(form, error)
        else:
            messages.success(request, _("Season saved: %(name)s.") % {"name": season.name})
            return redirect(reverse("clubs:settings", args=[club.slug]) + "#seasons")
    return render(
        request,
        "clubs/season_form.html",
        {"access": access, "club": club, "season": season, "form": form},
    )


@club_view(at_least=Role.ADMIN)
def delete_season(request, access, season_id):
    club = access.club
    season = get_object_or_404(Season, club=club, pk=season_id)
    url = reverse("clubs:settings", args=[club.slug]) + "#seasons"
    return confirm_page(
        request,
        access,
        act=lambda: services.delete_season(season=season),
        done=_("Season deleted: %(name)s.") % {"name": season.name},
        then=url,
        title=_("Delete a season"),
        question=_("Delete the season %(name)s?") % {"name": season.name},
        consequence=_("A season with games recorded in it cannot be deleted."),
        button=_("Delete"),
    )
