"""A Singapore hand's result as people send it, read and checked: the one parser of the API,
the hand form and the bulk import (``HandPayload`` is the one shape of a payload; the form
and the importer build it, :func:`read_payload` reads it), and the rules engine's verdict
in the API's terms.

The payload of a hand's outcome (what a scorer or a player reports, in the API's terms)::

    {"winner": "dealer" | "opponent", "winner_cards": [10 cards], "loser_cards": [10 cards],
     "melds": [[cards], ...] | None, "dealer_quotas": n, "covers": {"<player id>": quotas},
     "side_bets": [{"backer_of_winner": id, "backer_of_loser": id, "quotas": n}]}

The dealer and the opponent are the hand's own. The record checked and stored (a
``GameRecord`` with a seat for everyone in the stake) names people by their display names;
who is who afterwards is read from the record's seats, which guest merges keep right.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from django.core.exceptions import ValidationError
from django.db.models import Prefetch
from django.utils.translation import gettext as _

from clubs.models import Player
from clubs.services import house_rules_for
from matches.results.adapters import CheckedOutcome, CheckedRecord
from matches.results.models import GameRecord, Outcome
from matches.singapore.models import Hand, TableSession
from plumbing.errors import conflict, not_found
from plumbing.rule_errors import rule_message, rules_error_item
from rules.cards import Card
from rules.check import check_record
from rules.errors import RulesError

WINNER_ROLES = ("dealer", "opponent")
QUOTA_MAX = 1_000_000


# --- Errors ------------------------------------------------------------------------------


def rules_message(error: dict) -> str:
    """The engine's error in the reader's language (``plumbing.rule_errors``): its sentence by
    code, where it is (``at``, as the caller gives it) and the cards its message names."""
    return rule_message(error)


class HandRefused(ValidationError):
    """The rules engine refused the hand: a 400 naming the field of each error, with the
    engine's ``code``, its message (translated) and ``at``, in the API's field names
    (``winner_cards[3]``, ``covers.12``). ``rules_errors`` holds them as dicts (the hand form
    shows each by the offending card, in its ``short`` form without the place)."""

    def __init__(self, errors: list[dict]):
        self.rules_errors = errors
        by_field: dict[str, list[ValidationError]] = {}
        for error in errors:
            by_field.setdefault(field_of(error.get("at")), []).append(rules_error_item(error))
        super().__init__(by_field)


def field_of(at: str | None) -> str:
    """The form/API field an engine error's ``at`` (already in API terms) belongs to."""
    if not at:
        return "winner_cards"
    head = at.split("[")[0].split(".")[0]
    if head in ("winner_cards", "loser_cards", "melds", "dealer_quotas", "covers", "side_bets"):
        return head
    if head in ("winner", "opponent", "dealer"):
        return head
    return "winner_cards"  # a card (too_many_copies): shown with the cards


def _api_at(at: object, ids: dict[str, int]) -> str | None:
    """An engine ``at`` (record terms, names) in the API's terms (field names, ids)."""
    if not isinstance(at, str):
        return None
    if at.startswith("winner") and not at.startswith("winner_"):
        return "winner_cards" + at[len("winner") :]
    if at.startswith("loser"):
        return "loser_cards" + at[len("loser") :]
    if at.startswith("stake.covers."):
        name = at[len("stake.covers.") :]
        return f"covers.{ids[name]}" if name in ids else "covers"
    if at.startswith("stake."):
        return at[len("stake.") :]
    return at


def _refuse(field_name: str, message: str):
    return ValidationError({field_name: [message]})


# --- Reading a payload -------------------------------------------------------------------


def _int(value, field_name: str, *, low: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, str) and value.strip().lstrip("-").isdigit():
            value = int(value.strip())
        else:
            raise _refuse(field_name, _("A whole number of quotas."))
    if not low <= value <= QUOTA_MAX:
        raise _refuse(
            field_name,
            _("Between %(low)s and %(high)s quotas.") % {"low": low, "high": f"{QUOTA_MAX:,}"},
        )
    return value


def _cards(value, field_name: str) -> list[str]:
    """A list of card tokens, canonical where they are cards (the engine names the rest)."""
    if isinstance(value, str):
        value = value.replace(",", " ").split()
    if not isinstance(value, list) or any(not isinstance(t, str) for t in value):
        raise _refuse(field_name, _("A list of cards, such as AS 10H JK."))
    if len(value) > 30:
        raise _refuse(field_name, _("A hand holds 10 cards."))
    out = []
    for token in value:
        try:
            out.append(str(Card.parse(token)))
        except (ValueError, TypeError):
            out.append(token.strip()[:10])
    return out


def _player_id(value, field_name: str) -> int:
    if isinstance(value, bool):
        raise _refuse(field_name, _("A player's id."))
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    raise _refuse(field_name, _("A player's id."))


