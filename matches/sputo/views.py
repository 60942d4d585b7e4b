"""The tournament pages: the list, a tournament with its admin controls, the bracket (also
full screen, refreshing itself through htmx while the tournament runs), a match with the
report / confirm / dispute forms and the admin's decide, correct (with its preview) and
resolve; the calendar feeds. Each view: authorize, fetch, act, render."""

from __future__ import annotations

import json

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST

import plumbing.public_pages as public_pages
from clubs.access import access_club, club_page
from clubs.models import Player, Role
from matches.results import audit, steps
from matches.results.adapters import actor
from matches.results.audit import reported_by
from matches.results.views import Refused, StepPage
from matches.sputo import bracket_changes, calendar, reads, services, stages
from matches.sputo.forms import ResultForm, TournamentForm
from matches.sputo.models import (
    CalendarFeed,
    Format,
    Tournament,
    TournamentMatch,
    TournamentStatus,
)
from matches.sputo.preview import readable as preview_in_words
from plumbing.errors import Conflict
from plumbing.once.sent import once_per_form
from plumbing.public_pages import member_page
from plumbing.rule_errors import for_people

REFRESH_SECONDS = 10


def _tournament(access, tournament_id) -> Tournament:
    return get_object_or_404(
        Tournament.objects.select_related("club", "season"), club=access.club, pk=tournament_id
    )


def _errors(request, error) -> None:
    if isinstance(error, ValidationError):
        for message in for_people(error):
            messages.error(request, message)
    else:
        messages.error(request, str(error))


def _act(request, action, success) -> bool:
    """Run a service; its refusal (bad input, the wrong moment) is shown, never a 500.
    ``success``: the message, or a function of what the service answered that gives it."""
    try:
        answer = action()
    except (ValidationError, Conflict) as error:
        _errors(request, error)
        return False
    messages.success(request, success(answer) if callable(success) else success)
    return True


def _tournament_list(request, access, form=None, status: int = 200):
    tournaments = access.club.tournaments.order_by("-starts_at", "-pk")
    if form is None and access.is_admin:
        form = TournamentForm()
    return render(
        request,
        "matches/sputo/tournament_list.html",
        {
            "club": access.club,
            "access": access,
            "tournaments": tournaments,
            "form": form,
            "next_matches": list(reads.next_matches(request.user, club=access.club)[:3]),
        },
        status=status,
    )


@club_page()
def tournament_list(request, access):
    return _tournament_list(request, access)


@require_POST
@club_page(at_least=Role.ADMIN)
@once_per_form
def tournament_create(request, access):
    """A new tournament; a refusal (the form's or the service's) is shown on the form again,
    each message by the field it is about."""
    form = TournamentForm(request.POST)
    if form.is_valid():
        try:
            tournament = services.create_tournament(
                club=access.club, by=request.user, **form.values()
            )
        except ValidationError as error:
            form.add_refusal(error)
        else:
            messages.success(request, _("Tournament created, in draft."))
            return redirect(tournament)
    return _tournament_list(request, access, form=form, status=400)


@member_page("sputo")
@club_page()
def tournament_detail(request, access, tournament_id):
    rows = public_pages.shared(
        access.club,
        ("tournament", tournament_id, access.role),
        lambda: _tournament_rows(access, _tournament(access, tournament_id)),
        areas=("sputo",),
    )
    return _tournament_page(request, access, rows)


