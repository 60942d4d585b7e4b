"""Singapore tables: one keyword-only service per write, for the pages and the API alike.

Every write to a session locks the session's row first, so seat changes and hands at one
table happen one after the other: the rotation a hand is checked against is the one it
is recorded into.

Who may do what: a scorer or an admin opens and closes tables, seats anyone and records
hands in force at once; a member may seat themself, leave, sit out and come back, and report
a hand they play in (the other player confirms it). Voids and corrections are for scorers
and admins; a hand out of turn only for an admin, with a reason. Refusals: 403
(``PermissionDenied``) for a role that is not enough, 409 (``Conflict``) for the wrong
moment (a hand out of turn, a closed table), 400 (``ValidationError`` naming the field) for
bad input.
"""

from __future__ import annotations

import random
import secrets
from dataclasses import dataclass
from datetime import date as Date
from datetime import timedelta
from decimal import Decimal, InvalidOperation

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Max, OuterRef, Subquery
from django.utils import timezone
from django.utils.translation import gettext as _

from clubs.access import ClubAccess, access_club, access_with_role, role_in_club
from clubs.models import Club, Player, Role
from clubs.webhooks.services import absolute, emit, player_data
from matches.boards.live import tonight_changed
from matches.results import steps
from matches.results.adapters import Actor
from matches.results.models import Outcome
from matches.singapore import turns
from matches.singapore.adapter import ADAPTER
from matches.singapore.models import AREA, TABLE_AREA, Hand, TableSeat, TableSession
from matches.singapore.payload import CheckedHand, Table, as_outcome, preview_view, read_payload
from matches.singapore.turns import TableState, first_pair, table_state
from plumbing import public_pages
from plumbing.errors import Conflict, conflict, not_found
from plumbing.once.sent import check_key, key_reused
from plumbing.transactions import own_transaction


def _lock(session: TableSession) -> TableSession:
    """The table locked for a change of its seats or state, which the tonight screen shows."""
    tonight_changed.delay_on_commit(club_id=session.club_id)
    public_pages.changed(session.club_id, AREA, TABLE_AREA.format(session_id=session.pk))
    return (
        TableSession.objects.select_for_update(of=("self",))
        .select_related("club", "house_rules")
        .get(pk=session.pk)
    )


def _lock_as(session: TableSession, by, at_least: str | None = Role.MEMBER, access=None):
    """The table locked, and ``by``'s access to its club, in one query (with the number of
    its last hand, for the next one). ``access``: the caller's check of ``by`` in the
    table's club, made for this request; its club is then neither joined nor asked again."""
    last_number = Hand.objects.filter(session=OuterRef("pk")).order_by("-number")
    rows = TableSession.objects.select_for_update(of=("self",)).annotate(
        last_number=Subquery(last_number.values("number")[:1])
    )
    user_id = getattr(by, "pk", None)
    if access is not None and access.club.pk == session.club_id and access.user_id == user_id:
        locked = rows.select_related("season", "house_rules").get(pk=session.pk)
        locked.club = access.club
        return locked, access.require(at_least)
    locked = (
        rows.select_related("club", "season", "house_rules")
        .annotate(by_role=role_in_club(by))
        .get(pk=session.pk)
    )
    return locked, access_with_role(locked.club, locked.by_role, at_least=at_least, user_id=user_id)


def _require_open(session: TableSession) -> None:
    if session.closed_at is not None:
        raise Conflict(_("This table is closed."))


def _access(by, club: Club, at_least: str | None = Role.MEMBER) -> ClubAccess:
    return access_club(by, club, at_least=at_least)


def _point_value(value) -> Decimal | None:
    if value is None or value == "":
        return None
    try:
        amount = Decimal(str(value).strip().replace(",", "."))
    except (InvalidOperation, ValueError):
        raise ValidationError({"point_value": _("A sum of money, such as 0.10.")}) from None
    if not amount.is_finite() or amount <= 0 or amount >= Decimal("100000000"):
        raise ValidationError({"point_value": _("More than zero, or empty for points only.")})
    if amount != amount.quantize(Decimal("0.01")):
        raise ValidationError({"point_value": _("At most two decimal places.")})
    return amount


