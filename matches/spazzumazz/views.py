"""Spazz'u'mazz's pages: the club's games and its game's name, quick entry on a phone (pick
the table, tap the players in the order they went out), a game with its result cycle."""

from __future__ import annotations

import json

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.db.models import Prefetch
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from clubs.access import club_page
from clubs.errors import Conflict
from clubs.models import Role
from clubs.public_pages import public_page
from matches import outcomes
from matches.models import OutcomeStatus, SpazzumazzGame, SpazzumazzPlace
from matches.spazzumazz import boards
from matches.spazzumazz.services import (
    players_of,
    recent_tables,
    record_spazzumazz_batch,
    record_spazzumazz_game,
)
from rules.spazzumazz import deck_count


def _ids(raw: str) -> list[int]:
    parts = [p for p in (raw or "").replace(" ", "").split(",") if p]
    if not all(p.isdigit() and len(p) < 19 for p in parts):
        raise ValidationError({"players": _("List the players' ids, in turn order.")})
    return [int(p) for p in parts]


def _error_messages(request, error: ValidationError) -> None:
    for message in error.messages:
        messages.error(request, message)


@public_page
@club_page()
def games(request, access):
    club = access.club
    listing = (
        SpazzumazzGame.objects.filter(club=club)
        .prefetch_related(
            Prefetch(
                "places",
                queryset=SpazzumazzPlace.objects.select_related("player").order_by("turn"),
            ),
            "outcomes",
        )
        .order_by("-played_at", "-pk")
    )
    page = Paginator(listing, 20).get_page(request.GET.get("page"))
    rows = []
    for game in page:
        places = list(game.places.all())
        ordered = sorted((p for p in places if p.place), key=lambda p: p.place)
        latest = [o for o in game.outcomes.all() if o.status != OutcomeStatus.WITHDRAWN]
        rows.append(
            {
                "game": game,
                "players": [p.player for p in places],
                "order": [p.player for p in ordered],
                "status": latest[-1] if latest else None,
            }
        )
    name = boards.game_name(club)
    return render(
        request,
        "matches/spazzumazz/games.html",
        {
            "club": club,
            "access": access,
            "rows": rows,
            "page": page,
            "game_name": name,
            "game_title": boards.game_title(name["name"]) if name else "",
            "holders": boards.title_history(club),
            "stats": boards.idiot_stats(club)[:10],
        },
    )


def _record(request, access, players):
    """Save what the quick entry posted: one game, a batch, or a full turn log."""
    club = access.club
    record_text = request.POST.get("record", "").strip()
    if record_text:
        try:
            record = json.loads(record_text)
        except ValueError as error:
            raise ValidationError({"record": _("The record is not valid JSON.")}) from error
        if not isinstance(record, dict):
            raise ValidationError({"record": _("A record is a JSON object.")})
        game, _outcome = record_spazzumazz_game(
            club=club, players=players, by=request.user, record=record
        )
        return [game]
    orders = [_ids(raw) for raw in request.POST.getlist("order") if raw.strip()]
    if not orders:
        raise ValidationError({"order": _("Tap the players in the order they went out.")})
    if len(orders) == 1:
        game, _outcome = record_spazzumazz_game(
            club=club, players=players, by=request.user, finish_order=orders[0]
        )
        return [game]
    return [
        g
        for g, _o in record_spazzumazz_batch(
            club=club, players=players, by=request.user, finish_orders=orders
        )
    ]