def _tournament_rows(access, tournament) -> dict:
    """What everyone of one role sees of a tournament: kept per club state."""
    entrants = list(
        tournament.entrants.select_related("player").order_by("seed", "entered_at", "pk")
    )
    positions = services.waiting_positions(tournament)
    for entrant in entrants:
        entrant.waiting_position = positions.get(entrant.pk)
    rows = {
        "tournament": tournament,
        "entrants": [e for e in entrants if not e.waiting],
        "waiting_list": sorted(
            (e for e in entrants if e.waiting), key=lambda e: e.waiting_position
        ),
        "moves": [
            (status, TournamentStatus(status).label)
            for status in sorted(services.MOVES[tournament.status])
        ],
        "can_cancel": TournamentStatus.CANCELLED in services.MOVES[tournament.status],
    }
    if tournament.is_drawn:
        rows["bracket"] = reads.bracket_of(tournament)
        rows["next_step"] = _next_step(tournament, rows["bracket"])
        rows["clock_round"] = _clock_round(tournament, rows["bracket"])
    over = (TournamentStatus.FINISHED, TournamentStatus.CANCELLED)
    if access.is_admin and tournament.format == Format.SWISS and tournament.status not in over:
        names = {e.player_id: e.player.display_name for e in entrants if not e.waiting}
        rows["forbidden"] = [
            {"names": (names.get(a, "—"), names.get(b, "—")), "key": f"{a}-{b}"}
            for a, b in tournament.forbidden_pairs or []
        ]
        rows["forbid_choices"] = sorted(names.items(), key=lambda item: item[1])
    if access.is_scorer and tournament.status in services.BEFORE_DRAW:
        entered = {e.player_id for e in entrants}
        rows["addable"] = [
            p for p in access.club.players.active().order_by("display_name") if p.pk not in entered
        ]
    return rows


def _next_step(tournament, drawn) -> str:
    """The admin's next step of a stage: "knockout" (the groups' knockout to make), "round"
    (a Swiss's next round to pair), or "" (the services say when it cannot be taken yet)."""
    if tournament.status != TournamentStatus.RUNNING:
        return ""
    if tournament.format == "groups_then_knockout" and not tournament.rounds:
        return "knockout"
    if tournament.format == "swiss" and len(drawn.rounds) < (tournament.swiss_rounds or 0):
        _label, last = drawn.rounds[-1]
        return "round" if all(m.result for m in last) else ""
    return ""


def _clock_round(tournament, drawn) -> int | None:
    """The round whose clock the admin would start: the first with a match to decide."""
    if tournament.status != TournamentStatus.RUNNING:
        return None
    kind = stages.clock_kind(tournament)
    undecided = [m.round for m in drawn.all_matches if m.kind == kind and not m.result]
    return min(undecided, default=None)


def _tournament_page(request, access, rows: dict, form=None, status: int = 200):
    """The tournament's page from its rows (kept, or read anew); ``form``: the details'
    form as sent, with its errors. The member's own part is read live (two queries)."""
    tournament = rows["tournament"]
    me = reads.my_player(request.user, access.club)
    context = {
        **rows,
        "club": access.club,
        "access": access,
        "me": me,
        "my_entry": next(
            (e for e in [*rows["entrants"], *rows["waiting_list"]] if me and e.player_id == me.pk),
            None,
        ),
        "next_matches": list(reads.next_matches(request.user, tournament=tournament)),
        "refresh": REFRESH_SECONDS,
    }
    if access.is_admin and tournament.is_open_for_changes:
        context["form"] = form or TournamentForm(instance=tournament)
    return render(request, "matches/sputo/tournament.html", context, status=status)


@club_page()
def bracket_page(request, access, tournament_id):
    """The bracket full screen (for a projector); htmx asks for the bracket alone."""
    tournament = _tournament(access, tournament_id)
    if not tournament.is_drawn:
        raise Http404(_("This tournament has no bracket yet."))
    context = {
        "club": access.club,
        "tournament": tournament,
        "bracket": reads.bracket_of(tournament),
        "refresh": REFRESH_SECONDS,
        "me": reads.my_player(request.user, access.club),
    }
    if request.htmx:
        return render(request, "matches/sputo/_bracket.html", context)
    return render(request, "matches/sputo/bracket_full.html", context)


