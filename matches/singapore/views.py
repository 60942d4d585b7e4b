"""Singapore tables' pages. Each view: authorize (``club_page``), fetch, act through the
services (the same as the API's), render or redirect."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import formats, timezone
from django.utils.http import urlencode
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

import plumbing.public_pages as public_pages
from clubs.access import club_page
from clubs.confirm import confirm_page
from clubs.models import Player, Role
from ledger import privacy as ledger_privacy
from ledger import reads as ledger_reads
from ledger import services as ledger
from matches.results import audit, steps
from matches.results.adapters import actor
from matches.results.models import OutcomeStatus
from matches.results.views import Refused, StepPage
from matches.singapore import services, turns
from matches.singapore.forms import HandForm, OpenTableForm, card_errors, meld_errors
from matches.singapore.models import TABLE_AREA, Hand, TableSession
from matches.singapore.payload import HandRefused, current_outcome, views_of, with_history
from matches.singapore.sheet import build_sheet, closing_label, sheet_csv
from plumbing.errors import Conflict
from plumbing.once.sent import once_per_form
from plumbing.public_pages import member_page


def _session(access, session_id) -> TableSession:
    return get_object_or_404(
        TableSession.objects.select_related("club", "house_rules"),
        club=access.club,
        pk=session_id,
    )


def _hand(session, hand_id) -> Hand:
    hand = with_history(session.hands.filter(pk=hand_id)).first()
    if hand is None:
        raise Http404(_("No such hand."))
    hand.session = session
    return hand


def _my_player(request, club) -> Player | None:
    if not request.user.is_authenticated:
        return None
    return club.players.filter(user=request.user, merged_into__isnull=True).first()


def _table_url(session) -> str:
    return reverse("singapore:table", args=[session.club.slug, session.pk])


# --- Tables --------------------------------------------------------------------------------


@member_page("singapore")
@club_page(at_least=Role.MEMBER)
def tables(request, access):
    club = access.club
    sessions = list(club.table_sessions.order_by("-date", "-pk")[:100])
    states = turns.table_states(sessions)
    return render(
        request,
        "matches/singapore/tables.html",
        {
            "club": club,
            "access": access,
            "open_tables": [(s, states[s.pk]) for s in sessions if s.is_open],
            "closed_tables": [(s, states[s.pk]) for s in sessions if not s.is_open],
        },
    )


@club_page(at_least=Role.SCORER)
@once_per_form
def open_table(request, access):
    club = access.club
    form = OpenTableForm(request.POST or None, club=club, initial={"date": timezone.localdate()})
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        players = {p.pk: p for p in club.players.filter(pk__in=data["seats"])}
        order = form.seat_order()
        pair = {}
        for name in ("first_dealer", "first_opponent"):
            if data.get(name):
                pair[name] = club.players.filter(pk=data[name]).first()
        try:
            session = services.open_session(
                club=club,
                by=request.user,
                name=data["name"],
                seats=[players[pk] for pk in order if pk in players],
                point_value=data.get("point_value"),
                date=data["date"],
                **pair,
            )
        except ValidationError as error:
            _add_errors(form, error)
        else:
            messages.success(request, _("Table opened."))
            return redirect(_table_url(session))
    return render(
        request, "matches/singapore/open_table.html", {"club": club, "access": access, "form": form}
    )


def _add_errors(form, error: ValidationError) -> None:
    if hasattr(error, "error_dict"):
        for field, errors in error.message_dict.items():
            form.add_error(field if field in form.fields else None, errors)
    else:
        form.add_error(None, error.messages)


def _table_rows(access, session_id) -> dict:
    """What every member (of one role) sees of a table: kept per club state."""
    session = _session(access, session_id)
    state = turns.table_state(session)
    names = {s.player_id: s.player.display_name for s in state.seats}
    hands = list(with_history(session.hands.order_by("-number"))[:12])
    recent = []
    for hand in hands:
        hand.session = session
        current = current_outcome(hand)
        view = next(v for v in views_of(hand) if v.outcome.pk == current.pk)
        recent.append(
            {
                "hand": hand,
                "view": view,
                "status": current,
                "closing": closing_label(view.multiplier),
            }
        )
    seated = {s.player_id for s in state.seats if s.left_at is None}
    can_seat = access.club.players.active().exclude(pk__in=seated).order_by("display_name")
    return {
        "session": session,
        "state": state,
        "names": names,
        "seated": seated,
        "next_dealer": names.get(state.next[0]) if state.next else None,
        "next_opponent": names.get(state.next[1]) if state.next else None,
        "can_seat": list(can_seat) if access.is_scorer else [],
        "recent": recent,
        "waiting": [r for r in recent if r["status"].is_open],
    }


@member_page(TABLE_AREA)
@club_page(at_least=Role.MEMBER)
def table(request, access, session_id):
    rows = public_pages.shared(
        access.club,
        ("singapore-table", session_id, access.is_scorer),
        lambda: _table_rows(access, session_id),
        areas=(TABLE_AREA.format(session_id=session_id),),
    )
    me = _my_player(request, access.club)  # the member's own part: one query
    session = rows["session"]
    i_sit = me is not None and me.pk in rows["seated"]
    return render(
        request,
        "matches/singapore/table.html",
        {
            **rows,
            "club": access.club,
            "access": access,
            "me": me,
            "i_sit": i_sit,
            "mine_elsewhere": _elsewhere(session, me) if me and not i_sit else None,
            "move": _move_offer(request, access, session),
            "may_reopen": access.is_admin
            and not session.is_open
            and timezone.now() <= services.reopen_until(session),
        },
    )


def _elsewhere(session, player):
    """The other open table of the night ``player`` sits at, if any (nobody in two places:
    the page offers to leave it and sit here in one tap)."""
    if player is None or not session.is_open:
        return None
    return services.seated_elsewhere([player], day=session.date, other_than=session.pk).get(
        player.pk
    )


def _move_offer(request, access, session):
    """After a refused seating (``?move=<player>``): the player and the table they sit at,
    for a scorer's one-tap "move them here"."""
    player_id = request.GET.get("move", "")
    if not access.is_scorer or not player_id.isdigit():
        return None
    player = access.club.players.filter(pk=player_id).first()
    other = _elsewhere(session, player)
    return {"player": player, "table": other} if other else None


