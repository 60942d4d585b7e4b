"""Bulk import of past Singapore hands, for a club that moves from the paper sheet.

The input is JSON lines, one Singapore record a line in RULES.md's format with its
``stake`` (who dealt, who played, the quotas, the covers, the side bets, by name). A line
may also say where it was played: ``"table"`` (the table's name), ``"date"``
(``YYYY-MM-DD``) and ``"played_at"`` (an ISO date and time); RULES.md's checker ignores
these fields. Names are the club's players: through the ``players`` mapping
(``{"name in the file": player id}``), else by display name, else (``create_guests``) as new
guests.

What happens:

1. Every line is read and checked by the rules engine in bulk (in worker processes), under
   the club's current house rules (a line's own ``house_rules`` are replaced). A line that
   is not JSON, has no stake, names an unknown person or breaks a rule is refused and
   reported with its errors; the others go on.
2. The hands are grouped into tables by (table, date), or all go into one given session.
   New tables are opened closed, seated with everyone in their hands in order of
   appearance.
3. Each line is checked against its table's rotation (:class:`TableTurns`): into a given
   session, the pair and who deals, as at the table; into the tables an import opens (the
   paper sheet does not say who sat where), that the previous hand's winner deals. A line
   out of turn is refused, naming who deals, unless an admin runs the import allowing
   lines out of turn (``allow_out_of_turn``): such a line goes in marked (the hand's
   ``out_of_turn``, a step in its history) and listed in the report (``out_of_turn``).
4. They are written in batches, each in one database transaction: the hand, its result in
   force, its checked record with everyone seated, its ledger posting. A failure undoes the
   batch it happened in and stops; batches written before stay whole.
5. Every line has an idempotency key (the hash of its content and its occurrence): run the
   same file again and the hands already imported are skipped, so an import that stopped
   halfway resumes where it stopped, and one that finished imports nothing twice.
"""

from __future__ import annotations

import hashlib
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import date as Date
from datetime import datetime, timedelta

import orjson
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime
from django.utils.translation import gettext as _

import plumbing.bulk as bulk
from clubs.access import ClubAccess
from clubs.models import Club, Player
from clubs.services import add_guest, house_rules_for
from matches.results.models import AuditEntry, GameRecord, GameSeat, Outcome, OutcomeStatus
from matches.results.steps import names_in
from matches.singapore import posting, tasks
from matches.singapore.check_workers import check_many
from matches.singapore.models import Hand, TableSeat, TableSession
from matches.singapore.payload import HandPayload, rules_message
from matches.singapore.services import out_of_turn_message  # the hand form's and API's words
from matches.singapore.turns import (
    LastHand,
    SeatState,
    first_pair,
    in_turn,
    last_hand,
    next_pair,
    table_state,
)
from rules.cards import JOKER, STANDARD_DECK, Card

# --- The rotation the lines are checked against -------------------------------------------
#
# The rotation an import checks its lines against, table by table
# (``matches.singapore.importer``): RULES.md's "a hand recorded between any other pair is out
# of turn and is refused unless an admin overrides it" holds for the paper sheet too.
#
# - Into a given table (the import's ``session``): its seats, its last hand and its first
#   pair, as when a hand is recorded there (``turns.in_turn``: the pair and who deals).
#   People the import seats join at the end of the rotation, as they would at the table.
# - Into the tables an import opens (or opened before from the same file): the paper sheet
#   does not say who sat where, so what is checked is what the sheet itself shows: the winner
#   of the table's previous hand deals its next one (the winner stays and deals). A table's
#   first hand is free.
#
# The lines are checked in the file's order, each against the hands accepted before it: a
# line refused leaves the rotation where it was.