def _players_of(club: Club, players: list[Player], field_name: str) -> list[Player]:
    for player in players:
        if player.club_id != club.pk or player.merged_into_id is not None:
            raise not_found(
                field_name, _("%(name)s is not a player of this club.") % {"name": player}
            )
    return players


def draw_first_pair(seats: list[int], seed: int) -> tuple[int, int]:
    """The first dealer and opponent drawn by lot: the same seed and seats give the same
    pair (``random.Random(seed).sample(seats, 2)``)."""
    dealer, opponent = random.Random(seed).sample(seats, 2)
    return dealer, opponent


# --- Sessions and seats ------------------------------------------------------------------


@transaction.atomic
def open_session(
    *,
    club: Club,
    by,
    name: str,
    seats: list[Player],
    point_value=None,
    first_dealer: Player | None = None,
    first_opponent: Player | None = None,
    date: Date | None = None,
    seed: int | None = None,
) -> TableSession:
    """Open a table with ``seats`` in rotation order. The first dealer and opponent are
    the scorer's (both or neither) or drawn by lot from a recorded seed."""
    access = _access(by, club, Role.SCORER)
    club = access.club
    name = " ".join(str(name or "").split())
    if not name:
        raise ValidationError({"name": _("Name the table.")})
    if len(name) > 80:
        raise ValidationError({"name": _("At most 80 characters.")})
    value = _point_value(point_value)
    _players_of(club, seats, "seats")
    if len(seats) < 2:
        raise ValidationError({"seats": _("A table needs at least two players.")})
    ids = [p.pk for p in seats]
    if len(set(ids)) != len(ids):
        raise ValidationError({"seats": _("A player can sit at a table only once.")})
    if (first_dealer is None) != (first_opponent is None):
        raise ValidationError(
            {"first_opponent": _("Give both the first dealer and the first opponent, or neither.")}
        )
    draw: dict = {}
    if first_dealer is not None:
        for field_name, player in (
            ("first_dealer", first_dealer),
            ("first_opponent", first_opponent),
        ):
            if player.pk not in ids:
                raise ValidationError({field_name: _("Choose someone seated at the table.")})
        if first_dealer.pk == first_opponent.pk:
            raise ValidationError({"first_opponent": _("The dealer plays against someone else.")})
    else:
        seed = secrets.randbits(62) if seed is None else seed
        dealer_id, opponent_id = draw_first_pair(ids, seed)
        by_id = {p.pk: p for p in seats}
        first_dealer, first_opponent = by_id[dealer_id], by_id[opponent_id]
        draw = {"seed": seed, "seats": ids}
    day = date or timezone.localdate()
    _nobody_elsewhere(seats, day=day)
    session = TableSession.objects.create(
        club=club,
        season=club.seasons.holding(day),
        name=name,
        date=day,
        house_rules=club.current_house_rules("singapore"),
        point_value=value,
        currency=club.currency if value is not None else "",
        first_dealer=first_dealer,
        first_opponent=first_opponent,
        draw=draw,
        created_by=by if by.is_authenticated else None,
    )
    now = timezone.now()
    TableSeat.objects.bulk_create(
        TableSeat(session=session, player=p, position=n, joined_at=now) for n, p in enumerate(seats)
    )
    tonight_changed.delay_on_commit(club_id=club.pk)
    public_pages.changed(club.pk, AREA)
    return session


#: How far apart two tables' nights may be for one person to be at both "at once": a table
#: opened after midnight has the next day's date, and a table left open from an earlier
#: week is forgotten, not a place anyone is sitting at now.
SAME_NIGHT = timedelta(days=1)