def _seat_redirect(request, session, call):
    try:
        call()
    except ValidationError as error:
        for message in error.messages:
            messages.error(request, message)
    except Conflict as error:
        messages.error(request, error.message)
    return redirect(_table_url(session))


@require_POST
@club_page(at_least=Role.MEMBER)
def join(request, access, session_id):
    session = _session(access, session_id)
    player = access.club.players.filter(pk=request.POST.get("player") or 0).first()
    if player is None:
        messages.error(request, _("Choose a player."))
        return redirect(_table_url(session))
    move = request.POST.get("move") == "1"
    response = _seat_redirect(
        request,
        session,
        lambda: services.join_table(session=session, player=player, by=request.user, move=move),
    )
    # Refused for being elsewhere: a scorer is offered the move (a member's page offers it).
    if not move and access.is_scorer and _elsewhere(session, player) is not None:
        response["Location"] += f"?move={player.pk}"
    return response


SEAT_ACTIONS = {
    "leave": services.leave_table,
    "sit-out": services.sit_out,
    "return": services.return_to_play,
}


@require_POST
@club_page(at_least=Role.MEMBER)
def seat(request, access, session_id, player_id, step):
    session = _session(access, session_id)
    service = SEAT_ACTIONS.get(step)
    player = access.club.players.filter(pk=player_id).first()
    if service is None or player is None:
        raise Http404(_("No such seat."))
    return _seat_redirect(
        request, session, lambda: service(session=session, player=player, by=request.user)
    )


@club_page(at_least=Role.SCORER)
def close(request, access, session_id):
    """GET: the confirmation (what closing stops, until when an admin may reopen);
    POST: close."""
    session = _session(access, session_id)
    url = _table_url(session)
    until = timezone.now() + services.REOPEN_WITHIN
    return confirm_page(
        request,
        access,
        act=lambda: services.close_table(session=session, by=request.user),
        done=_("Table closed."),
        then=url,
        title=_("Close the table"),
        question=_("Close %(table)s?") % {"table": session.name},
        consequence=_(
            "No more hands or seat changes at this table; results can still be confirmed "
            "and corrected. Until %(time)s an admin may reopen it."
        )
        % {"time": formats.date_format(timezone.localtime(until), "SHORT_DATETIME_FORMAT")},
        button=_("Close the table"),
    )


@require_POST
@club_page(at_least=Role.ADMIN)
def reopen(request, access, session_id):
    session = _session(access, session_id)
    try:
        services.reopen_table(session=session, by=request.user)
    except Conflict as error:
        messages.error(request, error.message)
    else:
        messages.success(request, _("Table reopened."))
    return redirect(_table_url(session))


# --- Hands -----------------------------------------------------------------------------------


def _hand_form(request, session, state, *, initial=None, fixed=None):
    people = [s.player for s in state.seats if s.left_at is None]
    players = [s.player for s in state.seats if s.plays]
    if fixed is not None:  # a correction: the hand's own two players
        players = list(fixed)
    return HandForm(request.POST or None, people=people, players=players, initial=initial or {})


