"""The rotation an import checks its lines against, table by table
(``matches.singapore.importer``): RULES.md's "a hand recorded between any other pair is out
of turn and is refused unless an admin overrides it" holds for the paper sheet too.

- Into a given table (the import's ``session``): its seats, its last hand and its first
  pair, as when a hand is recorded there (``rotation.in_turn``: the pair and who deals).
  People the import seats join at the end of the rotation, as they would at the table.
- Into the tables an import opens (or opened before from the same file): the paper sheet
  does not say who sat where, so what is checked is what the sheet itself shows: the winner
  of the table's previous hand deals its next one (the winner stays and deals). A table's
  first hand is free.

The lines are checked in the file's order, each against the hands accepted before it: a
line refused leaves the rotation where it was.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import gettext as _

from matches.singapore import rotation
from matches.singapore.services import out_of_turn_message  # the hand form's and API's words


@dataclass
class TableTurns:
    """Where one table's rotation stands during an import. ``seats`` None: who sat where is
    unknown (only who deals is checked)."""

    seats: list[rotation.SeatState] | None
    last: rotation.LastHand | None
    first: tuple[int, int] | None = None

    def expected(self) -> tuple[int, int] | None:
        """The (dealer, opponent) the rotation calls for, when it names them both."""
        if self.seats is None:
            return None
        return rotation.next_pair(self.seats, self.last, self.first)

    def in_turn(self, dealer: int, opponent: int) -> bool:
        if self.seats is None:
            return self.last is None or dealer == self.last.winner
        return rotation.in_turn(self.seats, self.last, self.first, (dealer, opponent))

    def refusal(self, dealer: int, opponent: int, name) -> str:
        """Why the hand is out of turn, naming who deals (``name(player id)``)."""
        if self.seats is None:
            assert self.last is not None
            return _(
                "Out of turn: %(dealer)s won the table's previous hand, so %(dealer)s deals "
                "this one (the winner stays and deals)."
            ) % {"dealer": name(self.last.winner)}
        return out_of_turn_message(self.expected(), (dealer, opponent), name)

    def played(self, dealer: int, opponent: int, winner: int, people: list[int]) -> None:
        """A hand accepted: everyone in it seated (at the end, if new), its result the
        rotation's last."""
        if self.seats is not None:
            seated = {seat.player for seat in self.seats}
            for pid in people:
                if pid not in seated:
                    self.seats.append(rotation.SeatState(pid, True))
                    seated.add(pid)
        loser = opponent if winner == dealer else dealer
        self.last = rotation.LastHand(winner, loser)