def _cover_key(key: object) -> int:
    """A key of ``covers``: a player's id as JSON keys are, a string of digits. Anything
    else names no one at the table (a 404 naming ``covers``, as an id of no seat is)."""
    if isinstance(key, int) and not isinstance(key, bool):
        return key
    if isinstance(key, str) and re.fullmatch(r"[1-9][0-9]{0,17}", key):
        return int(key)
    raise not_found("covers", _("%(key)s is not a player at this table.") % {"key": str(key)[:20]})


@dataclass
class Table:
    """What a hand needs of its session: the seats (player by id, in rotation order) and
    the house rules the records are checked under."""

    session: TableSession
    players: dict[int, Player]  # every seat's player, in rotation order
    present: set[int]  # seated now (not left)
    rules: dict

    @classmethod
    def of(cls, session: TableSession, seats=None) -> Table:
        if seats is None:
            seats = list(session.seats.select_related("player").order_by("position"))
        rules = (
            dict(session.house_rules.rules)
            if session.house_rules_id
            else house_rules_for(club=session.club, game="singapore")
        )
        return cls(
            session=session,
            players={seat.player_id: seat.player for seat in seats},
            present={seat.player_id for seat in seats if seat.left_at is None},
            rules=rules,
        )

    def seated(self, player_id: int, field_name: str) -> Player:
        """The player of a seat at the table now: one never seated here names no seat (a
        404 in the API); one who left clashes with the seating (a 409)."""
        message = _("Player %(id)s is not seated at this table.") % {"id": player_id}
        if player_id not in self.players:
            raise not_found(field_name, message)
        if player_id not in self.present:
            raise conflict(field_name, message)
        return self.players[player_id]


@dataclass
class CheckedHand:
    """A hand read and checked: the canonical payload, the record, the engine's result and
    the players behind the record's names."""

    payload: dict
    record: dict
    result: dict
    names: dict[str, Player] = field(default_factory=dict)

    @property
    def ids(self) -> dict[str, int]:
        return {name: player.pk for name, player in self.names.items()}


@dataclass(frozen=True)
class HandPayload:
    """The one shape of a hand's reported result, as :func:`read_payload` reads it: the hand
    form and the bulk import build one (``as_dict``), the API receives the dict itself."""

    winner: str
    winner_cards: list[str]
    loser_cards: list[str]
    dealer_quotas: int
    melds: list[list[str]] | None = None
    covers: dict[int, int] = field(default_factory=dict)  # player id -> quotas
    side_bets: list[tuple[int, int, int]] = field(default_factory=list)  # (winner's, loser's, q)

    def as_dict(self) -> dict:
        return {
            "winner": self.winner,
            "winner_cards": list(self.winner_cards),
            "loser_cards": list(self.loser_cards),
            "melds": [list(meld) for meld in self.melds] if self.melds else None,
            "dealer_quotas": self.dealer_quotas,
            "covers": {str(pid): quotas for pid, quotas in self.covers.items()},
            "side_bets": [
                {"backer_of_winner": backer, "backer_of_loser": against, "quotas": quotas}
                for backer, against, quotas in self.side_bets
            ],
        }


def _covers(table: Table, opponent: Player, raw) -> dict[int, int]:
    """``covers`` read: each coverer seated, once; the opponent first, then the others in
    the rotation's order."""
    raw = raw or {}
    if not isinstance(raw, dict):
        raise _refuse("covers", _('An object of "player id": quotas.'))
    covers: dict[int, int] = {}
    for key, quotas in raw.items():
        pid = _cover_key(key)
        table.seated(pid, f"covers.{pid}")
        if pid in covers:
            raise _refuse("covers", _("Player %(id)s covers twice.") % {"id": pid})
        covers[pid] = _int(quotas, f"covers.{pid}")
    order = list(table.players)
    return dict(sorted(covers.items(), key=lambda kv: (kv[0] != opponent.pk, order.index(kv[0]))))


def _side_bets(table: Table, raw) -> list[dict]:
    """``side_bets`` read: each names two seated backers and its quotas."""
    raw = raw or []
    if not isinstance(raw, list):
        raise _refuse("side_bets", _("A list of side bets."))
    bets = []
    for index, bet in enumerate(raw):
        at = f"side_bets[{index}]"
        if not isinstance(bet, dict):
            raise _refuse("side_bets", _("Each side bet names its two backers and the quotas."))
        backer = _player_id(bet.get("backer_of_winner"), f"{at}.backer_of_winner")
        against = _player_id(bet.get("backer_of_loser"), f"{at}.backer_of_loser")
        table.seated(backer, f"{at}.backer_of_winner")
        table.seated(against, f"{at}.backer_of_loser")
        quotas = _int(bet.get("quotas"), f"{at}.quotas")
        bets.append({"backer_of_winner": backer, "backer_of_loser": against, "quotas": quotas})
    return bets


def _melds(raw) -> list[list[str]] | None:
    if raw is None:
        return None
    if not isinstance(raw, list) or not raw:
        raise _refuse("melds", _("A list of combinations, each a list of cards."))
    melds = [_cards(meld, f"melds[{i}]") for i, meld in enumerate(raw)]
    return [meld for meld in melds if meld] or None