def _render_hand_form(request, access, session, form, *, refused=None, preview=None, **extra):
    context = {
        "club": access.club,
        "access": access,
        "session": session,
        "form": form,
        "cards": card_errors(form, refused) if form.is_bound else {},
        "meld_errors": meld_errors(refused),
        "preview": preview,
        "status": 409
        if extra.get("conflict")
        else (400 if form.errors or refused or extra.get("reason_error") else 200),
        **extra,
    }
    return render(request, "matches/singapore/hand_form.html", context, status=context["status"])


def _preview_context(session, recorded, names, *, money: bool) -> dict:
    """What the hand would do; in money too if the reader sees the club's (``money``)."""
    result = recorded.preview["result"]
    amount = session.amount if money else (lambda points: None)
    return {
        "melds": result.get("melds", []),
        "combinations": result.get("combinations"),
        "multiplier": result.get("multiplier"),
        "closing": closing_label(result.get("multiplier", 1)),
        "raw_points": result.get("raw_points"),
        "rounded_points": result.get("rounded_points"),
        "points": result.get("points"),
        "transfers": [
            {
                **t,
                "payer": names.get(t["from"], t["from"]),
                "payee": names.get(t["to"], t["to"]),
                "amount": t["amount"] if money else None,
            }
            for t in recorded.preview["transfers"]
        ],
        "balances": [
            (names.get(pid, pid), points, amount(points))
            for pid, points in recorded.preview["balances"].items()
            if points
        ],
    }


@club_page(at_least=Role.MEMBER)
@once_per_form
def new_hand(request, access, session_id):
    session = _session(access, session_id)
    state = turns.table_state(session)
    initial = {}
    if state.next:
        initial = {"dealer": state.next[0], "opponent": state.next[1]}
    form = _hand_form(request, session, state, initial=initial)
    names = {s.player_id: s.player.display_name for s in state.seats}
    if request.method != "POST":
        return _render_hand_form(request, access, session, form, state=state)
    if not form.is_valid():
        return _render_hand_form(request, access, session, form, state=state)
    data = form.cleaned_data
    players = {s.player_id: s.player for s in state.seats}
    previewing = request.POST.get("action") == "preview"
    try:
        recorded = services.record_hand(
            session=session,
            by=request.user,
            dealer=players[data["dealer"]],
            opponent=players[data["opponent"]],
            payload=form.payload(),
            override=data.get("override") or None,
            preview=previewing,
            access=access,
        )
    except HandRefused as error:
        form.add_refusal(error)
        return _render_hand_form(request, access, session, form, refused=error, state=state)
    except ValidationError as error:
        form.add_refusal(error)
        return _render_hand_form(request, access, session, form, state=state)
    except services.OutOfTurn as error:
        # By the dealer: the winner stays and deals, and the message names who.
        form.add_error("dealer", error.message)
        return _render_hand_form(request, access, session, form, state=state, conflict=True)
    except Conflict as error:
        form.add_error(None, error.message)
        return _render_hand_form(request, access, session, form, state=state, conflict=True)
    if previewing:
        preview = _preview_context(session, recorded, names, money=access.sees_money())
        return _render_hand_form(request, access, session, form, preview=preview, state=state)
    if recorded.outcome.status == OutcomeStatus.REPORTED:
        messages.success(
            request,
            _("Hand %(n)s recorded: the other player confirms it.") % {"n": recorded.hand.number},
        )
    else:
        messages.success(request, _("Hand %(n)s recorded.") % {"n": recorded.hand.number})
    return redirect(_table_url(session))


@club_page(at_least=Role.MEMBER)
def hand(request, access, session_id, hand_id):
    session = _session(access, session_id)
    found = _hand(session, hand_id)
    views = views_of(found)
    current = current_outcome(found)
    names = {
        p.pk: p.display_name
        for p in access.club.players.filter(
            pk__in={pid for v in views for pid in v.balances} | {found.dealer_id, found.opponent_id}
        )
    }
    money = access.sees_money()  # else points only
    results = [
        {
            "view": view,
            "closing": closing_label(view.multiplier),
            "transfers": [
                {
                    **t,
                    "payer": names.get(t["from"]),
                    "payee": names.get(t["to"]),
                    "amount": t["amount"] if money else None,
                }
                for t in view.transfers
            ],
            "winner_name": names.get(view.winner_player),
        }
        for view in views
    ]
    standing = current if current is not None and (current.in_force or current.is_open) else None
    may = steps.allowed_steps(found, actor(found, request.user, access), standing)
    return render(
        request,
        "matches/singapore/hand.html",
        {
            "club": access.club,
            "access": access,
            "session": session,
            "hand": found,
            "current": current,
            "results": results,
            "history": audit.history(found),
            "may": may,
        },
    )