@club_page(at_least=Role.MEMBER)
def new_game(request, access):
    """Quick entry. Step 1: pick the table (a recent one in one tap, or the players in turn
    order); step 2: tap them in the order they went out, the last is the idiot."""
    club = access.club
    source = request.POST if request.method == "POST" else request.GET
    players = []
    record_errors: list[str] = []
    try:
        if source.get("players"):
            players = players_of(club, _ids(source["players"]))
            if len(players) < 2:
                raise ValidationError({"players": _("A game needs at least two players.")})
        if request.method == "POST":
            if not players:
                raise ValidationError({"players": _("Pick the players first.")})
            recorded = _record(request, access, players)
            if len(recorded) == 1:
                messages.success(request, _("Game saved."))
                return redirect("spazzumazz:game", slug=club.slug, game_id=recorded[0].pk)
            messages.success(request, _("%(n)s games saved.") % {"n": len(recorded)})
            return redirect("spazzumazz:games", slug=club.slug)
    except ValidationError as error:
        # The rules engine's refusals of a pasted log are shown by the log, translated
        # (``clubs.rule_errors``); anything else at the top of the page.
        by_field = error.message_dict if hasattr(error, "error_dict") else {}
        record_errors = by_field.get("record", [])
        others = [m for f, ms in by_field.items() if f != "record" for m in ms]
        for message in others if by_field else error.messages:
            messages.error(request, message)
    me = club.players.filter(user=request.user).first()
    return render(
        request,
        "matches/spazzumazz/new.html",
        {
            "club": club,
            "access": access,
            "players": players,
            "player_ids": ",".join(str(p.pk) for p in players),
            "recent": recent_tables(club, None if access.is_scorer else me) if not players else [],
            "everyone": club.players.active().order_by("display_name") if not players else [],
            "queued": request.POST.getlist("order") if request.method == "POST" else [],
            "record_text": request.POST.get("record", "") if record_errors else "",
            "record_errors": record_errors,
        },
    )


@club_page()
def game_detail(request, access, game_id: int):
    club = access.club
    game = get_object_or_404(SpazzumazzGame, club=club, pk=game_id)
    places = list(game.places.select_related("player").order_by("turn"))
    by_id = {p.player_id: p.player for p in places}
    history = list(game.outcomes.order_by("reported_at", "pk"))
    current = game.outcome_in_force() or game.open_outcome()
    order = [by_id[i] for i in current.payload["finish_order"]] if current else []
    plays = request.user.is_authenticated and any(
        p.player.user_id == request.user.pk for p in places
    )
    return render(
        request,
        "matches/spazzumazz/game.html",
        {
            "club": club,
            "access": access,
            "game": game,
            "players": [p.player for p in places],
            "decks": deck_count(len(places)) if len(places) >= 2 else None,
            "current": current,
            "order": order,
            "trail": game.audit_entries.select_related("by").order_by("at", "pk"),
            "history": history,
            "can_confirm": current is not None
            and current.status == OutcomeStatus.REPORTED
            and current.reported_by_id != request.user.pk
            and (plays or access.is_scorer),
            "can_dispute": current is not None
            and current.status == OutcomeStatus.REPORTED
            and current.reported_by_id != request.user.pk
            and (plays or access.is_scorer),
            "can_withdraw": current is not None
            and current.status == OutcomeStatus.REPORTED
            and current.reported_by_id == request.user.pk,
            "can_decide": current is not None
            and current.status == OutcomeStatus.DISPUTED
            and access.is_scorer,
            "can_correct": current is not None and current.in_force and access.is_scorer,
            "can_report": current is None and (plays or access.is_scorer),
        },
    )


STEPS = {"confirm", "dispute", "withdraw", "decide", "correct", "void", "report"}


@require_POST
@club_page(at_least=Role.MEMBER)
def game_step(request, access, game_id: int, step: str):
    """One step of the result cycle, from the game's page (the services check who may)."""
    club = access.club
    if step not in STEPS:
        raise Http404(_("No such step."))
    game = get_object_or_404(SpazzumazzGame, club=club, pk=game_id)
    reason = request.POST.get("reason", "")
    try:
        order = _ids(request.POST["order"]) if request.POST.get("order") else None
        if step == "confirm":
            outcomes.confirm_outcome(subject=game, by=request.user)
        elif step == "dispute":
            outcomes.dispute_outcome(subject=game, by=request.user, reason=reason)
        elif step == "withdraw":
            outcomes.withdraw_outcome(subject=game, by=request.user)
        elif step == "decide":
            outcomes.decide_outcome(
                subject=game,
                by=request.user,
                uphold=request.POST.get("uphold") == "yes",
                payload={"finish_order": order} if order else None,
                note=reason,
            )
        elif step == "correct":
            outcomes.correct_outcome(
                subject=game, by=request.user, reason=reason, payload={"finish_order": order}
            )
        elif step == "void":
            outcomes.void_outcome(subject=game, by=request.user, reason=reason)
        else:
            outcomes.report_outcome(subject=game, by=request.user, payload={"finish_order": order})
        messages.success(request, _("Done."))
    except ValidationError as error:
        _error_messages(request, error)
    except Conflict as error:
        messages.error(request, error.message)
    return redirect("spazzumazz:game", slug=club.slug, game_id=game.pk)