def _record(table: Table, payload: dict, name_of: dict[int, str], dealer, opponent) -> dict:
    """The RULES.md record of a read payload, people by their names."""
    winner = dealer if payload["winner"] == "dealer" else opponent
    record = {
        "game": "singapore",
        "winner": payload["winner_cards"],
        "loser": payload["loser_cards"],
        "stake": {
            "dealer": name_of[dealer.pk],
            "opponent": name_of[opponent.pk],
            "dealer_quotas": payload["dealer_quotas"],
            "winner": name_of[winner.pk],
            "covers": {name_of[int(pid)]: q for pid, q in payload["covers"].items()},
            "side_bets": [
                {
                    "backer_of_winner": name_of[b["backer_of_winner"]],
                    "backer_of_loser": name_of[b["backer_of_loser"]],
                    "quotas": b["quotas"],
                }
                for b in payload["side_bets"]
            ],
        },
        "house_rules": table.rules,
    }
    if payload["melds"] is not None:
        record["melds"] = payload["melds"]
    return record


def read_payload(table: Table, dealer: Player, opponent: Player, data: dict) -> CheckedHand:
    """Read a reported hand (``ValidationError`` naming the field) and check it with the
    rules engine (``HandRefused`` with the engine's errors). Writes nothing."""
    if not isinstance(data, dict):
        raise _refuse("winner", _("A hand is a JSON object."))
    winner = data.get("winner")
    if winner not in WINNER_ROLES:
        raise _refuse("winner", _('Either "dealer" or "opponent".'))
    winner_cards = _cards(data.get("winner_cards"), "winner_cards")
    loser_cards = _cards(data.get("loser_cards"), "loser_cards")
    melds = _melds(data.get("melds"))
    dealer_quotas = _int(data.get("dealer_quotas"), "dealer_quotas")
    covers = _covers(table, opponent, data.get("covers"))
    bets = _side_bets(table, data.get("side_bets"))
    payload = {
        "winner": winner,
        "winner_cards": winner_cards,
        "loser_cards": loser_cards,
        "melds": melds,
        "dealer_quotas": dealer_quotas,
        "covers": {str(pid): q for pid, q in covers.items()},
        "side_bets": bets,
    }
    players = {dealer.pk: dealer, opponent.pk: opponent}
    players.update({pid: table.players[pid] for pid in covers})
    for bet in bets:
        for pid in (bet["backer_of_winner"], bet["backer_of_loser"]):
            players[pid] = table.players[pid]
    name_of = {pid: player.display_name for pid, player in players.items()}
    record = _record(table, payload, name_of, dealer, opponent)
    names = {name_of[pid]: player for pid, player in players.items()}
    result = check(record, {name: p.pk for name, p in names.items()})
    return CheckedHand(payload=payload, record=record, result=result, names=names)


def check(record: dict, ids: dict[str, int]) -> dict:
    """The engine's result for ``record``, or ``HandRefused`` with its errors in API terms."""
    try:
        exit_code, result = check_record(record)
    except RulesError as error:  # the checker returns errors; this is belt and braces
        exit_code, result = 1, {"errors": [e.as_dict() for e in error.errors]}
    if exit_code != 0:
        errors = []
        for e in result.get("errors", []):
            error = {"code": e.get("code"), "message": e.get("message", ""), "at": e.get("at")}
            error["at"] = _api_at(error["at"], ids)
            # ``short``: without the place, for the form's note by the offending card.
            short = rules_message({**error, "at": None})
            errors.append(
                {
                    **error,
                    "message": rules_message(error),
                    "short": short,
                    "message_en": e.get("message", ""),
                }
            )
        raise HandRefused(errors)
    return result


# --- The result cycle's hooks --------------------------------------------------------------


def check_hand_outcome(hand: Hand, payload: dict) -> CheckedOutcome:
    """The result cycle's check of a hand's payload; the ``CheckedHand`` rides along as
    ``extra``, for the posting. ``record_hand`` makes this check itself before it reports
    (the rotation needs it first) and hands it to the cycle, which then checks no more."""
    checked = read_payload(Table.of(hand.session), hand.dealer, hand.opponent, payload)
    return as_outcome(checked)


def as_outcome(checked: CheckedHand) -> CheckedOutcome:
    return CheckedOutcome(
        payload=checked.payload,
        records=[
            CheckedRecord(record=checked.record, players=checked.names, result=checked.result)
        ],
        detail={"points": checked.result["points"], "multiplier": checked.result["multiplier"]},
        extra=checked,
    )


# --- A hand as it is stored, read back -------------------------------------------------------
#
# Singapore hands as they are stored: each result of a hand read back from its record (the
# API, the hand page, the sheet), and everyone's points in it (the ledger's posting).


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


def history_lookups() -> tuple:
    """What a hand's views read of its history: its results, their records and seats."""
    return (
        Prefetch("outcomes", queryset=Outcome.objects.order_by("pk")),
        "outcomes__game_records",
        "outcomes__game_records__seats",
    )


def with_history(hands):
    """``hands`` (a queryset) with everything their views need, in four more queries."""
    return hands.select_related("dealer", "opponent").prefetch_related(*history_lookups())


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
