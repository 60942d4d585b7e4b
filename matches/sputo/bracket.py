"""The knockout bracket as plain data: the draw, and what follows from the results.

No database here: the services load a tournament's matches into :class:`Slot` values, ask
:func:`settle` what must change, and write exactly that (a correction's preview shows the
same list without writing it).

The draw (:func:`draw`): the bracket is the next power of two; seeds are placed in the
standard order (1 v N, 2 v N-1, and the top seeds kept apart until the last rounds); the
seeds past the number of entrants are byes, so the byes go to the top seeds and no match is
bye against bye.

>>> seed_order(8)
[1, 8, 4, 5, 2, 7, 3, 6]
>>> [(m.seed_a, m.seed_b) for m in draw(5) if m.round == 1]
[(1, None), (4, 5), (2, None), (3, None)]

:func:`settle` walks the bracket round by round. Each seat after the first round is the
winner of its feeder match (and the third-place match's seats the semi-finals' losers):

- a seat whose feeder is not decided is *unknown* (None);
- a feeder decided without a winner (a double forfeit) leaves the seat *empty*
  (:data:`NOBODY`): a player facing an empty seat wins by walkover at once, and two empty
  seats make another double forfeit;
- a match not yet played takes whoever the bracket says; a match already played with a
  player who no longer belongs there (a correction upstream) is *reset*: its result is set
  aside, the right players are seated and it is back to be played, so that what followed
  from it is reset in turn, down to the final. An admin may *award* a reset or re-seated
  match in the same step (``awards``), and the walk goes on from that winner.

After :func:`settle`, every player in a round after the first won a match that feeds it (or
had a bye): no player in a later round lost in an earlier one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

NOBODY = 0  # a seat that stays empty: its feeder ended without a winner

MAIN = "main"
THIRD = "third_place"

# How a match was decided ("" while it is not).
BYE = "bye"  # round one, against nobody: at the draw
PLAYED = "played"
WALKOVER = "walkover"  # the opponent did not show up (reported)
RETIREMENT = "retirement"  # the opponent retired during the match
DOUBLE_FORFEIT = "double_forfeit"  # neither played: nobody advances
AWARDED = "awarded"  # an admin awarded a flagged match
NO_OPPONENT = "no_opponent"  # the seat opposite stayed empty (after a double forfeit)

AUTOMATIC = {BYE, NO_OPPONENT}  # decided by the bracket itself, not by a result


def seed_order(size: int) -> list[int]:
    """The seeds in bracket order for a power-of-two ``size``: each pair of neighbours
    meets in round one, and seeds 1 and 2 can only meet in the final.

    >>> seed_order(4)
    [1, 4, 2, 3]
    """
    if size < 2 or size & (size - 1):
        raise ValueError(f"a bracket's size is a power of two from 2 up, not {size}")
    order = [1, 2]
    while len(order) < size:
        total = 2 * len(order) + 1
        order = [seed for top in order for seed in (top, total - top)]
    return order


def bracket_size(entrants: int) -> int:
    size = 2
    while size < entrants:
        size *= 2
    return size


def rounds_for(entrants: int) -> int:
    return bracket_size(entrants).bit_length() - 1


@dataclass(frozen=True)
class DrawnMatch:
    kind: str
    round: int
    position: int
    seed_a: int | None = None  # round one only
    seed_b: int | None = None

    @property
    def bye(self) -> bool:
        return self.round == 1 and self.kind == MAIN and self.seed_b is None


def draw(entrants: int, *, third_place: bool = False) -> list[DrawnMatch]:
    """Every match of a knockout of ``entrants`` players, seeds 1 to ``entrants``."""
    if entrants < 2:
        raise ValueError("a knockout needs at least two players")
    size = bracket_size(entrants)
    order = seed_order(size)
    matches = []
    for position in range(size // 2):
        a, b = order[2 * position], order[2 * position + 1]
        if a > entrants:  # the bye is always the higher number of the pair
            a, b = b, a
        matches.append(DrawnMatch(MAIN, 1, position, a, b if b <= entrants else None))
    rounds = rounds_for(entrants)
    for round_ in range(2, rounds + 1):
        matches.extend(DrawnMatch(MAIN, round_, p) for p in range(size >> round_))
    if third_place and rounds >= 2:
        matches.append(DrawnMatch(THIRD, rounds, 0))
    return matches


@dataclass(frozen=True)
class Slot:
    """One match as :func:`settle` sees it."""

    id: int
    kind: str
    round: int
    position: int
    a: int | None = None  # player ids; None unknown
    b: int | None = None
    winner: int | None = None
    result: str = ""
    needs_resolution: bool = False
    open_report: bool = False  # a result reported and not yet in force

    @property
    def decided(self) -> bool:
        return bool(self.result)

    @property
    def loser(self) -> int | None:
        if not self.decided or self.winner is None:
            return None
        return self.b if self.winner == self.a else self.a

    @property
    def key(self) -> tuple[str, int, int]:
        return (self.kind, self.round, self.position)


@dataclass(frozen=True)
class Change:
    """One thing :func:`settle` changes on one match; ``apply`` writes exactly these.

    ``what``: "seat" (``slot`` a or b, player before and after), "reset" (a result in force
    set aside: ``before`` its winner, ``result`` its kind), "decide" (an automatic walkover:
    ``after`` the winner), "undecide" (an automatic result undone), "award" (an admin's award
    in the same step: ``after`` the winner), "unflag" (a match flagged before corrections
    reset them), "set_aside" (a report waiting on a re-seated match)."""

    match: int
    what: str
    slot: str = ""  # "a" or "b" for a seat
    before: int | str | None = None
    after: int | str | None = None
    result: str = ""

    def as_dict(self) -> dict:
        return {
            "match": self.match,
            "what": self.what,
            "slot": self.slot,
            "before": self.before,
            "after": self.after,
            "result": self.result,
        }


@dataclass
class Settled:
    slots: dict[tuple[str, int, int], Slot]
    changes: list[Change] = field(default_factory=list)
    refused_awards: list[int] = field(default_factory=list)  # matches that could not be awarded


def _fed(feeder: Slot | None, *, loser: bool = False) -> int | None:
    """The seat a feeder match gives: its winner (or loser), NOBODY, or None (unknown)."""
    if feeder is None or not feeder.decided:
        return None
    if feeder.winner is None:
        return NOBODY
    if loser:
        return feeder.loser if feeder.loser is not None else NOBODY
    return feeder.winner


def fed_from(kind: str, round_: int, position: int, *, rounds: int) -> list[tuple[str, int, int]]:
    """The keys of the matches that a match's result reaches, itself first: the next round's
    match its winner goes to, that one's, and so on to the final, and the third-place match
    that the semi-finals' losers go to. What :func:`settle` can change after a step on a
    match is among these (and flags on other matches, which nobody waits on)."""
    keys = [(kind, round_, position)]
    if kind != MAIN:
        return keys  # the third-place match feeds nothing
    for later in range(round_ + 1, rounds + 1):
        keys.append((MAIN, later, position >> (later - round_)))
    if round_ < rounds:  # a semi-final, or before one
        keys.append((THIRD, rounds, 0))
    return keys


def settle(slots: list[Slot], *, rounds: int, awards: Mapping[int, int] | None = None) -> Settled:
    """What follows from the results: every seat filled or emptied, automatic walkovers
    decided or undone, played matches with a player who no longer belongs there reset.

    ``awards`` (match id -> player id): an admin's awards of matches this walk resets or
    re-seats, given in the same step; one it cannot make (the match unchanged, its players
    not both known, the winner not one of them) is listed in ``refused_awards``."""
    awards = dict(awards or {})
    by_key = {s.key: s for s in slots}
    result = Settled(slots=dict(by_key))
    order = sorted(slots, key=lambda s: (s.round, s.kind != MAIN, s.position))
    for slot in order:
        if slot.kind == MAIN and slot.round == 1:
            continue  # the draw seats round one; nothing changes it
        current = result.slots[slot.key]
        if slot.kind == MAIN:
            feeders = [
                result.slots.get((MAIN, slot.round - 1, 2 * slot.position + i)) for i in (0, 1)
            ]
            expected = [_fed(f) for f in feeders]
        else:
            feeders = [result.slots.get((MAIN, rounds - 1, i)) for i in (0, 1)]
            expected = [_fed(f, loser=True) for f in feeders]
        seated = _seat(current, expected, result.changes)
        if slot.id in awards:
            seated = _award(seated, awards.pop(slot.id), result)
        result.slots[slot.key] = seated
    result.refused_awards.extend(sorted(awards))  # matches not in this bracket's later rounds
    return result


def _award(slot: Slot, winner: int, result: Settled) -> Slot:
    changed = any(c.match == slot.id for c in result.changes)
    if not changed or slot.decided or slot.a is None or slot.b is None:
        result.refused_awards.append(slot.id)
        return slot
    if winner not in (slot.a, slot.b):
        result.refused_awards.append(slot.id)
        return slot
    result.changes.append(Change(slot.id, "award", after=winner, result=AWARDED))
    return replace(slot, result=AWARDED, winner=winner)


def _seat(slot: Slot, expected: list[int | None], changes: list[Change]) -> Slot:
    seats = [None if e == NOBODY else e for e in expected]
    current = [slot.a, slot.b]
    if slot.decided and slot.result not in AUTOMATIC:
        if seats == current:
            if slot.needs_resolution:  # flagged before corrections reset such matches
                changes.append(Change(slot.id, "unflag", before=True, after=False))
                slot = replace(slot, needs_resolution=False)
            return slot
        # Played by a player who no longer belongs here: its result is set aside, and the
        # match is back to be played by the right players.
        changes.append(Change(slot.id, "reset", before=slot.winner, result=slot.result))
        slot = replace(slot, result="", winner=None, needs_resolution=False)
    for name, before, after in zip(("a", "b"), current, seats, strict=True):
        if before != after:
            changes.append(Change(slot.id, "seat", slot=name, before=before, after=after))
    if seats != current and slot.open_report:
        changes.append(Change(slot.id, "set_aside"))
        slot = replace(slot, open_report=False)
    slot = replace(slot, a=seats[0], b=seats[1])
    # Automatic decisions: an empty seat opposite a player, or two empty seats.
    empty = [e == NOBODY for e in expected]
    if all(empty):
        winner, result = None, NO_OPPONENT
    elif empty[0] and seats[1] is not None:
        winner, result = seats[1], NO_OPPONENT
    elif empty[1] and seats[0] is not None:
        winner, result = seats[0], NO_OPPONENT
    else:
        winner, result = None, ""
    if (slot.result, slot.winner) != (result, winner):
        what = "decide" if result else "undecide"
        changes.append(Change(slot.id, what, before=slot.winner, after=winner, result=result))
        slot = replace(slot, result=result, winner=winner)
    if slot.needs_resolution:
        changes.append(Change(slot.id, "unflag", before=True, after=False))
        slot = replace(slot, needs_resolution=False)
    return slot


def standings(slots: list[Slot], *, rounds: int) -> list[tuple[int, int, int]]:
    """``(place, player, round reached)`` once the final (and the third-place match) are
    decided: 1st and 2nd from the final, 3rd and 4th from the third-place match (without
    one, both semi-final losers are 3rd), then by the round reached, ties sharing a place."""
    by_key = {s.key: s for s in slots}
    final = by_key.get((MAIN, rounds, 0))
    third = by_key.get((THIRD, rounds, 0))
    if final is None or not final.decided or (third is not None and not third.decided):
        return []
    reached: dict[int, int] = {}
    for s in slots:
        if s.kind != MAIN:
            continue
        for player in (s.a, s.b):
            if player:
                reached[player] = max(reached.get(player, 0), s.round)
    ranked: list[tuple[int, int, int]] = []
    placed: set[int] = set()

    def put(place: int, player: int | None) -> None:
        if player and player not in placed:
            ranked.append((place, player, reached.get(player, rounds)))
            placed.add(player)

    put(1, final.winner)
    put(2, final.loser)
    if third is not None:
        put(3, third.winner)
        put(4, third.loser)
    else:
        for p in range(2):
            semi = by_key.get((MAIN, rounds - 1, p))
            if semi is not None:
                put(3, semi.loser)
    rest = sorted((-r, player) for player, r in reached.items() if player not in placed)
    place, previous = len(ranked) + 1, None
    for neg_round, player in rest:
        if neg_round != previous:
            place, previous = len(ranked) + 1, neg_round
        ranked.append((place, player, -neg_round))
    return ranked