@require_POST
@club_page(at_least=Role.ADMIN)
def tournament_update(request, access, tournament_id):
    tournament = _tournament(access, tournament_id)
    if request.POST.get("status") == TournamentStatus.CANCELLED:
        # Cancelling cannot be undone: it asks first, on its confirmation page.
        return redirect("sputo:cancel", slug=access.club.slug, tournament_id=tournament.pk)
    if "status" in request.POST:
        status = request.POST["status"]
        _act(
            request,
            lambda: services.update_tournament(
                tournament=tournament, by=request.user, status=status
            ),
            _("Tournament: %(status)s.") % {"status": TournamentStatus(status).label}
            if status in TournamentStatus.values
            else "",
        )
    else:
        form = TournamentForm(request.POST, instance=Tournament.objects.get(pk=tournament.pk))
        if form.is_valid():
            try:
                services.update_tournament(tournament=tournament, by=request.user, **form.values())
            except ValidationError as error:
                form.add_refusal(error)
            except Conflict as error:
                form.add_error(None, str(error))
            else:
                messages.success(request, _("Tournament saved."))
                return redirect(tournament)
        return _tournament_page(
            request, access, _tournament_rows(access, tournament), form=form, status=400
        )
    return redirect(tournament)


def _player_from_post(request, access) -> Player | None:
    try:
        pk = int(request.POST.get("player", ""))
    except ValueError:
        return None
    return access.club.players.active().filter(pk=pk).first()


def _for_a_player(service, done):
    """The view that enters or checks in the player the form names (a member's POST:
    ``service(tournament=, player=, by=)``); ``done``: the message, with ``%(name)s`` (or
    a function of the entrant and the player that gives it)."""

    @require_POST
    @club_page(at_least=Role.MEMBER)
    @once_per_form
    def view(request, access, tournament_id):
        tournament = _tournament(access, tournament_id)
        player = _player_from_post(request, access)
        if player is None:
            messages.error(request, _("Choose a player of this club."))
        else:
            _act(
                request,
                lambda: service(tournament=tournament, player=player, by=request.user),
                (lambda entrant: done(entrant, player))
                if callable(done)
                else done % {"name": player.display_name},
            )
        return redirect(tournament)

    return view


def _entered(entrant, player) -> str:
    if entrant.waiting:
        return _("The tournament is full: %(name)s is number %(n)s on the waiting list.") % {
            "name": player.display_name,
            "n": services.waiting_position(entrant),
        }
    return _("%(name)s is entered.") % {"name": player.display_name}


enter = _for_a_player(services.add_entrant, _entered)
check_in = _for_a_player(services.check_in, gettext_lazy("%(name)s is checked in."))


@require_POST
@club_page(at_least=Role.ADMIN)
@once_per_form
def draw(request, access, tournament_id):
    tournament = _tournament(access, tournament_id)
    _act(
        request,
        lambda: services.draw_tournament(tournament=tournament, by=request.user),
        _("The draw is made: the tournament is running."),
    )
    return redirect(tournament)


@require_POST
@club_page(at_least=Role.ADMIN)
@once_per_form
def replace_entry(request, access, tournament_id, entrant_id):
    """The first of the waiting list takes an absent entrant's place, after the draw."""
    tournament = _tournament(access, tournament_id)
    entrant = get_object_or_404(tournament.entrants.select_related("player"), pk=entrant_id)
    _act(
        request,
        lambda: services.replace_from_waiting_list(entrant=entrant, by=request.user),
        lambda taken: (
            _("%(name)s takes the place of %(absent)s.")
            % {"name": taken.player.display_name, "absent": entrant.player.display_name}
        ),
    )
    return redirect(tournament)


@require_POST
@club_page(at_least=Role.ADMIN)
@once_per_form
def next_stage(request, access, tournament_id):
    """Make the groups' knockout (``stages.make_knockout``); a refusal is shown."""
    tournament = _tournament(access, tournament_id)
    _act(
        request,
        lambda: stages.make_knockout(tournament=tournament, by=request.user),
        _("The knockout stage is made."),
    )
    return redirect(tournament)


