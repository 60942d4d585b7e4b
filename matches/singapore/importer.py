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
3. Each line is checked against its table's rotation (``import_turns``): into a given
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
from datetime import datetime

import orjson
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime
from django.utils.translation import gettext as _

from clubs.access import ClubAccess
from clubs.models import Club, Player
from clubs.services import add_guest, house_rules_for
from matches.results.records import names_in
from matches.singapore import tasks
from matches.singapore.check_workers import check_many
from matches.singapore.import_turns import TableTurns
from matches.singapore.import_writes import BatchWrites, ImportLine
from matches.singapore.models import Hand, TableSession
from matches.singapore.payload import rules_message
from matches.singapore.turns import first_pair, last_hand, table_state

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
