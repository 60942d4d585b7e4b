"""The club nights' pages: the list (with the admin's form to schedule one), a night (who
is coming, the waiting list, the answer buttons; after it, who was there), and the
answers. Each view: authorize, fetch, act, answer."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied, ValidationError
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _

from clubs.access import club_page
from clubs.models import Role
from matches.nights import reads, services
from matches.nights.forms import NightForm
from matches.nights.models import Answer, ClubNight
from plumbing.errors import Conflict
from plumbing.once.sent import once_per_form

LIST = 30


def _night(access, night_id: int) -> ClubNight:
    return get_object_or_404(
        ClubNight.objects.select_related("club"), club=access.club, pk=night_id
    )


@club_page()
@once_per_form
def night_list(request, access):
    club = access.club
    form = NightForm(request.POST or None) if access.has(Role.ADMIN) else None
    if request.method == "POST":
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        if form is None:
            raise PermissionDenied(_("Only an admin may schedule a club night."))
        if form.is_valid():
            try:
                night = services.schedule_night(club=club, by=request.user, **form.cleaned_data)
            except ValidationError as error:
                for field, errors in error.message_dict.items():
                    for message in errors:
                        form.add_error(field if field in form.fields else None, message)
            else:
                messages.success(request, _("The club night is scheduled: members are asked."))
                return redirect(night.get_absolute_url())
    now = timezone.now()
    nights = ClubNight.objects.filter(club=club).select_related("club")
    upcoming = list(
        nights.filter(starts_at__gte=now - services.NIGHT_LENGTH).order_by("starts_at")[:LIST]
    )
    past = list(
        nights.filter(starts_at__lt=now - services.NIGHT_LENGTH).order_by("-starts_at")[:LIST]
    )
    member = access.is_member
    return render(
        request,
        "matches/nights/list.html",
        {
            "club": club,
            "access": access,
            "form": form,
            "upcoming": reads.views_of(upcoming, user=request.user, member=member),
            "past": past,
        },
        status=400 if form is not None and form.is_bound else 200,
    )


@club_page()
def night(request, access, night_id: int):
    found = _night(access, night_id)
    view = reads.view_of(found, user=request.user, member=access.is_member)
    guests = (
        list(
            access.club.players.filter(user__isnull=True, merged_into__isnull=True).order_by(
                "display_name"
            )
        )
        if access.has(Role.ADMIN)
        else []
    )
    names = {}
    if view.attended and access.is_member:
        names = dict(
            access.club.players.filter(pk__in=view.attended).values_list("pk", "display_name")
        )
    return render(
        request,
        "matches/nights/night.html",
        {
            "club": access.club,
            "access": access,
            "view": view,
            "night": found,
            "answers": Answer.choices,
            "guests": guests,
            "attended_names": sorted(names.values(), key=str.lower),
            "position": len(view.waiting) + 1,
        },
    )


def _back(request, night):
    target = request.POST.get("next", "")
    if target and url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()}):
        return redirect(target)
    return redirect(night.get_absolute_url())


@club_page(Role.MEMBER)
def answer(request, access, night_id: int):
    found = _night(access, night_id)
    if request.method != "POST":
        return redirect(found.get_absolute_url())
    player = None
    if request.POST.get("player"):
        player = get_object_or_404(access.club.players, pk=request.POST["player"])
    try:
        row = services.answer(
            night=found, by=request.user, answer=request.POST.get("answer", ""), player=player
        )
    except (ValidationError, Conflict) as error:
        messages.error(request, " ".join(getattr(error, "messages", None) or [str(error)]))
    else:
        if row.waiting:
            messages.info(request, _("The night is full: you are on the waiting list."))
        else:
            messages.success(request, _("Answer saved."))
    return _back(request, found)


@club_page(Role.ADMIN)
def cancel(request, access, night_id: int):
    found = _night(access, night_id)
    if request.method == "POST":
        services.cancel_night(night=found, by=request.user)
        messages.success(request, _("The club night is cancelled."))
    return redirect(found.get_absolute_url())
