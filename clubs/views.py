"""Club pages. Each view: authorize, fetch, act, render."""

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Count, Q
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.utils.module_loading import import_string
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from clubs import services
from clubs.access import club_page
from clubs.forms import (
    HOUSE_RULE_FORMS,
    ClubForm,
    GuestForm,
    InvitationForm,
    MergeForm,
    RoleForm,
    SeasonForm,
    SignUpForm,
)
from clubs.models import Club, Game, Invitation, Membership, Role


def add_service_errors(form, error: ValidationError) -> None:
    """A service's ``ValidationError`` shown on the form, each message at its field."""
    if hasattr(error, "error_dict"):
        for field, errors in error.message_dict.items():
            form.add_error(field if field in form.fields else None, errors)
    else:
        form.add_error(None, error.messages)


def _form_errors_to_messages(request, error: ValidationError) -> None:
    for message in error.messages:
        messages.error(request, message)


def home(request):
    public = Club.objects.public().annotate(
        n_players=Count("players", filter=Q(players__merged_into=None))
    )
    return render(request, "clubs/home.html", {"public_clubs": public[:12]})


def club_list(request):
    clubs = Club.objects.visible_to(request.user).annotate(
        n_players=Count("players", filter=Q(players__merged_into=None), distinct=True)
    )
    query = request.GET.get("q", "").strip()
    if query:
        clubs = clubs.filter(Q(name__icontains=query) | Q(city__icontains=query))
    return render(request, "clubs/club_list.html", {"clubs": clubs, "q": query})


@login_required
def club_create(request):
    form = ClubForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        club = services.create_club(founder=request.user, **form.cleaned_data)
        messages.success(request, _("Club created: you are its admin."))
        return redirect(club)
    return render(request, "clubs/club_form.html", {"form": form})


def club_page_sections(request, access) -> list[str]:
    """The games' sections of the club page, rendered (``settings.CLUB_PAGE_SECTIONS``:
    dotted paths of ``(request, access) -> {"template", "context"} | None``; clubs knows no
    game, so they are named, not imported)."""
    rendered = []
    for path in getattr(settings, "CLUB_PAGE_SECTIONS", []):
        section = import_string(path)(request, access)
        if section is not None:
            rendered.append(render_to_string(section["template"], section["context"], request))
    return rendered


@club_page()
def club_detail(request, access):
    club = access.club
    return render(
        request,
        "clubs/club_detail.html",
        {
            "club": club,
            "access": access,
            "role": access.role,
            "role_label": access.role_label,
            "is_admin": access.is_admin,
            "seasons": club.seasons.all(),
            "n_members": club.memberships.count(),
            "n_guests": club.players.active().guests().count(),
            "sections": club_page_sections(request, access),
        },
    )


@club_page(at_least=Role.MEMBER)
def members(request, access):
    club, is_admin = access.club, access.is_admin
    context = {
        "club": club,
        "access": access,
        "role": access.role,
        "is_admin": is_admin,
        "can_add_guests": access.is_scorer,
        "memberships": club.memberships.select_related("user"),
        "guests": club.players.active().guests(),
        "guest_form": GuestForm(),
        "role_choices": Role.choices,
    }
    if is_admin:
        context["merge_form"] = MergeForm(club=club)
        context["invitation_form"] = InvitationForm(club=club)
        context["invitations"] = club.invitations.usable()
    return render(request, "clubs/members.html", context)


@require_POST
@club_page(at_least=Role.SCORER)
def add_guest(request, access):
    club = access.club
    form = GuestForm(request.POST)
    if form.is_valid():
        try:
            services.add_guest(club=club, display_name=form.cleaned_data["display_name"])
            messages.success(request, _("Guest added."))
        except ValidationError as error:
            _form_errors_to_messages(request, error)
    else:
        messages.error(request, _("A guest needs a name."))
    return redirect("clubs:members", slug=club.slug)


@require_POST
@club_page(at_least=Role.ADMIN)
def change_role(request, access, membership_id):
    club = access.club
    membership = get_object_or_404(Membership, club=club, pk=membership_id)
    form = RoleForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Unknown role."))
    else:
        try:
            services.change_role(membership=membership, role=form.cleaned_data["role"])
            messages.success(request, _("Role changed."))
        except ValidationError as error:
            _form_errors_to_messages(request, error)
    return redirect("clubs:members", slug=club.slug)


@require_POST
@club_page(at_least=Role.ADMIN)
def remove_member(request, access, membership_id):
    club = access.club
    membership = get_object_or_404(Membership, club=club, pk=membership_id)
    try:
        services.remove_member(membership=membership)
        messages.success(request, _("Member removed; their games stay under their name."))
    except ValidationError as error:
        _form_errors_to_messages(request, error)
    return redirect("clubs:members", slug=club.slug)