def seated_elsewhere(players, *, day: Date, other_than: int | None = None) -> dict:
    """Which of ``players`` sit (not left) at another open table of the same night:
    ``{player_id: TableSession}``. Two reads, whatever the club's history."""
    seats = (
        TableSeat.objects.filter(
            player__in=players,
            left_at__isnull=True,
            session__closed_at__isnull=True,
            session__date__gte=day - SAME_NIGHT,
            session__date__lte=day + SAME_NIGHT,
        )
        .exclude(session_id=other_than)
        .select_related("session")
        .order_by("session__date", "session_id")
    )
    elsewhere: dict = {}
    for seat in seats:
        elsewhere.setdefault(seat.player_id, seat.session)
    return elsewhere


def elsewhere_message(player, other: TableSession) -> str:
    return _("%(name)s is at “%(table)s”: leave it first.") % {
        "name": player,
        "table": other.name,
    }


def _nobody_elsewhere(players, *, day: Date) -> None:
    """A 409 naming the other table if one of ``players`` (a new table's seats) is seated
    at an open table of the same night: nobody is in two places."""
    elsewhere = seated_elsewhere(players, day=day)
    for player in players:
        if player.pk in elsewhere:
            raise conflict("seats", elsewhere_message(player, elsewhere[player.pk]))


def _self_or_scorer(by, session: TableSession, player: Player) -> None:
    access = _access(by, session.club)
    if access.is_scorer:
        return
    if player.user_id is None or player.user_id != by.pk:
        raise PermissionDenied(_("A scorer or an admin seats others; you may seat only yourself."))


def _seat(session: TableSession, player: Player) -> TableSeat:
    seat = session.seats.filter(player=player).first()
    message = _("%(name)s is not at this table.") % {"name": player}
    if seat is None:  # no such seat
        raise not_found("player", message)
    if seat.left_at is not None:  # left already: the seating says no
        raise conflict("player", message)
    return seat


@transaction.atomic
def join_table(*, session: TableSession, player: Player, by, move: bool = False) -> TableSeat:
    """Seat ``player`` at the end of the rotation (a person who left comes back there).

    Someone seated at another open table of the same night is a 409 naming it; with
    ``move`` they leave that table and sit here, in one step."""
    _self_or_scorer(by, session, player)
    session = _lock(session)
    _require_open(session)
    _players_of(session.club, [player], "player")
    seat = session.seats.filter(player=player).first()
    if seat is not None and seat.left_at is None:
        raise conflict("player", _("%(name)s is already at this table.") % {"name": player})
    other = seated_elsewhere([player], day=session.date, other_than=session.pk).get(player.pk)
    if other is not None and not move:
        raise conflict("player", elsewhere_message(player, other))
    if other is not None:
        _change_seat(session=other, player=player, by=by, left_at=timezone.now())
    last = session.seats.aggregate(last=Max("position"))["last"]
    position = 0 if last is None else last + 1
    if seat is None:
        seat = TableSeat.objects.create(session=session, player=player, position=position)
    else:
        seat.position, seat.left_at, seat.sitting_out = position, None, False
        seat.joined_at = timezone.now()
        seat.save(update_fields=["position", "left_at", "sitting_out", "joined_at"])
    return seat


def _change_seat(*, session: TableSession, player: Player, by, **changes) -> TableSeat:
    _self_or_scorer(by, session, player)
    session = _lock(session)
    _require_open(session)
    seat = _seat(session, player)
    for name, value in changes.items():
        setattr(seat, name, value)
    seat.save(update_fields=list(changes))
    return seat


@transaction.atomic
def leave_table(*, session: TableSession, player: Player, by) -> TableSeat:
    """``player`` leaves the table; the seat is kept (history, where the rotation counts)."""
    return _change_seat(session=session, player=player, by=by, left_at=timezone.now())