@dataclass
class TableTurns:
    """Where one table's rotation stands during an import. ``seats`` None: who sat where is
    unknown (only who deals is checked)."""

    seats: list[SeatState] | None
    last: LastHand | None
    first: tuple[int, int] | None = None

    def expected(self) -> tuple[int, int] | None:
        """The (dealer, opponent) the rotation calls for, when it names them both."""
        if self.seats is None:
            return None
        return next_pair(self.seats, self.last, self.first)

    def in_turn(self, dealer: int, opponent: int) -> bool:
        if self.seats is None:
            return self.last is None or dealer == self.last.winner
        return in_turn(self.seats, self.last, self.first, (dealer, opponent))

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
                    self.seats.append(SeatState(pid, True))
                    seated.add(pid)
        loser = opponent if winner == dealer else dealer
        self.last = LastHand(winner, loser)


# --- Writing the checked hands in batches -------------------------------------------------
#
# Writing an import's checked hands in batches (``matches.singapore.importer``): tables
# opened closed and seated, then per batch the hands, their results in force, their records
# with everyone seated, each table's step in its history and the ledger's postings, as plain
# rows (through ``COPY`` on PostgreSQL). The importer mixes this in.

MAX_LINE = 100_000  # characters: a record is far smaller
HAND_FIELDS = (
    "session",
    "club",
    "season",
    "number",
    "dealer",
    "opponent",
    "played_at",
    "out_of_turn",
    "client_key",
    "client_key_hash",
    "created_by",
    "created_at",
)
OUTCOME_FIELDS = (
    "club",
    "content_type",
    "object_id",
    "status",
    "payload",
    "detail",
    "reported_by",
    "reported_at",
    "confirmed_by",
    "confirmed_at",
    "note",
)
RECORD_FIELDS = (
    "club",
    "season",
    "game",
    "played_at",
    "record",
    "result",
    "house_rules",
    "outcome",
    "recorded_by",
    "created_at",
)
AUDIT_FIELDS = (
    "club",
    "content_type",
    "object_id",
    "outcome",
    "action",
    "by",
    "at",
    "from_status",
    "to_status",
    "note",
    "data",
)
IMPORTED = "import"
CANONICAL = {str(card): str(card) for card in (*STANDARD_DECK, JOKER)}


@dataclass
class ImportLine:
    """One line of the file, read: its record and where it goes; after the check, the
    players behind its names and the engine's result."""

    number: int
    record: dict
    table: str
    day: Date
    played_at: datetime | None
    key: str
    names: dict[str, Player] = field(default_factory=dict)
    result: dict | None = None
    out_of_turn: bool = False  # let in out of turn by an admin's import
    expected: tuple[int, int] | None = None  # the pair the rotation called for, if known


