"""A table's turns: who plays the next hand, by RULES.md's winner-stays rotation, and a
table's state as the rotation needs it, read from the database.

The rules engine's ``rules.singapore.next_pair`` does the rotation; this module feeds it
a table's seats and its last hand, and rules on what RULES.md leaves to the software:

- The seats passed to the engine are every seat the session ever had, in rotation order;
  people who left count as sitting out. So a loser who left still marks where the next
  challenger is counted from, and a newcomer (seated at the end of the rotation) is found
  in turn.
- The last hand is the latest hand whose result is in force or waiting for confirmation
  (a voided hand does not count; a corrected one counts with its corrected winner).
- The winner of the last hand stays to deal; if the winner has left or sits out, the loser
  stays and deals against the first available seat to the winner's right. If both are gone,
  or before the first hand when the drawn pair is no longer available, the rotation names
  nobody and any two seated players are in turn.
- With fewer than two people available nobody is next.
- A hand is in turn when it is the pair the rotation names **with the dealer it names**
  (the winner stays and deals): the right pair with the challenger dealing is out of turn.
  (The engine's ``is_in_turn`` compares the pair only; it is not used here.)

The state (:class:`TableState`) is read for one table or, in a constant number of queries,
for a list of them: its seats, the winner and loser of its last hand whose result counts,
and the pair the rotation names next.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.db.models import OuterRef, Subquery

from matches.results.models import OutcomeStatus
from matches.singapore.models import Hand, TableSeat, TableSession
from rules import singapore as engine


@dataclass(frozen=True)
class SeatState:
    player: int  # a player id
    plays: bool  # seated and not sitting out


@dataclass(frozen=True)
class LastHand:
    winner: int
    loser: int


def _order_and_out(seats: Sequence[SeatState]) -> tuple[list[int], set[int]]:
    order = [seat.player for seat in seats]
    out = {seat.player for seat in seats if not seat.plays}
    return order, out


def next_pair(
    seats: Sequence[SeatState], last: LastHand | None, first: tuple[int, int] | None
) -> tuple[int, int] | None:
    """The next hand's (dealer, opponent), or None when the rotation names nobody.

    >>> seats = [SeatState(p, True) for p in (1, 2, 3, 4)]
    >>> next_pair(seats, None, (1, 2)), next_pair(seats, LastHand(1, 2), (1, 2))
    ((1, 2), (1, 3))
    >>> next_pair(seats, LastHand(3, 1), (1, 2))
    (3, 2)
    """
    order, out = _order_and_out(seats)
    if len(order) - len(out) < 2:
        return None
    if last is None:
        if first is not None and all(p in order and p not in out for p in first):
            return first
        return None
    if last.winner not in order or last.loser not in order:
        return None
    if last.winner not in out:
        return engine.next_pair(order, last.winner, last.loser, out)
    if last.loser not in out:
        # The winner is gone: the loser stays, as if he had won, and deals against the
        # first available seat to the winner's right.
        return engine.next_pair(order, last.loser, last.winner, out)
    return None


def in_turn(
    seats: Sequence[SeatState],
    last: LastHand | None,
    first: tuple[int, int] | None,
    players: tuple[int, int],
) -> bool:
    """Whether a hand between ``players`` (dealer, opponent) is the one the rotation calls
    for: the pair **and who deals** (the winner stays and deals, RULES.md), so the right
    pair with the challenger dealing is out of turn.

    >>> seats = [SeatState(p, True) for p in (1, 2, 3)]
    >>> in_turn(seats, LastHand(1, 2), None, (1, 3)), in_turn(seats, LastHand(1, 2), None, (3, 1))
    (True, False)
    """
    order, out = _order_and_out(seats)
    if last is not None and last.winner in order and last.winner not in out:
        if last.loser not in order:
            return False
    expected = next_pair(seats, last, first)
    return expected is None or expected == tuple(players)


def swapped(expected: tuple[int, int] | None, players: tuple[int, int]) -> bool:
    """Whether ``players`` are the expected pair with the wrong one dealing."""
    return expected is not None and expected == (players[1], players[0])


# --- A table's state, read from the database -----------------------------------------------

COUNTED = [OutcomeStatus.REPORTED, OutcomeStatus.DISPUTED, OutcomeStatus.CONFIRMED]


@dataclass(frozen=True)
class TableState:
    """A table's seats, its last counted hand and who is next."""

    seats: list[TableSeat]
    last: LastHand | None
    next: tuple[int, int] | None

    @property
    def states(self) -> list[SeatState]:
        return [SeatState(s.player_id, s.plays) for s in self.seats]