@transaction.atomic
def sit_out(*, session: TableSession, player: Player, by) -> TableSeat:
    """``player`` stays at the table but out of the rotation (may still cover and bet)."""
    return _change_seat(session=session, player=player, by=by, sitting_out=True)


@transaction.atomic
def return_to_play(*, session: TableSession, player: Player, by) -> TableSeat:
    return _change_seat(session=session, player=player, by=by, sitting_out=False)


@transaction.atomic
def close_table(*, session: TableSession, by) -> TableSession:
    """Close the table: no more hands or seat changes (results can still be corrected)."""
    _access(by, session.club, Role.SCORER)
    session = _lock(session)
    _require_open(session)
    session.closed_at = timezone.now()
    session.save(update_fields=["closed_at"])
    return session


#: How long after closing an admin may reopen a table: the same night, past midnight too.
REOPEN_WITHIN = timedelta(hours=12)


def reopen_until(session: TableSession):
    """Until when a closed table may be reopened (None: it is open)."""
    return session.closed_at + REOPEN_WITHIN if session.closed_at else None


@transaction.atomic
def reopen_table(*, session: TableSession, by, at=None) -> TableSession:
    """Reopen a table closed by mistake (admins), the same night: within
    ``REOPEN_WITHIN`` of its closing. Hands and seats go on where they were."""
    _access(by, session.club, Role.ADMIN)
    session = _lock(session)
    if session.closed_at is None:
        raise Conflict(_("This table is open."))
    if (at or timezone.now()) > reopen_until(session):
        raise Conflict(_("A table can be reopened only the same night it was closed."))
    seated = [s.player for s in session.seats.filter(left_at__isnull=True).select_related("player")]
    elsewhere = seated_elsewhere(seated, day=session.date, other_than=session.pk)
    for player in seated:
        if player.pk in elsewhere:  # sat down elsewhere since: they leave there first
            raise Conflict(elsewhere_message(player, elsewhere[player.pk]))
    session.closed_at = None
    session.save(update_fields=["closed_at"])
    return session


# --- Hands -----------------------------------------------------------------------------------


@dataclass
class Recorded:
    """What recording (or previewing) a hand gives: the hand (None for a preview), its
    outcome, and the check's figures for a preview."""

    hand: Hand | None
    outcome: Outcome | None
    checked: CheckedHand | None = None
    preview: dict | None = None
    replayed: bool = False  # an idempotency key seen before: nothing new was written
    out_of_turn: bool = False  # allowed out of turn by an admin's override


def _name(player_id: int, seats: list[TableSeat]) -> str:
    for seat in seats:
        if seat.player_id == player_id:
            return seat.player.display_name
    return str(player_id)


class OutOfTurn(Conflict):
    """A hand the rotation does not call for (a 409): ``dealer`` is who deals the next
    hand (None when the rotation names nobody), for a form to show the error by its field."""

    def __init__(self, message: str, *, dealer: int | None = None) -> None:
        super().__init__(message)
        self.dealer = dealer


def out_of_turn_message(expected: tuple[int, int] | None, played: tuple[int, int], name) -> str:
    """Why a hand between ``played`` (dealer, opponent) is out of turn, naming who deals
    (``name(player id)`` gives the name shown)."""
    if expected is None:
        return _("Out of turn.")
    names = {"dealer": name(expected[0]), "opponent": name(expected[1])}
    if turns.swapped(expected, played):
        return (
            _(
                "Out of turn: the winner stays and deals, so the next hand is %(dealer)s "
                "(dealing) against %(opponent)s."
            )
            % names
        )
    return _("Out of turn: the next hand is %(dealer)s (dealing) against %(opponent)s.") % names


def _override_reason(override, access: ClubAccess) -> str:
    """An override's reason, tidied; only an admin may give one (RULES.md: "unless an
    admin overrides it"), whether or not the hand turns out to need it."""
    reason = " ".join(str(override or "").split())
    if reason and not access.is_admin:
        raise PermissionDenied(_("Only an admin may allow a hand out of turn."))
    return reason[:1000]