@require_POST
@club_page(at_least=Role.ADMIN)
@once_per_form
def start_round(request, access, tournament_id):
    """Start the round clock (``stages.start_round``); a refusal is shown."""
    tournament = _tournament(access, tournament_id)
    try:
        number, minutes = int(request.POST.get("round", "")), int(request.POST.get("minutes", ""))
    except ValueError:
        messages.error(request, _("Give the round and its minutes as whole numbers."))
        return redirect(tournament)
    _act(
        request,
        lambda: stages.start_round(
            tournament=tournament, by=request.user, number=number, minutes=minutes
        ),
        _("The round's clock is running."),
    )
    return redirect(tournament)


@require_POST
@club_page(at_least=Role.ADMIN)
@once_per_form
def forbid_pair(request, access, tournament_id):
    """A Swiss's forbidden pairings (``services.set_forbidden_pairs``): ``a`` and ``b`` kept
    apart from now on, or ``remove`` ("a-b") allowed to meet again."""
    tournament = _tournament(access, tournament_id)
    pairs = [list(pair) for pair in tournament.forbidden_pairs or []]
    removed = request.POST.get("remove", "")
    if removed:
        pairs = [pair for pair in pairs if f"{pair[0]}-{pair[1]}" != removed]
        done = _("They may meet again.")
    else:
        a, b = request.POST.get("a", ""), request.POST.get("b", "")
        if not (a.isdigit() and b.isdigit()) or a == b:
            messages.error(request, _("Choose two different players."))
            return redirect(tournament)
        pairs.append([int(a), int(b)])
        done = _("They will not be paired together.")
    _act(
        request,
        lambda: services.set_forbidden_pairs(tournament=tournament, by=request.user, pairs=pairs),
        done,
    )
    return redirect(tournament)


@require_POST
@club_page(at_least=Role.ADMIN)
@once_per_form
def next_round(request, access, tournament_id):
    """Pair a Swiss's next round (``stages.next_round``); a refusal is shown."""
    tournament = _tournament(access, tournament_id)
    _act(
        request,
        lambda: stages.next_round(tournament=tournament, by=request.user),
        _("The next round is paired."),
    )
    return redirect(tournament)


def _match(access, tournament_id, match_id) -> TournamentMatch:
    return get_object_or_404(
        TournamentMatch.objects.select_related(
            "tournament", "club", "player_a", "player_b", "winner", "tournament__house_rules"
        ),
        club=access.club,
        tournament_id=tournament_id,
        pk=match_id,
    )


def _name_of(match, player_id) -> str:
    for player in match.players():
        if player.pk == player_id:
            return player.display_name
    return "—"


def _match_context(request, access, match, **extra):
    opened = reads.open_outcomes([match.pk]).get(match.pk)
    match.open_outcome = opened
    match.status = reads.match_status(match, opened.status if opened else None)
    ready = match.player_a_id and match.player_b_id
    in_force = match.outcome_in_force()
    who = actor(match, request.user, access)
    may = steps.allowed_steps(match, who, in_force or opened)
    context = {
        "club": access.club,
        "access": access,
        "tournament": match.tournament,
        "match": match,
        "in_force": in_force,
        "pending": opened,
        "pending_by": reported_by(opened),
        "may": may,
        "may_resolve": match.needs_resolution and MATCH.adapter.who("resolve").allows(who),
        "history": audit.history(match),
        "status_label": reads.STATUS_LABELS.get(match.status, match.status),
        "pending_winner": _name_of(match, opened.payload.get("winner")) if opened else None,
    }
    if ready and not match.result and "report" in may:
        context["form"] = ResultForm(match=match)
    if "decide" in may:
        context["decide_form"] = ResultForm(match=match, prefix="decide") if ready else None
    if ready and "correct" in may:
        context["correct_form"] = extra.pop("correct_form", None) or ResultForm(
            match=match, prefix="correct"
        )
    if context["may_resolve"]:
        a, b = bracket_changes.expected_seats(match)
        context["award_to"] = Player.objects.filter(pk__in=[p for p in (a, b) if p])
    context.update(extra)
    return context