# A hand and the winner of its counted result. The steps leave a hand one counted result;
# the database would allow two, one in force and one waiting (``outcome_one_in_force``,
# ``outcome_one_open``), and then the earlier, the one in force, is the one that counts.
_HAND_WON = ("session_id", "dealer_id", "opponent_id", "outcomes__payload__winner")
_IN_FORCE_FIRST = ("outcomes__reported_at", "outcomes__pk")


def _counted_hands():
    return Hand.objects.filter(outcomes__status__in=COUNTED)


def _winners(rows) -> dict[int, LastHand]:
    """Each session's first row of ``rows`` (``_HAND_WON``) as its last hand."""
    found: dict[int, LastHand] = {}
    for session_id, dealer, opponent, won in rows:
        if session_id not in found:
            pair = (dealer, opponent) if won == "dealer" else (opponent, dealer)
            found[session_id] = LastHand(*pair)
    return found


def _last_hands(session_ids: list[int]) -> dict[int, LastHand]:
    """The winner and loser of each session's latest hand whose result counts (in force or
    waiting for confirmation), in one query whatever the number of sessions."""
    latest = (
        TableSession.objects.filter(pk__in=session_ids)
        .annotate(
            last_hand=Subquery(
                _counted_hands().filter(session=OuterRef("pk")).order_by("-number").values("pk")[:1]
            )
        )
        .filter(last_hand__isnull=False)
        .values_list("last_hand", flat=True)
    )
    return _winners(
        _counted_hands()
        .filter(pk__in=Subquery(latest))
        .order_by(*_IN_FORCE_FIRST)
        .values_list(*_HAND_WON)
    )


def last_hand(session: TableSession) -> LastHand | None:
    """One session's :func:`_last_hands`, by its latest counted hand alone (the hot path of
    recording a hand: a third of the time of the query for many sessions)."""
    rows = (
        _counted_hands()
        .filter(session=session)
        .order_by("-number", *_IN_FORCE_FIRST)
        .values_list(*_HAND_WON)[:1]
    )
    return _winners(rows).get(session.pk)


def first_pair(session: TableSession) -> tuple[int, int] | None:
    """The pair drawn or chosen for the table's first hand, if both are known."""
    if session.first_dealer_id and session.first_opponent_id:
        return session.first_dealer_id, session.first_opponent_id
    return None


def _state(session: TableSession, seats: list[TableSeat], last) -> TableState:
    states = [SeatState(s.player_id, s.plays) for s in seats]
    return TableState(seats=seats, last=last, next=next_pair(states, last, first_pair(session)))


def table_state(session: TableSession, seats: list[TableSeat] | None = None) -> TableState:
    if seats is None:
        seats = list(session.seats.select_related("player").order_by("position"))
    return _state(session, seats, last_hand(session))


def table_states(sessions: list[TableSession]) -> dict[int, TableState]:
    """Every session's state, in a constant number of queries (for lists)."""
    ids = [s.pk for s in sessions]
    seats: dict[int, list[TableSeat]] = {pk: [] for pk in ids}
    for seat in (
        TableSeat.objects.filter(session__in=ids)
        .select_related("player")
        .order_by("session", "position")
    ):
        seats[seat.session_id].append(seat)
    last = _last_hands(ids) if ids else {}
    return {s.pk: _state(s, seats[s.pk], last.get(s.pk)) for s in sessions}