def _check_turn(session, state: TableState, dealer, opponent, *, override, access) -> str:
    """'' when the hand is in turn (pair and dealer); the override's reason when an admin
    allows it; ``OutOfTurn`` (409) otherwise."""
    reason = _override_reason(override, access)
    played = (dealer.pk, opponent.pk)
    if turns.in_turn(state.states, state.last, first_pair(session), played):
        return ""
    if reason:
        return reason
    raise OutOfTurn(
        out_of_turn_message(state.next, played, lambda pid: _name(pid, state.seats)),
        dealer=state.next[0] if state.next else None,
    )


def _require_playing(seats: list[TableSeat], *, dealer: Player, opponent: Player) -> None:
    for field_name, player in (("dealer", dealer), ("opponent", opponent)):
        seat = next((s for s in seats if s.player_id == player.pk), None)
        if seat is None or not seat.plays:
            # No seat here: nobody to name (404); left or sitting out: the seating says no.
            refuse = not_found if seat is None else conflict
            raise refuse(field_name, _("%(name)s is not playing at this table.") % {"name": player})
    if dealer.pk == opponent.pk:
        raise ValidationError({"opponent": _("The dealer plays against someone else.")})


def _new_hand(
    session, by, dealer, opponent, *, played_at, key: str, key_hash: str, reason: str
) -> Hand:
    """The session's next hand (under the session's lock: its number is free; the locking
    query may have read the last number already, as ``last_number``)."""
    if hasattr(session, "last_number"):
        last = session.last_number
    else:
        last = session.hands.aggregate(last=Max("number"))["last"]
    number = (last or 0) + 1
    # No savepoint of its own (two queries a hand): it runs in record_hand's transaction,
    # which a clash here ends.
    try:
        return Hand.objects.create(
            session=session,
            club=session.club,
            season=session.season,
            number=number,
            dealer=dealer,
            opponent=opponent,
            played_at=played_at or timezone.now(),
            out_of_turn=bool(reason),
            client_key=key,
            client_key_hash=key_hash if key else "",
            created_by=by if by.is_authenticated else None,
        )
    except IntegrityError as error:  # unreachable under the session's lock
        raise Conflict(_("Someone else recorded a hand at the same moment.")) from error


def _replayed(session: TableSession, key: str, key_hash: str) -> Recorded | None:
    """The hand an idempotency key recorded already (the same request again), or None; the
    same key with another request is refused (a 422 naming the key)."""
    existing = session.hands.filter(client_key=key).first() if key else None
    if existing is None:
        return None
    if existing.client_key_hash and existing.client_key_hash != key_hash:
        raise key_reused()
    return Recorded(hand=existing, outcome=None, replayed=True)


def _players_named(session: TableSession, seats: list[TableSeat], **named) -> list[Player]:
    """Each of ``named`` (a field: a player, or the id of one) as a player: an id from the
    table's seats (no query), else from its club (for the seating's refusal, which names
    them), else a 404 naming the field."""
    seated = {seat.player_id: seat.player for seat in seats}
    found = []
    for field_name, player in named.items():
        if not isinstance(player, Player):
            player = seated.get(player) or session.club.players.filter(pk=player).first()
            if player is None:
                raise not_found(field_name, _("No such player in this club."))
        found.append(player)
    return found


def _reporter(by, access, dealer: Player, opponent: Player) -> Actor:
    """``by`` reporting a hand between these two; ``PermissionDenied`` unless the roles table
    lets them (one of the two, or a scorer or an admin)."""
    who = Actor(
        user=by,
        access=access,
        plays=by.is_authenticated and by.pk in (dealer.user_id, opponent.user_id),
    )
    rule = ADAPTER.who("report")
    if not rule.allows(who):
        raise PermissionDenied(rule.refusal(_("record a hand")))
    return who