class BatchWrites:
    """The writing half of :class:`~matches.singapore.importer.Importer`."""

    def _group(self, line: ImportLine) -> tuple:
        return (line.table, line.day) if self.session is None else ("", None)

    def _existing_table(self, group: tuple) -> TableSession | None:
        """The table a line's group goes to that exists already: the given one, or one an
        import of the same source opened."""
        if self.session is not None:
            return self.session
        if not self.source:
            return None
        name, day = group
        return TableSession.objects.filter(
            club=self.club, name=name, date=day, imported_from=self.source
        ).first()

    def _tables_of(self, batch: list[ImportLine]) -> dict[tuple, TableSession]:
        """The table of each line's (name, day): the given one, one imported before from the
        same source, or a new one (closed); everyone in the batch's hands seated at it."""
        now = timezone.now()
        value = self.point_value
        people: dict[tuple, dict[int, Player]] = defaultdict(dict)
        for line in batch:
            for player in line.names.values():
                people[self._group(line)].setdefault(player.pk, player)
        for group, found in people.items():
            session = self._tables.get(group)
            if session is None:
                session = self._existing_table(group)
                if session is None:
                    name, day = group
                    session = TableSession.objects.create(
                        club=self.club,
                        season=self.club.seasons.holding(day),
                        name=name,
                        date=day,
                        house_rules=self.house_rules,
                        point_value=value,
                        currency=self.club.currency if value is not None else "",
                        imported_from=self.source or "import",
                        created_by=self.by,
                        closed_at=now,
                    )
                self._tables[group] = session
                self._seated[session.pk] = set(session.seats.values_list("player_id", flat=True))
                last = session.seats.aggregate(last=Max("position"))["last"]
                self._positions[session.pk] = -1 if last is None else last
                self._numbers[session.pk] = session.hands.aggregate(last=Max("number"))["last"] or 0
                if session.pk not in self.report.sessions:
                    self.report.sessions.append(session.pk)
            seated = self._seated[session.pk]
            new = []
            for pid, player in found.items():
                if pid not in seated:
                    self._positions[session.pk] += 1
                    new.append(
                        TableSeat(
                            session=session, player=player, position=self._positions[session.pk]
                        )
                    )
                    seated.add(pid)
            TableSeat.objects.bulk_create(new)
        return self._tables

    def _write_batch(self, batch, sessions, hand_type) -> None:
        # Plain rows through ``bulk.insert``: model instances would cost more than the rest.
        now = timezone.now()
        hand_ids, placed = self._insert_hands(batch, sessions, now)
        outcome_ids = self._insert_outcomes(batch, hand_ids, hand_type, now)
        self._insert_records(batch, placed, outcome_ids, now)
        self._audit_tables(batch, placed, now)
        self._audit_out_of_turn(batch, hand_ids, hand_type, now)
        self._post(batch, hand_ids, placed)

    @property
    def _by_id(self) -> int | None:
        return self.by.pk if self.by else None

    def _insert_hands(self, batch, sessions, now) -> tuple[list[int], list[tuple]]:
        """The batch's hands, numbered on from each table's last: their ids, and each
        line's ``(table, when played)``."""
        hand_rows, placed = [], []
        for line in batch:
            session = sessions[self._group(line)]
            numbers = self._numbers
            numbers[session.pk] += 1
            stake = line.record["stake"]
            played_at = line.played_at or timezone.make_aware(
                datetime.combine(line.day, datetime.min.time()) + timedelta(hours=21)
            ) + timedelta(minutes=3 * numbers[session.pk])
            hand_rows.append(
                (
                    session.pk,
                    self.club.pk,
                    session.season_id,
                    numbers[session.pk],
                    line.names[stake["dealer"]].pk,
                    line.names[stake["opponent"]].pk,
                    played_at,
                    line.out_of_turn,
                    line.key,
                    "",  # an imported line's key is its content's hash: no request hash
                    self._by_id,
                    now,
                )
            )
            placed.append((session, played_at))
        return bulk.insert(Hand, HAND_FIELDS, hand_rows, returning=True), placed

    def _insert_outcomes(self, batch, hand_ids, hand_type, now) -> list[int]:
        """Each hand's result, in force (the import is a scorer's entry)."""
        rows = []
        for hand_id, line in zip(hand_ids, batch, strict=True):
            stake = line.record["stake"]
            winner = "dealer" if stake["winner"] == stake["dealer"] else "opponent"
            rows.append(
                (
                    self.club.pk,
                    hand_type.pk,
                    hand_id,
                    OutcomeStatus.CONFIRMED,
                    self._payload(line, winner),
                    {"points": line.result["points"], "multiplier": line.result["multiplier"]},
                    self._by_id,
                    line.played_at or now,
                    self._by_id,
                    now,
                    IMPORTED,
                )
            )
        return bulk.insert(Outcome, OUTCOME_FIELDS, rows, returning=True)

    def _insert_records(self, batch, placed, outcome_ids, now) -> None:
        """Each result's record, checked, with a seat for everyone it names."""
        record_ids = bulk.insert(
            GameRecord,
            RECORD_FIELDS,
            [
                (
                    self.club.pk,
                    session.season_id,
                    "singapore",
                    played_at,
                    line.record,
                    line.result,
                    session.house_rules_id,
                    outcome_id,
                    self._by_id,
                    now,
                )
                for (session, played_at), outcome_id, line in zip(
                    placed, outcome_ids, batch, strict=True
                )
            ],
            returning=True,
        )
        bulk.insert(
            GameSeat,
            ("game_record", "player", "name_in_record"),
            [
                (record_id, line.names[name].pk, name)
                for record_id, line in zip(record_ids, batch, strict=True)
                for name in dict.fromkeys(names_in(line.record))
            ],
        )

    def _audit_tables(self, batch, placed, now) -> None:
        """The import's own step in each table's history (one row a table and batch: a row
        per hand would cost as much as the hands)."""
        by_table: dict[int, list[int]] = defaultdict(list)
        for (session, _played_at), line in zip(placed, batch, strict=True):
            by_table[session.pk].append(line.number)
        table_type = ContentType.objects.get_for_model(TableSession)
        bulk.insert(
            AuditEntry,
            AUDIT_FIELDS,
            [
                (
                    self.club.pk,
                    table_type.pk,
                    session_id,
                    None,
                    "import",
                    self._by_id,
                    now,
                    "",
                    "",
                    self.source,
                    {"hands": len(found), "lines": [found[0], found[-1]]},
                )
                for session_id, found in by_table.items()
            ],
        )

    def _audit_out_of_turn(self, batch, hand_ids, hand_type, now) -> None:
        """A step in the history of each hand let in out of turn: who allowed it (the
        admin running the import), from which line, and what the rotation called for."""
        rows = [
            (
                self.club.pk,
                hand_type.pk,
                hand_id,
                None,
                "import_out_of_turn",
                self._by_id,
                now,
                "",
                "",
                self.source,
                {
                    "line": line.number,
                    "expected": list(line.expected) if line.expected else None,
                    "played": [
                        line.names[line.record["stake"]["dealer"]].pk,
                        line.names[line.record["stake"]["opponent"]].pk,
                    ],
                },
            )
            for hand_id, line in zip(hand_ids, batch, strict=True)
            if line.out_of_turn
        ]
        if rows:
            bulk.insert(AuditEntry, AUDIT_FIELDS, rows)

    def _post(self, batch, hand_ids, placed) -> None:
        """The hands' postings to the ledger, in one batch."""
        posting.post_imported(
            [
                posting.ImportedHand(
                    hand_id=hand_id,
                    session=session,
                    at=played_at,
                    points={
                        line.names[name].pk: points
                        for name, points in line.result.get("balances", {}).items()
                    },
                    transfers=[
                        (line.names[t["from"]].pk, line.names[t["to"]].pk, t["points"])
                        for t in line.result.get("transfers", [])
                    ],
                )
                for hand_id, (session, played_at), line in zip(hand_ids, placed, batch, strict=True)
            ],
            by=self.by,
        )

    def _payload(self, line: ImportLine, winner: str) -> dict:
        record, names = line.record, line.names
        stake = record["stake"]

        def cards(tokens):
            return [CANONICAL.get(t) or str(Card.parse(t)) for t in tokens]

        return HandPayload(
            winner=winner,
            winner_cards=cards(record["winner"]),
            loser_cards=cards(record["loser"]),
            melds=[cards(m) for m in record["melds"]] if record.get("melds") else None,
            dealer_quotas=stake["dealer_quotas"],
            covers={names[n].pk: q for n, q in (stake.get("covers") or {}).items()},
            side_bets=[
                (names[b["backer_of_winner"]].pk, names[b["backer_of_loser"]].pk, b["quotas"])
                for b in stake.get("side_bets") or []
            ],
        ).as_dict()


