"""Writing an import's checked hands in batches (``matches.singapore.importer``): tables
opened closed and seated, then per batch the hands, their results in force, their records
with everyone seated, each table's step in its history and the ledger's postings, as plain
rows (through ``COPY`` on PostgreSQL). The importer mixes this in."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date as Date
from datetime import datetime, timedelta

from django.contrib.contenttypes.models import ContentType
from django.db.models import Max
from django.utils import timezone

import plumbing.bulk as bulk
from clubs.models import Player
from matches.results.models import AuditEntry, GameRecord, GameSeat, Outcome, OutcomeStatus
from matches.results.records import names_in
from matches.singapore import posting
from matches.singapore.models import Hand, TableSeat, TableSession
from matches.singapore.payload import HandPayload
from rules.cards import JOKER, STANDARD_DECK, Card

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
