"""Account pages: signing up (with the e-mail confirmation), the profile.

A new account waits for its e-mail address to be confirmed (``accounts.sign_up``); the
link's page asks for a click (a POST: mail scanners that open links do not confirm), and
logs the person in when it is clicked in the browser that signed up.
"""

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST
from knox.settings import knox_settings

from clubs import accounts, services
from clubs.forms import EmailForm, ProfileForm, SignUpForm
from clubs.inbox import views as inbox_views
from clubs.throttles import CONFIRMATION, SIGN_UP, limit_mails
from clubs.tokens import live_tokens, revoke_tokens

SIGNED_UP = "circolo_signed_up"  # session key: the account this browser just made


def remember_sign_up(request, user, *, club=None):
    """After ``accounts.sign_up``: in at once if the account is active, else to the page
    that says where the link went."""
    if user.is_active:
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        if club is not None:
            messages.success(request, _("Welcome to %(club)s!") % {"club": club.name})
            return redirect(club)
        return redirect("home")
    if club is not None:
        messages.success(
            request,
            _("You joined %(club)s: confirm your e-mail address to log in.") % {"club": club.name},
        )
    request.session[SIGNED_UP] = user.pk
    request.session["circolo_signed_up_email"] = user.email
    return redirect("clubs:confirm_email_sent")


@limit_mails(SIGN_UP)
def sign_up(request):
    if request.user.is_authenticated:
        return redirect("home")
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            user = accounts.sign_up(
                username=data["username"],
                email=data["email"],
                password=data["password1"],
                first_name=data.get("first_name", ""),
                last_name=data.get("last_name", ""),
                language=request.LANGUAGE_CODE,
            )
        except ValidationError as error:
            for field, errors in error.message_dict.items():
                field = "password2" if field == "password" else field
                form.add_error(field if field in form.fields else None, errors)
        else:
            return remember_sign_up(request, user)
    return render(request, "accounts/sign_up.html", {"form": form})


@limit_mails(CONFIRMATION)
def confirm_email_sent(request):
    """Where the link went, and a form to have it sent again (GET: the page; POST: resend).

    The answer is the same whether or not an account waits with that address."""
    form = EmailForm(
        request.POST or None, initial={"email": request.session.get("circolo_signed_up_email")}
    )
    if request.method == "POST" and form.is_valid():
        accounts.resend_confirmation(email=form.cleaned_data["email"])
        messages.success(
            request,
            _(
                "If an account is waiting for %(email)s to be confirmed, a new link is on its "
                "way. It can take a few minutes; look in the spam folder too."
            )
            % {"email": form.cleaned_data["email"]},
        )
        return redirect("clubs:confirm_email_sent")
    return render(
        request,
        "accounts/confirm_email_sent.html",
        {
            "form": form,
            "email": request.session.get("circolo_signed_up_email"),
            "days": accounts.CONFIRMATION_MAX_AGE.days,
        },
    )


def confirm_email(request, token):
    """GET: a button to confirm; POST: confirm, and log in the browser that signed up."""
    if request.method == "POST":
        try:
            user = accounts.confirm_email(token=token)
        except ValidationError as error:
            return _link_problem(request, error)
        if request.session.get(SIGNED_UP) == user.pk and not request.user.is_authenticated:
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            messages.success(request, _("Your e-mail address is confirmed: welcome to Circolo!"))
            return redirect("home")
        if request.user.is_authenticated:
            return redirect("home")
        messages.success(request, _("Your e-mail address is confirmed: you can log in now."))
        return redirect(reverse("login"))
    return render(request, "accounts/confirm_email.html", {"token": token})


def _link_problem(request, error: ValidationError):
    email = (getattr(error, "params", None) or {}).get("email", "")
    return render(
        request,
        "accounts/confirm_email_sent.html",
        {
            "problem": error.messages[0],
            "form": EmailForm(initial={"email": email}),
            "days": accounts.CONFIRMATION_MAX_AGE.days,
        },
    )


@login_required
def profile(request):
    user = request.user
    form = ProfileForm(
        request.POST or None, initial={"display_name": services.display_name_for(user)}
    )
    if request.method == "POST" and form.is_valid():
        try:
            accounts.change_display_name(user=user, display_name=form.cleaned_data["display_name"])
        except ValidationError as error:
            for message in error.message_dict.get("display_name", error.messages):
                form.add_error("display_name", message)
        else:
            messages.success(request, _("Display name saved."))
            return redirect("clubs:profile")
    names = user.players.filter(merged_into=None).select_related("club").order_by("club__name")
    memberships = user.memberships.select_related("club").order_by("club__name")
    return render(
        request,
        "accounts/profile.html",
        {
            "form": form,
            "players": names,
            "memberships": memberships,
            "tokens": live_tokens(user),
            "token_days": round(knox_settings.TOKEN_TTL.total_seconds() / 86400),
            **inbox_views.profile_context(user),
        },
    )


@login_required
@require_POST
def revoke_api_tokens(request):
    """The profile's API tokens: revoke the one named by ``token`` (its digest), or all of
    them ("log out everywhere": every app and script must log in again)."""
    digest = request.POST.get("token")
    if digest:
        if revoke_tokens(user=request.user, digest=digest):
            messages.success(request, _("The app is logged out."))
    else:
        count = revoke_tokens(user=request.user)
        messages.success(
            request,
            ngettext(
                "%(count)d app logged out: it must log in again.",
                "%(count)d apps logged out: each must log in again.",
                count,
            )
            % {"count": count},
        )
    return redirect(reverse("clubs:profile") + "#api-tokens")


@login_required
@require_POST
def night_reports(request):
    """The profile's preference: which clubs' end-of-evening reports to get by e-mail."""
    chosen = {int(pk) for pk in request.POST.getlist("club") if pk.isdigit() and len(pk) < 19}
    accounts.choose_night_reports(user=request.user, club_ids=chosen)
    messages.success(request, _("Your e-mail preferences are saved."))
    return redirect("clubs:profile")
