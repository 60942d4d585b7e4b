"""Spazz'u'mazz's pages: the club's games and its game's name, quick entry on a phone (pick
the table, tap the players in the order they went out), a game with its result cycle."""

from __future__ import annotations

import json

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.db.models import Prefetch
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from clubs.access import club_page
from clubs.models import Role
from matches.results import audit, steps
from matches.results.adapters import actor
from matches.results.models import OutcomeStatus
from matches.results.views import StepPage
from matches.spazzumazz import boards
from matches.spazzumazz.models import SpazzumazzGame, SpazzumazzPlace
from matches.spazzumazz.payload import ids_of
from matches.spazzumazz.services import (
    players_of,
    recent_tables,
    record_spazzumazz_batch,
    record_spazzumazz_game,
)
from plumbing.once.sent import once_per_form
from plumbing.public_pages import public_page
from plumbing.rule_errors import for_people
from rules.spazzumazz import deck_count

#: The seats offered without JavaScript (a table of Spazz'u'mazz rarely has more).
SEATS = 10


def _error_messages(request, error: ValidationError) -> None:
    for message in error.messages:
        messages.error(request, message)


@public_page("spazzumazz")
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


def _picked(post, name: str, count: int) -> list[int] | None:
    """The players chosen in the lists a page offers without JavaScript (``place_1`` …,
    ``seat_1`` …): their ids in order, or None if none was chosen."""
    raw = [str(post.get(f"{name}_{n}", "")).strip() for n in range(1, count + 1)]
    chosen = [value for value in raw if value]
    if not chosen:
        return None
    if not all(value.isdigit() and len(value) < 19 for value in chosen):
        raise ValidationError({"order": _("Choose the players from the lists.")})
    return [int(value) for value in chosen]


def _places(post, size: int) -> list[int] | None:
    """The finishing order from the lists of places (every place chosen), or None."""
    order = _picked(post, "place", size)
    if order is not None and len(order) != size:
        raise ValidationError({"order": _("Choose a player for every place.")})
    return order


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
    orders = [ids_of(raw) for raw in request.POST.getlist("order") if raw.strip()]
    if not orders and (places := _places(request.POST, len(players))):
        orders = [places]
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
@once_per_form
def new_game(request, access):
    """Quick entry. Step 1: pick the table (a recent one in one tap, or the players in turn
    order); step 2: tap them in the order they went out, the last is the idiot."""
    club = access.club
    source = request.POST if request.method == "POST" else request.GET
    players = []
    record_errors: list[str] = []
    try:
        seats = _picked(source, "seat", SEATS)  # chosen from lists, without JavaScript
        if source.get("players") or seats:
            ids = ids_of(source["players"]) if source.get("players") else seats
            players = players_of(club, ids)
            if len(players) < 2:
                raise ValidationError({"players": _("A game needs at least two players.")})
        if request.method == "POST":
            if not players:
                raise ValidationError({"players": _("Pick the players first.")})
            recorded = _record(request, access, players)
            if len(recorded) == 1:
                messages.success(request, _("Game saved."))
                return redirect("spazzumazz:game", slug=club.slug, game_id=recorded[0].pk)
            saved = ngettext("%(n)s game saved.", "%(n)s games saved.", len(recorded))
            messages.success(request, saved % {"n": len(recorded)})
            return redirect("spazzumazz:games", slug=club.slug)
    except ValidationError as error:
        # The rules engine's refusals of a pasted log are shown by the log, translated
        # (``plumbing.rule_errors``); anything else at the top of the page.
        by_field = error.error_dict if hasattr(error, "error_dict") else {}
        record_errors = for_people(error, "record")
        others = [m for f in by_field if f != "record" for m in for_people(error, f)]
        for message in others if by_field else for_people(error):
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
            "seats": range(1, SEATS + 1),
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
    current = game.outcome_in_force() or game.open_outcome()
    order = [by_id[i] for i in current.payload["finish_order"]] if current else []
    may = steps.allowed_steps(game, actor(game, request.user, access), current)
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
            "history": audit.history(game),
            **{f"can_{step}": step in may for step in GAME.adapter.steps},
        },
    )


class GamePage(StepPage):
    """A game's result cycle on its page (``matches.results.views.step``): the finishing
    order is the tapped players' ids, ``order``."""

    game = "spazzumazz"
    note_field = "reason"

    def subject(self, access, *, game_id):
        return get_object_or_404(SpazzumazzGame, club=access.club, pk=game_id)

    def url(self, subject):
        return reverse("spazzumazz:game", kwargs={"slug": subject.club.slug, "game_id": subject.pk})

    def done(self, step, subject):
        return _("Done.")

    def void_words(self, subject):
        return {
            "title": _("Void the game"),
            "question": _("Void this game's result?"),
            "consequence": _(
                "The game stops counting for the leaderboards, the idiot's title and the "
                "players' pages. The void is kept in the history and cannot be undone."
            ),
        }

    def payload(self, step, request, access, subject):
        raw = request.POST.get("order")
        order = ids_of(raw) if raw else _places(request.POST, subject.size)
        if step == "decide" and order is None:
            return None
        return {"finish_order": order}


GAME = GamePage()
