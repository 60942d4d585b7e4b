"""A table's state as the rotation needs it, read from the database: its seats, the winner
and loser of its last hand whose result counts, and the pair the rotation names next
(``matches.singapore.rotation`` rules on it), for one table or, in a constant number of
queries, for a list of them."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import OuterRef, Subquery

from matches.results.models import OutcomeStatus
from matches.singapore import rotation
from matches.singapore.models import Hand, TableSeat, TableSession

COUNTED = [OutcomeStatus.REPORTED, OutcomeStatus.DISPUTED, OutcomeStatus.CONFIRMED]


@dataclass(frozen=True)
class TableState:
    """A table's seats, its last counted hand and who is next."""

    seats: list[TableSeat]
    last: rotation.LastHand | None
    next: tuple[int, int] | None

    @property
    def states(self) -> list[rotation.SeatState]:
        return [rotation.SeatState(s.player_id, s.plays) for s in self.seats]


# A hand and the winner of its counted result. The steps leave a hand one counted result;
# the database would allow two, one in force and one waiting (``outcome_one_in_force``,
# ``outcome_one_open``), and then the earlier, the one in force, is the one that counts.
_HAND_WON = ("session_id", "dealer_id", "opponent_id", "outcomes__payload__winner")
_IN_FORCE_FIRST = ("outcomes__reported_at", "outcomes__pk")


def _counted_hands():
    return Hand.objects.filter(outcomes__status__in=COUNTED)


def _winners(rows) -> dict[int, rotation.LastHand]:
    """Each session's first row of ``rows`` (``_HAND_WON``) as its last hand."""
    found: dict[int, rotation.LastHand] = {}
    for session_id, dealer, opponent, won in rows:
        if session_id not in found:
            pair = (dealer, opponent) if won == "dealer" else (opponent, dealer)
            found[session_id] = rotation.LastHand(*pair)
    return found


def _last_hands(session_ids: list[int]) -> dict[int, rotation.LastHand]:
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


def last_hand(session: TableSession) -> rotation.LastHand | None:
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
    states = [rotation.SeatState(s.player_id, s.plays) for s in seats]
    return TableState(
        seats=seats, last=last, next=rotation.next_pair(states, last, first_pair(session))
    )


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
