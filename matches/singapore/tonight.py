"""Singapore on the tonight screen (``TONIGHT_PANES``, see ``matches/boards/tonight.py``): each
open table's seats in rotation order, who deals against whom now and who comes next, and the
night's running balance per seat for those who may see money."""

from __future__ import annotations

from django.urls import reverse
from django.utils.translation import gettext as _

from ledger import reads as ledger_reads
from ledger.services import scope_of_session
from matches.boards import night_bounds
from matches.boards.tonight import Pane, Tick
from matches.results.models import Outcome, OutcomeStatus
from matches.singapore import turns
from matches.singapore.models import Hand

TICKS = 6


def _table_row(table, state, balances: dict[int, int] | None) -> dict:
    names = {s.player_id: s.player.display_name for s in state.seats}
    dealer, opponent = state.next or (None, None)
    then = None
    if state.next:
        # If the dealer wins, the loser gives way: the next hand's opponent.
        after = turns.next_pair(state.states, turns.LastHand(dealer, opponent), None)
        then = names.get(after[1]) if after and after[1] not in (dealer, opponent) else None
    seats = [
        {
            "name": s.player.display_name,
            "dealing": s.player_id == dealer,
            "opposing": s.player_id == opponent,
            "out": not s.plays,
            "balance": None if balances is None else balances.get(s.player_id, 0),
        }
        for s in state.seats
        if s.left_at is None
    ]
    return {
        "table": table,
        "url": reverse("singapore:table", args=[table.club.slug, table.pk]),
        "dealer": names.get(dealer),
        "opponent": names.get(opponent),
        "then": then,
        "seats": seats,
        "unit": table.unit,
    }


def _ticks(club, tables, night) -> list[Tick]:
    start, end = night_bounds(night)
    confirmed = (
        Outcome.objects.filter(
            club=club,
            status=OutcomeStatus.CONFIRMED,
            confirmed_at__gte=start,
            confirmed_at__lt=end,
            content_type__model="hand",
        )
        .order_by("-confirmed_at")
        .values_list("object_id", "confirmed_at", "payload")[:TICKS]
    )
    found = list(confirmed)
    hands = Hand.objects.select_related("session", "dealer", "opponent").in_bulk(
        [object_id for object_id, _at, _payload in found]
    )
    ticks = []
    for object_id, at, payload in found:
        hand = hands.get(object_id)
        if hand is None:
            continue
        winner, loser = hand.dealer, hand.opponent
        if payload.get("winner") == "opponent":
            winner, loser = loser, winner
        text = _("%(table)s: %(winner)s beats %(loser)s") % {
            "table": hand.session.name,
            "winner": winner.display_name,
            "loser": loser.display_name,
        }
        ticks.append(Tick(at=at, text=text))
    return ticks


def tonight_pane(club, *, night, sees_money: bool) -> Pane | None:
    tables = list(club.table_sessions.open().select_related("club").order_by("name", "pk"))
    if not tables:
        return None
    states = turns.table_states(tables)
    balances = (
        ledger_reads.balance_minors_by_scope(
            club=club, scopes=[scope_of_session(t.pk) for t in tables]
        )
        if sees_money
        else {}
    )
    rows = [
        _table_row(t, states[t.pk], balances.get(scope_of_session(t.pk)) if sees_money else None)
        for t in tables
    ]
    return Pane(
        slug="singapore",
        title=_("Singapore tables"),
        template="matches/singapore/_tonight.html",
        context={"tables": rows, "sees_money": sees_money},
        ticks=_ticks(club, tables, night),
    )