def _audit_out_of_turn(hand: Hand, by, reason: str, *, expected, played) -> None:
    """The hand's history says it was played out of turn, by whose leave and why."""
    steps.audit(
        hand,
        action="out_of_turn",
        by=by,
        note=reason,
        data={
            "expected": list(expected) if expected else None,
            "played": [player.pk for player in played],
        },
    )


@own_transaction
def record_hand(
    *,
    session: TableSession,
    by,
    dealer: Player | int,
    opponent: Player | int,
    payload: dict,
    override: str | None = None,
    preview: bool = False,
    key: str = "",
    key_hash: str = "",
    played_at=None,
    access: ClubAccess | None = None,
) -> Recorded:
    """Record a hand at ``session`` between ``dealer`` and ``opponent``, its result
    ``payload`` (see ``matches.singapore.payload``) reported through the result cycle: in
    force at once from a scorer or an admin, waiting for the other player's confirmation
    from one of the two players.

    Out of turn (the pair, or who deals, not the rotation's) is a 409 unless ``override``
    (a reason) comes from an admin: it is then recorded with who and why, and the hand is
    marked. An override from anyone else is a 403. ``preview`` checks everything and
    writes nothing. ``key`` (an API client's idempotency key, at most 255 characters)
    returns the hand already recorded with it when ``key_hash`` (a hash of the request) is
    the same; with another hash it is refused (a 422 naming the key), never the earlier
    hand. ``access``: the caller's check of ``by`` in the table's club, made for this
    request (else made here, with the lock). ``dealer`` and ``opponent``: players of the
    table's club, or their ids (the API's), found among the seats read under the lock.
    """
    session, access = _lock_as(session, by, access=access)
    seats = list(session.seats.select_related("player").order_by("position"))
    dealer, opponent = _players_named(session, seats, dealer=dealer, opponent=opponent)
    who = _reporter(by, access, dealer, opponent)
    key = check_key(key)
    replayed = _replayed(session, key, key_hash)
    if replayed is not None:
        return replayed
    _require_open(session)
    _require_playing(seats, dealer=dealer, opponent=opponent)
    table = Table.of(session, seats)
    checked = read_payload(table, dealer, opponent, payload)
    state = table_state(session, seats)
    reason = _check_turn(session, state, dealer, opponent, override=override, access=access)
    if preview:
        return Recorded(
            hand=None,
            outcome=None,
            checked=checked,
            preview=preview_view(table, checked, dealer),
            out_of_turn=bool(reason),
        )
    hand = _new_hand(
        session,
        by,
        dealer,
        opponent,
        played_at=played_at,
        key=key,
        key_hash=key_hash,
        reason=reason,
    )
    if reason:
        _audit_out_of_turn(hand, by, reason, expected=state.next, played=(dealer, opponent))
    # The result: recorded, then (a scorer's, in force at once) posted to the ledger with its
    # statistics queued and the webhooks told; then the hand itself announced.
    result = as_outcome(checked)
    outcome = steps.record_new(ADAPTER, subject=hand, checked=result, who=who)
    if outcome.in_force:
        steps.into_force(ADAPTER, hand, outcome, by=by, checked=result)
    announce_hand(hand, outcome)
    return Recorded(hand=hand, outcome=outcome, checked=checked, out_of_turn=bool(reason))


def announce_hand(hand: Hand, outcome: Outcome) -> None:
    """``hand.recorded`` for the club's webhooks, in the transaction that records it."""
    emit(
        club_id=hand.club_id,
        event="hand.recorded",
        data={
            "table": hand.session_id,
            "hand": {
                "id": hand.pk,
                "url": absolute(hand.get_absolute_url()),
                "number": hand.number,
                "played_at": hand.played_at,
                "out_of_turn": hand.out_of_turn,
            },
            "dealer": player_data(hand.dealer),
            "opponent": player_data(hand.opponent),
            "result": {"id": outcome.pk, "status": outcome.status, "payload": outcome.payload},
        },
    )