def _correction_form(request, session, found: Hand):
    """The hand form filled with the hand's result in force, for a correction."""
    state = turns.table_state(session)
    current = current_outcome(found)
    view = next(v for v in views_of(found) if v.outcome.pk == current.pk)
    initial = {
        "dealer": found.dealer_id,
        "opponent": found.opponent_id,
        "winner": view.winner,
        "winner_cards": " ".join(view.winner_cards),
        "loser_cards": " ".join(view.loser_cards),
        "melds": "\n".join(" ".join(m) for m in view.melds or []),
        "dealer_quotas": view.dealer_quotas,
        **{f"cover_{pid}": q for pid, q in view.covers.items()},
    }
    for n, bet in enumerate(view.side_bets[:3]):
        initial[f"bet_{n}_winner"] = bet["backer_of_winner"]
        initial[f"bet_{n}_loser"] = bet["backer_of_loser"]
        initial[f"bet_{n}_quotas"] = bet["quotas"]
    form = _hand_form(
        request, session, state, initial=initial, fixed=[found.dealer, found.opponent]
    )
    return form, {"state": state, "correcting": found}


class HandPage(StepPage):
    """A hand's result cycle on its page (``matches.results.views.step``); a correction
    is the hand form again, filled with the result in force."""

    game = "singapore"
    aliases = {"uphold": ("decide", True), "reject": ("decide", False)}
    note_field = "reason"
    form_steps = ("correct",)

    def subject(self, access, *, session_id, hand_id):
        return _hand(_session(access, session_id), hand_id)

    def url(self, subject):
        return reverse("singapore:hand", args=[subject.club.slug, subject.session_id, subject.pk])

    def done(self, step, subject):
        if step == "correct":
            return _("Hand %(n)s corrected.") % {"n": subject.number}
        return _("Done.")

    def void_words(self, subject):
        names = {"n": subject.number, "table": subject.session.name}
        return {
            "title": _("Void hand %(n)s") % names,
            "question": _("Void hand %(n)s of %(table)s?") % names,
            "consequence": _(
                "The hand stops counting: its points and debts come off the sheet and the "
                "ledger, and the rotation goes on from the hand before. The void is kept in "
                "the history and cannot be undone."
            ),
        }

    def form(self, request, access, subject, step):
        form, extra = _correction_form(request, subject.session, subject)
        return _render_hand_form(request, access, subject.session, form, **extra)

    def payload(self, step, request, access, subject):
        if step != "correct":
            return None
        form, extra = _correction_form(request, subject.session, subject)
        if not form.is_valid():
            raise Refused(_render_hand_form(request, access, subject.session, form, **extra))
        return form.payload()

    def refused(self, request, access, subject, step, error):
        if step != "correct" or isinstance(error, PermissionDenied):
            return None
        session = subject.session
        form, extra = _correction_form(request, session, subject)
        form.is_valid()
        if isinstance(error, HandRefused):
            form.add_refusal(error)
            return _render_hand_form(request, access, session, form, refused=error, **extra)
        if isinstance(error, Conflict):
            form.add_error(None, error.message)
            return _render_hand_form(request, access, session, form, conflict=True, **extra)
        if "reason" in getattr(error, "message_dict", {}):
            extra["reason_error"] = error.message_dict["reason"]
        else:
            form.add_refusal(error)
        return _render_hand_form(request, access, session, form, **extra)


HAND = HandPage()


# --- The sheet -------------------------------------------------------------------------------


@member_page(TABLE_AREA, "ledger")
@club_page(at_least=Role.MEMBER)
def sheet(request, access, session_id):
    session = _session(access, session_id)
    plan = ledger_privacy.debts(  # whose debts the reader sees: everyone's, or their own
        ledger_reads.settle_up_plan(
            club=access.club, unit=session.unit, scope=ledger.scope_of_session(session.pk)
        ),
        ledger_privacy.shown_players(access),
    )
    ledger_url = (
        reverse("ledger:club", args=[access.club.slug])
        + "?"
        + urlencode({"unit": session.unit, "session": session.pk})
    )
    return render(
        request,
        "matches/singapore/sheet.html",
        {
            "club": access.club,
            "access": access,
            "session": session,
            "sheet": build_sheet(session, money=access.sees_money()),
            "plan": plan,
            "ledger_url": ledger_url,
        },
    )


@club_page(at_least=Role.MEMBER)
def sheet_download(request, access, session_id):
    session = _session(access, session_id)
    found = build_sheet(session, money=access.sees_money())
    response = HttpResponse(sheet_csv(found), content_type="text/csv; charset=utf-8")
    filename = f"singapore-{session.date:%Y-%m-%d}-{session.pk}.csv"
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