@require_POST
@club_page(at_least=Role.ADMIN)
def merge_guest(request, access):
    club = access.club
    form = MergeForm(request.POST, club=club)
    if form.is_valid():
        try:
            services.merge_players(
                source=form.cleaned_data["source"], target=form.cleaned_data["target"]
            )
            messages.success(
                request,
                _("Guest merged: their history now belongs to %(name)s.")
                % {"name": form.cleaned_data["target"]},
            )
        except ValidationError as error:
            _form_errors_to_messages(request, error)
    else:
        messages.error(request, _("Choose a guest and the player to merge them into."))
    return redirect("clubs:members", slug=club.slug)


@require_POST
@club_page(at_least=Role.ADMIN)
def create_invitation(request, access):
    club = access.club
    form = InvitationForm(request.POST, club=club)
    if form.is_valid():
        try:
            invitation = services.create_invitation(
                club=club,
                by=request.user,
                **{k: v for k, v in form.cleaned_data.items() if v is not None},
            )
            link = request.build_absolute_uri(invitation.get_absolute_url())
            messages.success(
                request, _("Invitation created. Share this link: %(link)s") % {"link": link}
            )
        except ValidationError as error:
            _form_errors_to_messages(request, error)
    else:
        for field_errors in form.errors.values():
            for error in field_errors:
                messages.error(request, error)
    return redirect("clubs:members", slug=club.slug)


@require_POST
@club_page(at_least=Role.ADMIN)
def revoke_invitation(request, access, invitation_id):
    club = access.club
    invitation = get_object_or_404(Invitation, club=club, pk=invitation_id)
    services.revoke_invitation(invitation=invitation)
    messages.success(request, _("Invitation revoked."))
    return redirect("clubs:members", slug=club.slug)


def invitation(request, token):
    """Join a club through an invitation link: with one's account, or making one here."""
    invitation = get_object_or_404(Invitation.objects.select_related("club", "player"), token=token)
    usable = invitation.is_usable()
    already = (
        request.user.is_authenticated
        and invitation.club.memberships.filter(user=request.user).exists()
    )
    signup = SignUpForm(request.POST or None) if not request.user.is_authenticated else None
    if request.method == "POST" and usable and not already:
        try:
            if signup is not None:
                if not signup.is_valid():
                    raise ValidationError("")
                with transaction.atomic():  # no account without the membership it was for
                    user = signup.save()
                    services.accept_invitation(token=token, user=user)
                login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            else:
                services.accept_invitation(token=token, user=request.user)
            messages.success(request, _("Welcome to %(club)s!") % {"club": invitation.club})
            return redirect(invitation.club)
        except ValidationError as error:
            if any(error.messages):
                _form_errors_to_messages(request, error)
    return render(
        request,
        "clubs/invitation.html",
        {
            "invitation": invitation,
            "usable": usable,
            "already": already,
            "signup": signup,
        },
    )


@club_page(at_least=Role.ADMIN)
def settings_page(request, access):
    club = access.club
    club_form = ClubForm(instance=club)
    season_form = SeasonForm(club=club)
    rule_forms = {
        game: form_class(initial=services.house_rules_for(club=club, game=game), prefix=game)
        for game, form_class in HOUSE_RULE_FORMS.items()
    }
    if request.method == "POST":
        section = request.POST.get("section")
        if section == "club":
            club_form = ClubForm(request.POST, instance=club)
            if club_form.is_valid():
                services.update_club(club=Club.objects.get(pk=club.pk), **club_form.cleaned_data)
                messages.success(request, _("Club settings saved."))
                return redirect("clubs:settings", slug=club.slug)
        elif section == "season":
            season_form = SeasonForm(request.POST, club=club)
            if season_form.is_valid():
                try:
                    services.create_season(club=club, **season_form.cleaned_data)
                except ValidationError as error:
                    add_service_errors(season_form, error)
                else:
                    messages.success(request, _("Season added."))
                    return redirect("clubs:settings", slug=club.slug)
        elif section in HOUSE_RULE_FORMS:
            form = HOUSE_RULE_FORMS[section](request.POST, prefix=section)
            rule_forms[section] = form
            if form.is_valid():
                try:
                    version = services.update_house_rules(
                        club=club, game=section, values=form.cleaned_data, by=request.user
                    )
                    messages.success(
                        request,
                        _("House rules saved (version %(n)s).") % {"n": version.version},
                    )
                    return redirect("clubs:settings", slug=club.slug)
                except ValidationError as error:
                    add_service_errors(form, error)
        else:
            messages.error(request, _("Unknown settings section."))
    history = {game: club.house_rule_sets.filter(game=game)[:10] for game in HOUSE_RULE_FORMS}
    return render(
        request,
        "clubs/settings.html",
        {
            "club": club,
            "club_form": club_form,
            "season_form": season_form,
            "rule_forms": [
                (game, Game(game).label, form, history[game]) for game, form in rule_forms.items()
            ],
        },
    )