# --- The import ---------------------------------------------------------------------------

MAX_LINE = 100_000  # characters: a record is far smaller
DEFAULT_TABLE = "Import"


@dataclass
class Refusal:
    line: int
    errors: list[dict]

    def as_dict(self) -> dict:
        return {"line": self.line, "errors": self.errors}


@dataclass
class ImportReport:
    lines: int = 0
    imported: int = 0
    skipped: int = 0  # already imported (their keys were seen)
    refused: list[Refusal] = field(default_factory=list)
    sessions: list[int] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)
    out_of_turn: list[int] = field(default_factory=list)  # lines imported out of turn

    def as_dict(self) -> dict:
        return {
            "lines": self.lines,
            "imported": self.imported,
            "skipped": self.skipped,
            "refused": [r.as_dict() for r in self.refused],
            "sessions": self.sessions,
            "out_of_turn": self.out_of_turn,
        }


def _error(code: str, message: str, at: str | None = None) -> dict:
    return {"code": code, "message": message, "at": at}


def _key(text: str, seen: Counter) -> str:
    digest = hashlib.sha256(text.encode()).hexdigest()[:32]
    seen[digest] += 1
    return f"import:{digest}:{seen[digest]}"


def _when(meta: dict, today: Date) -> tuple[Date, datetime | None, dict | None]:
    played_at = None
    if meta.get("played_at") is not None:
        value = meta["played_at"]
        played_at = parse_datetime(value) if isinstance(value, str) else None
        if played_at is None:
            return (
                today,
                None,
                _error("bad_record", _("played_at is not a date and time"), "played_at"),
            )
        if timezone.is_naive(played_at):
            played_at = timezone.make_aware(played_at)
    day = None
    if meta.get("date") is not None:
        value = meta["date"]
        day = parse_date(value) if isinstance(value, str) else None
        if day is None:
            return today, None, _error("bad_record", _("date is not a date (YYYY-MM-DD)"), "date")
    if day is None:
        day = timezone.localtime(played_at).date() if played_at else today
    return day, played_at, None


