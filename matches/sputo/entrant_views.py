"""The tournament pages that ask first or take many at once: cancelling a tournament and
withdrawing an entry (the one confirmation page, ``clubs.confirm``; after the draw an admin
withdraws a player by giving their match to the opponent by walkover), and entering many
players at once (tick the members present, paste names; guests made on the fly)."""

from __future__ import annotations

from functools import partial

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from clubs.access import club_page
from clubs.confirm import confirm_page
from clubs.models import Role
from matches.sputo import reads, services
from matches.sputo.models import BEFORE_DRAW, Tournament, TournamentStatus
from plumbing.errors import Conflict


def _tournament(access, tournament_id) -> Tournament:
    return get_object_or_404(
        Tournament.objects.select_related("club"), club=access.club, pk=tournament_id
    )


@club_page(at_least=Role.ADMIN)
def cancel(request, access, tournament_id):
    """GET: what cancelling loses (a running tournament: the matches played, the results
    waiting); POST: cancel."""
    tournament = _tournament(access, tournament_id)
    url = tournament.get_absolute_url()
    return confirm_page(
        request,
        access,
        act=lambda: services.update_tournament(
            tournament=tournament, by=request.user, status=TournamentStatus.CANCELLED
        ),
        done=_("Tournament cancelled."),
        then=url,
        title=_("Cancel the tournament"),
        question=_("Cancel %(name)s?") % {"name": tournament.name},
        consequence=_(
            "A cancelled tournament cannot be reopened or run again: its bracket and entries "
            "stay as they are, for the record."
        ),
        lost=reads.cancel_losses(tournament),
        button=_("Yes, cancel the tournament"),
    )


def _after_the_draw(access, entrant, names: dict) -> tuple:
    """What withdrawing a player from a running tournament does (admins): the service,
    and the consequence in words."""
    if not (access.is_admin and entrant.tournament.status == TournamentStatus.RUNNING):
        return (
            partial(services.remove_entrant, entrant=entrant),
            _(
                "After the draw an entry cannot be withdrawn: report a walkover in the "
                "player's match instead."
            ),
        )
    match = services.match_to_play(entrant)
    if match is None:
        consequence = (
            _(
                "%(name)s has no match to play now (out already, or the next opponent is not "
                "known yet): withdraw them once their next match is ready."
            )
            % names
        )
    else:
        other = match.player_b if match.player_a_id == entrant.player_id else match.player_a
        consequence = _(
            "%(name)s's match against %(opponent)s (%(round)s) goes to %(opponent)s by "
            "walkover, and %(name)s leaves the tournament. Only a correction of that match "
            "can change it."
        ) % {**names, "opponent": other.display_name, "round": match.round_label}
    return partial(services.withdraw_after_draw, entrant=entrant), consequence


@club_page(at_least=Role.MEMBER)
def remove_entry(request, access, tournament_id, entrant_id):
    """GET: the confirmation; POST: the entry withdrawn before the draw, or, after it, the
    player's match given to the opponent by walkover (admins)."""
    tournament = _tournament(access, tournament_id)
    entrant = get_object_or_404(tournament.entrants.select_related("player"), pk=entrant_id)
    entrant.tournament = tournament
    if not (access.is_scorer or entrant.player.user_id == request.user.pk):
        raise PermissionDenied(_("Only the player, a scorer or an admin may withdraw an entry."))
    url = tournament.get_absolute_url()
    names = {"name": entrant.player.display_name, "tournament": tournament.name}
    service = partial(services.remove_entrant, entrant=entrant)
    if tournament.status not in BEFORE_DRAW:
        service, consequence = _after_the_draw(access, entrant, names)
    elif entrant.checked_in_at:
        consequence = _(
            "The entry and its check-in are removed; entering again is possible only while "
            "entries are open."
        )
    else:
        consequence = _("Entering again is possible only while entries are open.")
    return confirm_page(
        request,
        access,
        act=lambda: service(by=request.user),
        done=_("Entry withdrawn."),
        then=url,
        title=_("Withdraw an entry"),
        question=_("Withdraw %(name)s from %(tournament)s?") % names,
        consequence=consequence,
        button=_("Withdraw"),
    )


def _bulk_context(access, tournament, *, ticked=(), names="", errors=None) -> dict:
    entered = set(tournament.entrants.values_list("player_id", flat=True))
    players = access.club.players.active().exclude(pk__in=entered).order_by("display_name")
    return {
        "club": access.club,
        "access": access,
        "tournament": tournament,
        "members": [p for p in players if not p.is_guest],
        "guests": [p for p in players if p.is_guest],
        "ticked": {str(pk) for pk in ticked},
        "names": names,
        "errors": errors or {},
    }


@club_page(at_least=Role.SCORER)
def enter_many(request, access, tournament_id):
    """GET: the club's players not entered yet, to tick, and a box for names, one a line;
    POST: all of them entered, or none and each problem said by its field."""
    tournament = _tournament(access, tournament_id)
    if request.method != "POST":
        return render(request, "matches/sputo/enter_many.html", _bulk_context(access, tournament))
    ticked = request.POST.getlist("player")
    names = request.POST.get("names", "")
    try:
        ids = [int(pk) for pk in ticked]
    except ValueError:
        ids = []
    players = list(access.club.players.active().filter(pk__in=ids))
    errors: dict[str, list[str]] = {}
    if len(players) != len(set(ids)):
        errors["players"] = [_("Choose players of this club.")]
    else:
        try:
            done = services.add_entrants(
                tournament=tournament, by=request.user, players=players, names=names.splitlines()
            )
        except ValidationError as error:
            errors = error.message_dict if hasattr(error, "error_dict") else {"": error.messages}
        except Conflict as error:
            errors = {"": [error.message]}
        else:
            message = ngettext(
                "%(n)s player entered.", "%(n)s players entered.", len(done.entrants)
            ) % {"n": len(done.entrants)}
            if done.new_guests:
                message += " " + _("New guests: %(names)s.") % {
                    "names": ", ".join(g.display_name for g in done.new_guests)
                }
            messages.success(request, message)
            return redirect(tournament)
    context = _bulk_context(access, tournament, ticked=ticked, names=names, errors=errors)
    return render(request, "matches/sputo/enter_many.html", context, status=400)
