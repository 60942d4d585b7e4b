"""Singapore hands as they are stored: each result of a hand read back from its record (the
API, the hand page, the sheet), and everyone's points in it (the ledger's posting).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Prefetch

from clubs.models import Player
from matches.results.adapters import CheckedOutcome
from matches.results.models import GameRecord, Outcome
from matches.singapore.models import Hand
from matches.singapore.payload import CheckedHand, Table


def balances_of(outcome: Outcome, checked: CheckedOutcome | None = None) -> dict[Player, int]:
    """Everyone's points in the hand of ``outcome``: from the check just made of its payload
    (``checked``, when the step made one), else from its stored record and seats."""
    hand = checked.extra if checked is not None else None
    if isinstance(hand, CheckedHand) and hand.payload == outcome.payload:
        return {hand.names[name]: points for name, points in hand.result["balances"].items()}
    record = outcome.game_records.get()
    seats = {seat.name_in_record: seat.player for seat in record.seats.select_related("player")}
    return {seats[name]: points for name, points in record.result.get("balances", {}).items()}


# --- Reading a stored hand ---------------------------------------------------------------


@dataclass
class HandView:
    """One outcome of a hand, as the API and the sheet show it (players by id)."""

    outcome: Outcome
    winner: str  # "dealer" | "opponent"
    winner_player: int
    loser_player: int
    winner_cards: list[str]
    loser_cards: list[str]
    melds: list[list[str]] | None
    dealer_quotas: int
    covers: dict[int, int]
    side_bets: list[dict]
    result: dict
    transfers: list[dict]
    balances: dict[int, int]

    @property
    def points(self) -> int:
        return int(self.result["points"])

    @property
    def multiplier(self) -> int:
        return int(self.result["multiplier"])


def view_of(hand: Hand, outcome: Outcome, record: GameRecord) -> HandView:
    """``outcome`` of ``hand`` from its stored record (``record.seats`` prefetched)."""
    ids = {seat.name_in_record: seat.player_id for seat in record.seats.all()}
    rec, result = record.record, record.result
    stake = rec.get("stake") or {}
    winner_id = ids[stake["winner"]]
    dealer_won = winner_id == ids[stake["dealer"]]
    session = hand.session
    transfers = [
        {
            "from": ids[t["from"]],
            "to": ids[t["to"]],
            "points": t["points"],
            "amount": session.amount(t["points"]),
        }
        for t in result.get("transfers", [])
    ]
    balances = {ids[name]: points for name, points in result.get("balances", {}).items()}
    public_result = {
        key: value for key, value in result.items() if key not in ("transfers", "balances")
    }
    public_result["balances"] = {str(pid): points for pid, points in balances.items()}
    return HandView(
        outcome=outcome,
        winner="dealer" if dealer_won else "opponent",
        winner_player=winner_id,
        loser_player=ids[stake["opponent"]] if dealer_won else ids[stake["dealer"]],
        winner_cards=list(rec["winner"]),
        loser_cards=list(rec["loser"]),
        melds=rec.get("melds"),
        dealer_quotas=stake["dealer_quotas"],
        covers={ids[name]: q for name, q in (stake.get("covers") or {}).items()},
        side_bets=[
            {
                "backer_of_winner": ids[b["backer_of_winner"]],
                "backer_of_loser": ids[b["backer_of_loser"]],
                "quotas": b["quotas"],
            }
            for b in stake.get("side_bets") or []
        ],
        result=public_result,
        transfers=transfers,
        balances=balances,
    )


def preview_view(table: Table, checked: CheckedHand, dealer: Player) -> dict:
    """What a preview answers: the same keys as a stored hand's view, from a check."""
    ids = checked.ids
    session = table.session
    result = checked.result
    public_result = {k: v for k, v in result.items() if k not in ("transfers", "balances")}
    balances = {ids[name]: points for name, points in result.get("balances", {}).items()}
    public_result["balances"] = {str(pid): points for pid, points in balances.items()}
    return {
        "result": public_result,
        "transfers": [
            {
                "from": ids[t["from"]],
                "to": ids[t["to"]],
                "points": t["points"],
                "amount": session.amount(t["points"]),
            }
            for t in result.get("transfers", [])
        ],
        "balances": balances,
    }


def with_history(hands):
    """``hands`` (a queryset) with everything their views need, in four more queries."""
    return hands.select_related("dealer", "opponent").prefetch_related(
        Prefetch("outcomes", queryset=Outcome.objects.order_by("pk")),
        "outcomes__game_records",
        "outcomes__game_records__seats",
    )


CURRENT_ORDER = ("confirmed", "disputed", "reported")


def current_outcome(hand: Hand) -> Outcome | None:
    """The outcome that stands for the hand: in force, else waiting, else the latest."""
    found = list(hand.outcomes.all())
    for status in CURRENT_ORDER:
        for outcome in found:
            if outcome.status == status:
                return outcome
    return found[-1] if found else None


def views_of(hand: Hand) -> list[HandView]:
    """Every outcome of ``hand`` (prefetched by :func:`with_history`), oldest first."""
    return [view_of(hand, o, o.game_records.all()[0]) for o in hand.outcomes.all()]