@club_page()
def match_page(request, access, tournament_id, match_id):
    match = _match(access, tournament_id, match_id)
    return render(request, "matches/sputo/match.html", _match_context(request, access, match))


class MatchPage(StepPage):
    """A match's result cycle on its page (``matches.results.views.step``): the result
    form, and a correction previewed before it is applied."""

    game = "sputo"
    previews_corrections = True

    def subject(self, access, *, tournament_id, match_id):
        return _match(access, tournament_id, match_id)

    def payload(self, step, request, access, subject):
        post = request.POST
        if step == "decide":
            form = ResultForm(post, match=subject, prefix="decide")
            given = post.get("decide-winner_1") or post.get("decide-other")
            return form.payload() if form.is_valid() and given else None
        prefix = "correct" if step == "correct" else None
        form = ResultForm(post, match=subject, prefix=prefix)
        if not form.is_valid():
            shown = {"correct_form" if prefix else "form": form}
            context = _match_context(request, access, subject, **shown)
            raise Refused(render(request, "matches/sputo/match.html", context, status=400))
        payload = form.payload()
        if step == "correct":
            awards = _awards(post)
            if awards:
                payload["awards"] = awards
        return payload

    def preview(self, request, access, subject, payload, preview):
        context = _match_context(
            request,
            access,
            subject,
            correct_form=ResultForm(request.POST, match=subject, prefix="correct"),
            preview=preview_in_words(preview),
            preview_payload=json.dumps(payload),
            reason=request.POST.get("reason", ""),
        )
        return render(request, "matches/sputo/match.html", context)

    def done(self, step, subject):
        if step == "correct":
            return _("Result corrected; the bracket follows.")
        return super().done(step, subject)


MATCH = MatchPage()


def _awards(post) -> list[dict]:
    """The preview's award choices (``award-<match>``: a player's id, or empty to play it)."""
    awards = []
    for key, value in post.items():
        match = key.removeprefix("award-")
        if match != key and match.isdigit() and value.isdigit():
            awards.append({"match": int(match), "winner": int(value)})
    return sorted(awards, key=lambda a: a["match"])


@require_POST
@club_page(at_least=Role.ADMIN)
@once_per_form
def resolve(request, access, tournament_id, match_id):
    """An admin resolves a match a correction flagged: replay it, or award it."""
    match = _match(access, tournament_id, match_id)
    post = request.POST
    winner = post.get("winner")
    _act(
        request,
        lambda: services.resolve_match(
            match=match,
            by=request.user,
            action=post.get("action", ""),
            winner=int(winner) if winner and winner.isdigit() else None,
            reason=post.get("reason", ""),
        ),
        _("Match resolved."),
    )
    return redirect(match)


# --- Calendars -------------------------------------------------------------------------------


@login_required
def calendar_page(request):
    feed, _created = CalendarFeed.objects.get_or_create(user=request.user)
    if request.method == "POST":
        feed.regenerate()
        messages.success(request, _("New calendar addresses: the old ones no longer work."))
        return redirect("sputo:calendar")
    clubs = request.user.memberships.select_related("club").order_by("club__name")
    return render(request, "matches/sputo/calendar.html", {"feed": feed, "memberships": clubs})


def _feed_user(token):
    feed = CalendarFeed.objects.select_related("user").filter(token=token).first()
    if feed is None or not feed.user.is_active:
        raise Http404
    return feed.user


def club_calendar(request, token, slug):
    """A club's tournaments, for whoever holds the token (no session needed)."""
    user = _feed_user(token)
    try:
        access = access_club(user, slug)
    except PermissionDenied as error:
        raise Http404 from error
    body = calendar.club_feed(access.club, request=request)
    return HttpResponse(body, content_type="text/calendar; charset=utf-8")


def my_calendar(request, token):
    """The token holder's scheduled matches, in every club."""
    user = _feed_user(token)
    return HttpResponse(
        calendar.player_feed(user, request=request), content_type="text/calendar; charset=utf-8"
    )