def require_admin_for_out_of_turn(club: Club, by) -> None:
    """Only an admin of ``club`` imports lines out of turn (RULES.md: an admin overrides)."""
    authenticated = getattr(by, "is_authenticated", False)
    role = club.memberships.filter(user=by).values_list("role", flat=True).first()
    if not authenticated or not ClubAccess(club=club, role=role).is_admin:
        raise PermissionDenied(_("Only an admin of the club may import hands out of turn."))


class Importer(BatchWrites):
    """One import into ``club``; see the module's docstring. ``progress(total, label)``, if
    given, returns a callable advanced by the number of lines done (a progress bar).
    ``allow_out_of_turn`` (an admin's, else ``PermissionDenied``) lets lines out of turn in,
    marked."""

    def __init__(
        self,
        *,
        club: Club,
        by=None,
        players: dict[str, int] | None = None,
        session: TableSession | None = None,
        table: str = DEFAULT_TABLE,
        point_value=None,
        create_guests: bool = False,
        batch: int = 2000,
        source: str = "",
        workers: int | None = None,
        progress: Callable[[int, str], Callable[[int], object]] | None = None,
        allow_out_of_turn: bool = False,
    ):
        if session is not None and session.club_id != club.pk:
            raise ValidationError({"session": _("This table is not this club's.")})
        if allow_out_of_turn:
            require_admin_for_out_of_turn(club, by)
        self.allow_out_of_turn = allow_out_of_turn
        self.club = club
        self.by = by if getattr(by, "is_authenticated", False) else None
        self.mapping = dict(players or {})
        self.session = session
        self.table = " ".join(str(table or DEFAULT_TABLE).split())[:80] or DEFAULT_TABLE
        self.point_value = point_value
        self.create_guests = create_guests
        self.batch = max(1, int(batch))
        self.source = str(source or "")[:200]
        self.workers = workers
        self.progress = progress or (lambda total, label: lambda n: None)
        self.rules = (
            dict(session.house_rules.rules)
            if session is not None and session.house_rules_id
            else house_rules_for(club=club, game="singapore")
        )
        self.house_rules = (
            session.house_rules if session is not None else club.current_house_rules("singapore")
        )
        self.report = ImportReport()

    # --- Reading and checking

    def _read(self, lines: Iterable[str]) -> list[ImportLine]:
        today = timezone.localdate()
        seen: Counter = Counter()
        read: list[ImportLine] = []
        for number, text in enumerate(lines, start=1):
            text = text.strip()
            if not text:
                continue
            self.report.lines += 1
            if len(text) > MAX_LINE:
                self._refuse(number, [_error("bad_record", _("The line is too long."))])
                continue
            try:
                record = orjson.loads(text)
            except ValueError as error:
                self._refuse(number, [_error("bad_json", f"not JSON: {error}"[:200])])
                continue
            if not isinstance(record, dict):
                self._refuse(number, [_error("bad_record", _("A line holds one JSON object."))])
                continue
            if record.get("game", "singapore") != "singapore":
                self._refuse(number, [_error("unknown_game", _("Only Singapore hands."), "game")])
                continue
            stake = record.get("stake")
            if not isinstance(stake, dict) or not stake.get("dealer") or not stake.get("opponent"):
                self._refuse(
                    number,
                    [
                        _error(
                            "bad_stake",
                            _("A hand to import names its stake: dealer, opponent, quotas."),
                            "stake",
                        )
                    ],
                )
                continue
            day, played_at, problem = _when(record, today)
            if problem:
                self._refuse(number, [problem])
                continue
            table = record.get("table")
            table = (
                " ".join(table.split())[:80]
                if isinstance(table, str) and table.strip()
                else self.table
            )
            for where in ("table", "date", "played_at"):  # ours, not the record's
                record.pop(where, None)
            record = {**record, "game": "singapore", "house_rules": self.rules}
            key = _key(text, seen)
            read.append(ImportLine(number, record, table, day, played_at, key))
        return read

    def _refuse(self, number: int, errors: list[dict]) -> None:
        self.report.refused.append(Refusal(number, errors))

    def _people(self, lines: list[ImportLine]) -> list[ImportLine]:
        """Each line's names as players (the mapping, then display names, then guests)."""
        players = {p.pk: p for p in self.club.players.active()}
        self._players = players
        by_name = {p.display_name: p for p in players.values()}
        unknown: dict[str, list[ImportLine]] = defaultdict(list)
        for line in lines:
            try:
                names = names_in(line.record)
            except (AttributeError, TypeError):
                names = []  # a malformed stake: the engine names the problem
            for name in names:
                if not isinstance(name, str):
                    continue
                pid = self.mapping.get(name)
                player = players.get(pid) if pid is not None else by_name.get(name)
                if player is None:
                    unknown[name].append(line)
                else:
                    line.names[name] = player
        if unknown and self.create_guests:
            with transaction.atomic():
                for name in unknown:
                    guest = add_guest(club=self.club, display_name=name)
                    self._players[guest.pk] = guest
                    for line in unknown[name]:
                        line.names[name] = guest
            unknown = {}
        missing: dict[int, set[str]] = defaultdict(set)
        for name, found in unknown.items():
            for line in found:
                missing[id(line)].add(name)
        for line in lines:
            if id(line) in missing:
                self._refuse(
                    line.number,
                    [
                        _error(
                            "unknown_player",
                            _("Not a player of this club: %(names)s.")
                            % {"names": ", ".join(sorted(missing[id(line)]))},
                            "stake",
                        )
                    ],
                )
        return [line for line in lines if id(line) not in missing]

    def _verdict(self, line: ImportLine, exit_code: int, result: dict) -> bool:
        if exit_code == 0:
            line.result = result
            return True
        errors = [
            _error(e.get("code"), rules_message(e), e.get("at")) for e in result.get("errors", [])
        ]
        self._refuse(line.number, errors)
        return False

    # --- The rotation

    def _turns_of(self, line: ImportLine) -> TableTurns:
        """The rotation of ``line``'s table, where this import has brought it."""
        group = self._group(line)
        turns = self._turns.get(group)
        if turns is None:
            if self.session is not None:
                state = table_state(self.session)
                turns = TableTurns(list(state.states), state.last, first_pair(self.session))
            else:
                table = self._existing_table(group)
                turns = TableTurns(None, last_hand(table) if table else None)
            self._turns[group] = turns
        return turns

    def _name(self, player_id: int) -> str:
        player = self._players.get(player_id) or Player.objects.filter(pk=player_id).first()
        return player.display_name if player else str(player_id)

    def _in_turn(self, line: ImportLine) -> bool:
        """Whether ``line`` goes in as its table's rotation has it (or allowed out of turn,
        then marked); refused in the report otherwise."""
        stake = line.record["stake"]
        dealer, opponent = (line.names[stake[role]].pk for role in ("dealer", "opponent"))
        turns = self._turns_of(line)
        if not turns.in_turn(dealer, opponent):
            if not self.allow_out_of_turn:
                message = turns.refusal(dealer, opponent, self._name)
                self._refuse(line.number, [_error("out_of_turn", message, "stake.dealer")])
                return False
            line.out_of_turn = True
            line.expected = turns.expected()
            self.report.out_of_turn.append(line.number)
        winner = line.names[stake["winner"]].pk
        turns.played(dealer, opponent, winner, [p.pk for p in line.names.values()])
        return True

    # --- Checking and writing

    def _check_and_write(self, lines: list[ImportLine]) -> None:
        """Check in worker processes and write what passed as it comes back: the engine
        works on the next chunks while this process writes a batch."""
        checked_tick = self.progress(len(lines), _("checking"))
        written_tick = self.progress(len(lines), _("writing"))
        hand_type = ContentType.objects.get_for_model(Hand)
        pending: list[ImportLine] = []
        done = 0
        waiting = time.perf_counter()
        for chunk in check_many([line.record for line in lines], workers=self.workers):
            self.report.seconds["check"] += time.perf_counter() - waiting
            for line, (exit_code, result) in zip(
                lines[done : done + len(chunk)], chunk, strict=True
            ):
                if self._verdict(line, exit_code, result) and self._in_turn(line):
                    pending.append(line)
                else:
                    written_tick(1)
            done += len(chunk)
            checked_tick(len(chunk))
            while len(pending) >= self.batch or (done == len(lines) and pending):
                batch, pending = pending[: self.batch], pending[self.batch :]
                clock = time.perf_counter()
                with transaction.atomic():
                    self._write_batch(batch, self._tables_of(batch), hand_type)
                    committing = time.perf_counter()
                self.report.imported += len(batch)
                self.report.seconds["write"] += committing - clock
                # At commit the database runs its deferred checks (foreign keys, the
                # ledger's zero-sum triggers).
                self.report.seconds["commit"] += time.perf_counter() - committing
                written_tick(len(batch))
            waiting = time.perf_counter()

    # --- The whole

    def run(self, lines: Iterable[str]) -> ImportReport:
        clock = time.perf_counter()
        read = self._read(lines)
        done = set(
            Hand.objects.filter(club=self.club, client_key__startswith="import:").values_list(
                "client_key", flat=True
            )
        )
        fresh = [line for line in read if line.key not in done]
        self.report.skipped = len(read) - len(fresh)
        fresh = self._people(fresh)
        self.report.seconds = {
            "read": time.perf_counter() - clock,
            "check": 0.0,
            "write": 0.0,
            "commit": 0.0,
        }
        self._tables: dict[tuple, TableSession] = {}
        self._seated: dict[int, set[int]] = {}
        self._positions: dict[int, int] = {}
        self._numbers: dict[int, int] = {}
        self._turns: dict[tuple, TableTurns] = {}
        if fresh:
            self._check_and_write(fresh)
        self.report.refused.sort(key=lambda r: r.line)
        self.report.out_of_turn.sort()
        if self.report.imported:
            tasks.recompute_stats.delay_on_commit(club_id=self.club.pk, player_ids=None)
        return self.report


def import_hands(*, club: Club, lines: Iterable[str], **options) -> ImportReport:
    """Import ``lines`` (JSON lines) into ``club``: see the module's docstring."""
    return Importer(club=club, **options).run(lines)
