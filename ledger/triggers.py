"""The database's own refusal to rewrite the ledger, on PostgreSQL and on SQLite.

What both databases refuse (an ``IntegrityError`` in Django on either):

- any ``UPDATE`` of an entry or a leg;
- any ``UPDATE`` of a transaction, but two: ``created_by`` set to NULL with nothing else
  changed (a deleted user's postings stay, anonymous: the foreign key's ``SET_NULL``), and
  the legs of one posted before legs counted (below);
- any ``DELETE`` of an entry, a leg or a transaction, unless an
  :class:`~ledger.models.Erasure` of its club is open in the same database transaction
  (``erasure.erase_club_ledger`` opens and closes it; other connections never see it open);
- a transaction whose entries do not sum to zero, are all zero, or are not ``n_entries``
  in number; one that announces no legs (``n_legs`` NULL: only the transactions posted
  before legs existed have it), or whose legs are not ``n_legs`` in number or do not net,
  person by person, to its entries. On PostgreSQL a deferred constraint trigger on the
  transaction checks all of it at commit, once per transaction, and statement-level
  triggers on the entries and the legs refuse, as each INSERT or COPY ends, a row beyond
  its transaction's announced number or for a transaction this database transaction
  cannot see: a committed transaction has all its rows and loses none, so none can be
  added to it later. On SQLite, which has no deferred or statement-level triggers, the
  checks run when the last announced entry or leg is inserted (entries first) and refuse
  any beyond; a transaction left short of its rows is found by ``ledger_check``;
- a transaction posted before legs (``n_legs`` NULL) is given its legs once
  (``ledger.legs``): the legs, then ``n_legs`` set, the one other ``UPDATE`` a transaction
  takes, refused unless its legs are all there and net to its entries; no leg beyond them
  from then on. Until then ``ledger_check`` names it;
- any ``DELETE`` of an erasure or a check run, any ``UPDATE`` of a check run, and any
  ``UPDATE`` of an erasure but closing it once (its end and counts) or a deleted user's
  ``by`` set to NULL.

Amounts beyond the services' bound (``ledger.amounts.MAX_MINOR``) and legs that are not two
people and a positive amount are refused by CHECK constraints on both databases.

``TRUNCATE`` is not refused (a database administrator's tool, and the test runner's flush).

PostgreSQL: the triggers are declared on the models (``Meta.triggers``) and installed by
django-pgtrigger's migration operations, which do nothing on other databases. SQLite: the
migrations run :func:`install_sqlite` (which does nothing on other databases). SQLite
drops a table's triggers when Django rebuilds the table, so a migration that alters a
ledger table must call :func:`install_sqlite` again; ``ledger_check`` reports any trigger
missing on either database.
"""

from __future__ import annotations

import pgtrigger
import pgtrigger.compiler

REFUSED = "integrity_constraint_violation"


class UnignorableTriggerSql(pgtrigger.compiler.UpsertTriggerSql):
    """pgtrigger's SQL for a trigger, less the preamble that lets ``pgtrigger.ignore`` skip it
    (migration 0003 names this class: keep its name and place).

    That preamble reads the setting ``pgtrigger.ignore`` in a PL/pgSQL block with an
    EXCEPTION clause, which fails (the setting is unset) and rolls back a subtransaction on
    every call; each such rollback scans the whole queue of pending deferred trigger events,
    so checking n transactions at commit took time in n squared (an import of 20,000
    transactions waited 20 s at commit; 1 s without it). Nothing here uses
    ``pgtrigger.ignore``, and the ledger's guarantees should not be skippable anyway: the
    one way past them is an :class:`~ledger.models.Erasure`.
    """

    def get_template(self) -> str:
        return """
            CREATE OR REPLACE FUNCTION {pgid}()
            RETURNS TRIGGER AS $$
                {declare}
                BEGIN
                    {func}
                END;
            $$ LANGUAGE plpgsql;

            DROP TRIGGER IF EXISTS {pgid} ON {table};
            CREATE {constraint} TRIGGER {pgid}
                {when} {operation} ON {table}
                {timing}
                {referencing}
                FOR EACH {level} {condition}
                EXECUTE PROCEDURE {execute};

            COMMENT ON TRIGGER {pgid} ON {table} IS '{hash}';
        """


class Trigger(pgtrigger.Trigger):
    """A pgtrigger trigger that ``pgtrigger.ignore`` cannot skip (see above)."""

    def compile(self, model) -> pgtrigger.compiler.Trigger:
        compiled = super().compile(model)
        kwargs = {k: v for k, v in compiled.sql.kwargs.items() if k != "ignore_func_name"}
        return pgtrigger.compiler.Trigger(name=compiled.name, sql=UnignorableTriggerSql(**kwargs))


# An erasure of the club is open in this database transaction.
_ERASING_ENTRY = """EXISTS (
    SELECT 1 FROM ledger_erasure e JOIN ledger_transaction t ON t.club_id = e.club_id
    WHERE t.id = OLD.transaction_id AND e.finished_at IS NULL)"""
_ERASING_LEG = _ERASING_ENTRY
_ERASING_TRANSACTION = """EXISTS (
    SELECT 1 FROM ledger_erasure e WHERE e.club_id = OLD.club_id AND e.finished_at IS NULL)"""


def _unmatched(tx: str) -> str:
    """The people for whom transaction ``tx``'s legs do not net to its entry."""
    return f"""SELECT who FROM (
        SELECT player_id AS who, amount_minor AS minor FROM ledger_entry
            WHERE transaction_id = {tx}
        UNION ALL SELECT creditor_id, -amount_minor FROM ledger_leg WHERE transaction_id = {tx}
        UNION ALL SELECT debtor_id, amount_minor FROM ledger_leg WHERE transaction_id = {tx}
    ) moves GROUP BY who HAVING SUM(minor) <> 0"""


# The one other change a transaction takes: one posted before legs gets them counted, once
# (``ledger.legs``: its legs first, then ``n_legs``), when they are all there and net to
# its entries; nothing else changes. A leg beyond them is refused from then on.
_LEGS_GIVEN_PG = f"""OLD.n_legs IS NULL AND NEW.n_legs IS NOT NULL
                   AND (to_jsonb(NEW) - 'n_legs') = (to_jsonb(OLD) - 'n_legs')
                   AND (SELECT COUNT(*) FROM ledger_leg WHERE transaction_id = NEW.id) = NEW.n_legs
                   AND NOT EXISTS ({_unmatched("NEW.id")})"""


def _append_only(name: str, what: str, erasing: str) -> Trigger:
    return Trigger(
        name=name,
        operation=pgtrigger.Update | pgtrigger.Delete,
        when=pgtrigger.Before,
        # (The text of the entries' trigger as it was before legs: the same hash.)
        func=f"""
                IF TG_OP = 'DELETE' AND {erasing} THEN
                    RETURN OLD;
                END IF;
                RAISE EXCEPTION '{what} are append-only: % refused', TG_OP
                    USING ERRCODE = '{REFUSED}';
            """,
    )


def _none_beyond(
    table: str,
    *,
    rows: str,
    touched: str,
    counted: str,
    announced: str,
    words: tuple[str, str],
    found: str,
) -> Trigger:
    """Once per INSERT (or COPY) statement, after it, reading the rows it brought as
    ``inserted``: a row of ``table`` whose transaction already has all its ``announced``
    rows (a column of the transaction) is one too many, and so is one whose transaction this
    database transaction cannot see. ``rows`` is the table's alias, ``touched`` the
    transactions the statement brought rows for, ``counted`` the test that counts a
    transaction's rows, ``words`` one row and all of them in the refusal, ``found`` the
    variable that holds the refused transaction's id. (Each table's
    pieces are as its trigger was first written: the installed triggers keep their hashes.)
    """
    one, all_of = words
    return Trigger(
        name=f"{table}_not_beyond",
        operation=pgtrigger.Insert,
        when=pgtrigger.After,
        level=pgtrigger.Statement,
        referencing=pgtrigger.Referencing(new="inserted"),
        declare=[(found, "bigint")],
        func=f"""
                SELECT touched.transaction_id INTO {found}
                    FROM {touched} touched
                    LEFT JOIN ledger_transaction t ON t.id = touched.transaction_id
                    WHERE t.id IS NULL
                       OR (SELECT COUNT(*) FROM {table} {rows}
                           WHERE {counted}) > t.{announced}
                    LIMIT 1;
                IF FOUND THEN
                    RAISE EXCEPTION
                        'ledger transaction % must have all its {all_of}:'
                        ' no {one} beyond them, nor for a transaction not yet committed',
                        {found} USING ERRCODE = '{REFUSED}';
                END IF;
                RETURN NULL;
            """,
    )


# What an entry adds to the derived balances (``ledger.models.Balance``): its amount to its
# person's row of the whole club (scope '') and, for a scoped transaction, of its scope; in
# the rows' order, so that two postings lock the rows they share in the same order.
def _balances_added(entries: str) -> str:
    return f"""
        INSERT INTO ledger_balance (club_id, unit, scope, player_id, minor)
        SELECT club_id, unit, scope, player_id, SUM(minor) FROM (
            SELECT t.club_id, t.unit, '' AS scope, e.player_id, e.amount_minor AS minor
                FROM {entries} e JOIN ledger_transaction t ON t.id = e.transaction_id
            UNION ALL
            SELECT t.club_id, t.unit, t.scope, e.player_id, e.amount_minor
                FROM {entries} e JOIN ledger_transaction t ON t.id = e.transaction_id
                WHERE t.scope <> ''
        ) moves
        WHERE true
        GROUP BY club_id, unit, scope, player_id
        ORDER BY club_id, unit, scope, player_id
        ON CONFLICT (club_id, unit, scope, player_id)
            DO UPDATE SET minor = ledger_balance.minor + EXCLUDED.minor"""


def _entry_balances() -> Trigger:
    """Once per INSERT (or COPY) of entries, after it: the balances they change, in one
    statement."""
    return Trigger(
        name="ledger_entry_balances",
        operation=pgtrigger.Insert,
        when=pgtrigger.After,
        level=pgtrigger.Statement,
        referencing=pgtrigger.Referencing(new="inserted"),
        func=f"""
                {_balances_added("inserted")};
                RETURN NULL;
            """,
    )


# What a leg adds to who owes whom (``ledger.models.PairDebt`` and ``PairPart``): for the
# whole club (scope '') and, for a scoped transaction, its scope; signed so that positive is
# what the lower id owes the higher. A payment's legs go to ``paid_minor`` (and to no part),
# every other leg to ``posted_minor`` and to its source's part. In the rows' order, as the
# balances, so that two postings lock the rows they share in the same order. ``least`` and
# ``greatest`` are the database's two-argument minimum and maximum.
def _pair_moves(legs: str, least: str, greatest: str) -> str:
    signed = "CASE WHEN l.debtor_id < l.creditor_id THEN l.amount_minor ELSE -l.amount_minor END"
    label = "COALESCE(NULLIF(t.source, ''), r.key, t.key)"
    kind = "CASE WHEN t.kind = 'carry' THEN 'carry' ELSE 'posting' END"
    select = f"""SELECT t.club_id, t.unit, {{scope}} AS scope,
                {least}(l.debtor_id, l.creditor_id) AS low_id,
                {greatest}(l.debtor_id, l.creditor_id) AS high_id,
                t.kind = 'payment' AS paying, {kind} AS part_kind, {label} AS label,
                {signed} AS minor, t.at
            FROM {legs} l JOIN ledger_transaction t ON t.id = l.transaction_id
            LEFT JOIN ledger_transaction r ON r.id = t.reverses_id"""
    return f"""{select.format(scope="''")}
        UNION ALL
        {select.format(scope="t.scope")} WHERE t.scope <> ''"""


def _pairs_added(legs: str, least: str = "LEAST", greatest: str = "GREATEST") -> str:
    moves = _pair_moves(legs, least, greatest)
    return f"""
        INSERT INTO ledger_pairdebt (club_id, unit, scope, low_id, high_id, posted_minor,
                                     paid_minor)
        SELECT club_id, unit, scope, low_id, high_id,
               SUM(CASE WHEN paying THEN 0 ELSE minor END),
               SUM(CASE WHEN paying THEN -minor ELSE 0 END)
        FROM ({moves}) moves
        WHERE true
        GROUP BY club_id, unit, scope, low_id, high_id
        ORDER BY club_id, unit, scope, low_id, high_id
        ON CONFLICT (club_id, unit, scope, low_id, high_id)
            DO UPDATE SET posted_minor = ledger_pairdebt.posted_minor + EXCLUDED.posted_minor,
                          paid_minor = ledger_pairdebt.paid_minor + EXCLUDED.paid_minor;
        INSERT INTO ledger_pairpart (club_id, unit, scope, low_id, high_id, kind, label, minor,
                                     at)
        SELECT club_id, unit, scope, low_id, high_id, part_kind, label, SUM(minor), MIN(at)
        FROM ({moves}) moves
        WHERE NOT paying
        GROUP BY club_id, unit, scope, low_id, high_id, part_kind, label
        ORDER BY club_id, unit, scope, low_id, high_id, part_kind, label
        ON CONFLICT (club_id, unit, scope, low_id, high_id, kind, label)
            DO UPDATE SET minor = ledger_pairpart.minor + EXCLUDED.minor,
                          at = {least}(ledger_pairpart.at, EXCLUDED.at)"""


def _leg_pairs() -> Trigger:
    """Once per INSERT (or COPY) of legs, after it: the pairs and parts they change."""
    return Trigger(
        name="ledger_leg_pairs",
        operation=pgtrigger.Insert,
        when=pgtrigger.After,
        level=pgtrigger.Statement,
        referencing=pgtrigger.Referencing(new="inserted"),
        func=f"""
                {_pairs_added("inserted")};
                RETURN NULL;
            """,
    )


def postgres_entry_triggers() -> list[Trigger]:
    return [
        _entry_balances(),
        _append_only("ledger_entry_append_only", "ledger entries", _ERASING_ENTRY),
        # Once per statement (a transaction's entries come in one or a few): an entry
        # whose transaction already has all its entries is one too many. A transaction
        # that committed has exactly its n_entries (the deferred check below), and
        # entries are never deleted, so this refuses any entry added to one; and one
        # whose transaction this database transaction cannot see (another's, not yet
        # committed) could never be checked, so it is refused as well.
        _none_beyond(
            "ledger_entry",
            rows="e",
            touched="(SELECT DISTINCT transaction_id FROM inserted)",
            counted="e.transaction_id = touched.transaction_id",
            announced="n_entries",
            words=("entry", "entries, summing to zero"),
            found="beyond",
        ),
    ]


def postgres_transaction_triggers() -> list[Trigger]:
    return [_transaction_append_only(), _transaction_balanced()]


def _transaction_append_only() -> Trigger:
    return Trigger(
        name="ledger_transaction_append_only",
        operation=pgtrigger.Update | pgtrigger.Delete,
        when=pgtrigger.Before,
        func=f"""
                IF TG_OP = 'DELETE' AND {_ERASING_TRANSACTION} THEN
                    RETURN OLD;
                END IF;
                IF TG_OP = 'UPDATE' AND NEW.created_by_id IS NULL
                   AND (to_jsonb(NEW) - 'created_by_id') = (to_jsonb(OLD) - 'created_by_id') THEN
                    RETURN NEW;
                END IF;
                IF TG_OP = 'UPDATE' AND {_LEGS_GIVEN_PG} THEN
                    RETURN NEW;
                END IF;
                RAISE EXCEPTION 'ledger transactions are append-only: % refused', TG_OP
                    USING ERRCODE = '{REFUSED}';
            """,
    )


def _transaction_balanced() -> Trigger:
    return Trigger(
        # At commit, once per transaction (not per row): all its entries, summing to
        # zero, not all zero; all its legs, netting to the entries. Gone by then means
        # erased in this same database transaction.
        name="ledger_transaction_balanced",
        operation=pgtrigger.Insert,
        when=pgtrigger.After,
        timing=pgtrigger.Deferred,
        declare=[
            ("counted", "bigint"),
            ("total", "numeric"),
            ("moving", "bigint"),
            ("legs", "bigint"),
            ("unmatched", "bigint"),
        ],
        func=f"""
                IF NOT EXISTS (SELECT 1 FROM ledger_transaction WHERE id = NEW.id) THEN
                    RETURN NULL;
                END IF;
                -- One pass over the entries and the legs (each leg as its two sides), person
                -- by person: the entries' count, sum and non-zero ones, the legs' count, and
                -- the people whose legs do not net to their entry.
                SELECT COALESCE(SUM(per.entries), 0), COALESCE(SUM(per.total), 0),
                       COALESCE(SUM(per.moving), 0), COALESCE(SUM(per.legs), 0),
                       COUNT(*) FILTER (WHERE per.net <> 0)
                    INTO counted, total, moving, legs, unmatched
                    FROM (
                        SELECT COUNT(*) FILTER (WHERE side = 'e') AS entries,
                               SUM(minor) FILTER (WHERE side = 'e') AS total,
                               COUNT(*) FILTER (WHERE side = 'e' AND minor <> 0) AS moving,
                               COUNT(*) FILTER (WHERE side = 'c') AS legs,
                               SUM(minor) AS net
                        FROM (
                            SELECT 'e' AS side, player_id AS who, amount_minor AS minor
                                FROM ledger_entry WHERE transaction_id = NEW.id
                            UNION ALL
                            SELECT sides.side, sides.who, sides.minor
                                FROM ledger_leg l, LATERAL (VALUES
                                    ('c', l.creditor_id, -l.amount_minor),
                                    ('d', l.debtor_id, l.amount_minor)) sides(side, who, minor)
                                WHERE l.transaction_id = NEW.id
                        ) moves
                        GROUP BY who
                    ) per;
                IF counted <> NEW.n_entries OR total <> 0 THEN
                    RAISE EXCEPTION
                        'ledger transaction % must have its % entries, summing to zero'
                        ' (it has %, summing to %)',
                        NEW.id, NEW.n_entries, counted, total USING ERRCODE = '{REFUSED}';
                END IF;
                IF moving = 0 THEN
                    RAISE EXCEPTION 'ledger transaction % moves nothing: its entries are all zero',
                        NEW.id USING ERRCODE = '{REFUSED}';
                END IF;
                IF NEW.n_legs IS NULL OR legs <> NEW.n_legs OR unmatched <> 0 THEN
                    RAISE EXCEPTION
                        'ledger transaction % must have its % legs, netting to its entries'
                        ' (it has %; % people do not net)',
                        NEW.id, NEW.n_legs, legs, unmatched USING ERRCODE = '{REFUSED}';
                END IF;
                RETURN NULL;
            """,
    )


def postgres_leg_triggers() -> list[Trigger]:
    return [
        _leg_pairs(),
        _append_only("ledger_leg_append_only", "ledger legs", _ERASING_LEG),
        # Once per statement, as for the entries: no leg beyond the announced ones, nor
        # for a transaction this database transaction cannot see. (A transaction posted
        # before legs, n_legs NULL, takes legs until they are counted: see above.)
        _none_beyond(
            "ledger_leg",
            rows="l",
            touched=(
                "(SELECT transaction_id, COUNT(*) AS brought FROM inserted\n"
                "                          GROUP BY transaction_id)"
            ),
            counted="l.transaction_id = t.id",
            announced="n_legs",
            words=("leg", "legs, netting to its entries"),
            found="refused",
        ),
    ]


def postgres_erasure_triggers() -> list[Trigger]:
    return [
        Trigger(
            # Closing an open erasure (its end and counts), once; a deleted user's ``by``
            # set to NULL. Nothing else.
            name="ledger_erasure_kept",
            operation=pgtrigger.Update | pgtrigger.Delete,
            when=pgtrigger.Before,
            func=f"""
                IF TG_OP = 'UPDATE' AND OLD.finished_at IS NULL AND NEW.finished_at IS NOT NULL
                   AND (to_jsonb(NEW) - 'finished_at' - 'transactions' - 'payments')
                       = (to_jsonb(OLD) - 'finished_at' - 'transactions' - 'payments') THEN
                    RETURN NEW;
                END IF;
                IF TG_OP = 'UPDATE' AND NEW.by_id IS NULL
                   AND (to_jsonb(NEW) - 'by_id') = (to_jsonb(OLD) - 'by_id') THEN
                    RETURN NEW;
                END IF;
                RAISE EXCEPTION 'ledger erasures are kept as written: % refused', TG_OP
                    USING ERRCODE = '{REFUSED}';
            """,
        ),
    ]


def postgres_check_run_triggers() -> list[Trigger]:
    return [_append_only("ledger_checkrun_append_only", "ledger check runs", "FALSE")]


POSTGRES_TRIGGERS = {
    "ledger_entry": [
        "ledger_entry_append_only",
        "ledger_entry_not_beyond",
        "ledger_entry_balances",
    ],
    "ledger_leg": ["ledger_leg_append_only", "ledger_leg_not_beyond", "ledger_leg_pairs"],
    "ledger_transaction": ["ledger_transaction_append_only", "ledger_transaction_balanced"],
    "ledger_erasure": ["ledger_erasure_kept"],
    "ledger_checkrun": ["ledger_checkrun_append_only"],
}


# --- SQLite --------------------------------------------------------------------------------

# The columns of ledger_transaction that may never change (but created_by_id, and n_legs
# once for a transaction posted before legs).
_TRANSACTION_COLUMNS = [
    "id",
    "club_id",
    "unit",
    "scope",
    "key",
    "kind",
    "source",
    "memo",
    "reverses_id",
    "n_entries",
    "n_legs",
    "at",
    "created_at",
]
_UNCHANGED = " AND ".join(f"NEW.{c} IS OLD.{c}" for c in _TRANSACTION_COLUMNS)
_LEGS_GIVEN = " AND ".join(
    [
        "OLD.n_legs IS NULL AND NEW.n_legs IS NOT NULL AND NEW.created_by_id IS OLD.created_by_id",
        *(f"NEW.{c} IS OLD.{c}" for c in _TRANSACTION_COLUMNS if c != "n_legs"),
        "(SELECT COUNT(*) FROM ledger_leg WHERE transaction_id = NEW.id) = NEW.n_legs",
        f"NOT EXISTS ({_unmatched('NEW.id')})",
    ]
)

_COUNT = "(SELECT COUNT(*) FROM ledger_entry WHERE transaction_id = NEW.transaction_id)"
_ANNOUNCED = "(SELECT n_entries FROM ledger_transaction WHERE id = NEW.transaction_id)"
_SUM = "(SELECT SUM(amount_minor) FROM ledger_entry WHERE transaction_id = NEW.transaction_id)"
_MOVING = """EXISTS (SELECT 1 FROM ledger_entry
    WHERE transaction_id = NEW.transaction_id AND amount_minor <> 0)"""
_LEGS = "(SELECT COUNT(*) FROM ledger_leg WHERE transaction_id = NEW.transaction_id)"
_LEGS_ANNOUNCED = "(SELECT n_legs FROM ledger_transaction WHERE id = NEW.transaction_id)"
_ERASURE_CLOSED_ONCE = """(OLD.finished_at IS NULL AND NEW.finished_at IS NOT NULL
    AND NEW.id IS OLD.id AND NEW.club_id IS OLD.club_id AND NEW.club_name IS OLD.club_name
    AND NEW.by_id IS OLD.by_id AND NEW.started_at IS OLD.started_at)"""
_ERASURE_BY_GONE = """(NEW.by_id IS NULL AND NEW.id IS OLD.id AND NEW.club_id IS OLD.club_id
    AND NEW.club_name IS OLD.club_name AND NEW.started_at IS OLD.started_at
    AND NEW.finished_at IS OLD.finished_at AND NEW.transactions IS OLD.transactions
    AND NEW.payments IS OLD.payments)"""

# The entry a row trigger is about, as a table of one row.
_THE_NEW_ENTRY = """(SELECT NEW.transaction_id AS transaction_id, NEW.player_id AS player_id,
    NEW.amount_minor AS amount_minor)"""
_THE_NEW_LEG = """(SELECT NEW.transaction_id AS transaction_id, NEW.debtor_id AS debtor_id,
    NEW.creditor_id AS creditor_id, NEW.amount_minor AS amount_minor)"""

SQLITE_TRIGGERS = {
    "ledger_entry_no_update": """
        CREATE TRIGGER ledger_entry_no_update BEFORE UPDATE ON ledger_entry
        BEGIN SELECT RAISE(ABORT, 'ledger entries are append-only: UPDATE refused'); END""",
    "ledger_entry_no_delete": f"""
        CREATE TRIGGER ledger_entry_no_delete BEFORE DELETE ON ledger_entry
        WHEN NOT {_ERASING_ENTRY}
        BEGIN SELECT RAISE(ABORT, 'ledger entries are append-only: DELETE refused'); END""",
    "ledger_entry_balanced": f"""
        CREATE TRIGGER ledger_entry_balanced AFTER INSERT ON ledger_entry
        WHEN {_COUNT} >= {_ANNOUNCED}
        BEGIN SELECT RAISE(ABORT, 'a ledger transaction must have all its entries, summing to zero')
              WHERE {_COUNT} > {_ANNOUNCED} OR {_SUM} <> 0;
              SELECT RAISE(ABORT, 'a ledger transaction moves nothing: its entries are all zero')
              WHERE NOT {_MOVING}; END""",
    # The derived balances (``ledger.models.Balance``), entry by entry.
    "ledger_entry_balances": f"""
        CREATE TRIGGER ledger_entry_balances AFTER INSERT ON ledger_entry
        BEGIN {_balances_added(_THE_NEW_ENTRY)}; END""",
    # Who owes whom (``ledger.models.PairDebt``, ``PairPart``), leg by leg.
    "ledger_leg_pairs": f"""
        CREATE TRIGGER ledger_leg_pairs AFTER INSERT ON ledger_leg
        BEGIN {_pairs_added(_THE_NEW_LEG, "MIN", "MAX")}; END""",
    "ledger_leg_no_update": """
        CREATE TRIGGER ledger_leg_no_update BEFORE UPDATE ON ledger_leg
        BEGIN SELECT RAISE(ABORT, 'ledger legs are append-only: UPDATE refused'); END""",
    "ledger_leg_no_delete": f"""
        CREATE TRIGGER ledger_leg_no_delete BEFORE DELETE ON ledger_leg
        WHEN NOT {_ERASING_LEG}
        BEGIN SELECT RAISE(ABORT, 'ledger legs are append-only: DELETE refused'); END""",
    # Entries come first: once the last announced leg is in, the legs net to the entries.
    "ledger_leg_balanced": f"""
        CREATE TRIGGER ledger_leg_balanced AFTER INSERT ON ledger_leg
        WHEN {_LEGS_ANNOUNCED} IS NOT NULL AND {_LEGS} >= {_LEGS_ANNOUNCED}
        BEGIN SELECT RAISE(ABORT, 'a ledger transaction must have its legs, netting to its entries')
              WHERE {_LEGS} > {_LEGS_ANNOUNCED}
                 OR EXISTS ({_unmatched("NEW.transaction_id")}); END""",
    "ledger_transaction_announces_legs": """
        CREATE TRIGGER ledger_transaction_announces_legs BEFORE INSERT ON ledger_transaction
        WHEN NEW.n_legs IS NULL
        BEGIN SELECT RAISE(ABORT, 'a ledger transaction must announce its legs'); END""",
    "ledger_transaction_no_update": f"""
        CREATE TRIGGER ledger_transaction_no_update BEFORE UPDATE ON ledger_transaction
        WHEN NOT (NEW.created_by_id IS NULL AND {_UNCHANGED}) AND NOT ({_LEGS_GIVEN})
        BEGIN SELECT RAISE(ABORT, 'ledger transactions are append-only: UPDATE refused'); END""",
    "ledger_transaction_no_delete": f"""
        CREATE TRIGGER ledger_transaction_no_delete BEFORE DELETE ON ledger_transaction
        WHEN NOT {_ERASING_TRANSACTION}
        BEGIN SELECT RAISE(ABORT, 'ledger transactions are append-only: DELETE refused'); END""",
    "ledger_erasure_no_update": f"""
        CREATE TRIGGER ledger_erasure_no_update BEFORE UPDATE ON ledger_erasure
        WHEN NOT {_ERASURE_CLOSED_ONCE} AND NOT {_ERASURE_BY_GONE}
        BEGIN SELECT RAISE(ABORT, 'ledger erasures are kept as written: UPDATE refused'); END""",
    "ledger_erasure_no_delete": """
        CREATE TRIGGER ledger_erasure_no_delete BEFORE DELETE ON ledger_erasure
        BEGIN SELECT RAISE(ABORT, 'ledger erasures are kept as written: DELETE refused'); END""",
    "ledger_checkrun_no_update": """
        CREATE TRIGGER ledger_checkrun_no_update BEFORE UPDATE ON ledger_checkrun
        BEGIN SELECT RAISE(ABORT, 'ledger check runs are append-only: UPDATE refused'); END""",
    "ledger_checkrun_no_delete": """
        CREATE TRIGGER ledger_checkrun_no_delete BEFORE DELETE ON ledger_checkrun
        BEGIN SELECT RAISE(ABORT, 'ledger check runs are append-only: DELETE refused'); END""",
}


def fill_balances(apps, schema_editor) -> None:
    """The derived balances of every entry posted before they were kept (a migration's
    RunPython, on either database)."""
    schema_editor.execute(_balances_added("ledger_entry"))


def _least_greatest(vendor: str) -> tuple[str, str]:
    """The database's two-argument minimum and maximum."""
    return ("LEAST", "GREATEST") if vendor == "postgresql" else ("MIN", "MAX")


def fill_pairs(apps, schema_editor) -> None:
    """Who owes whom from every leg posted before it was kept (a migration's RunPython)."""
    least, greatest = _least_greatest(schema_editor.connection.vendor)
    for statement in _pairs_added("ledger_leg", least, greatest).split(";"):
        schema_editor.execute(statement)


def drop_sqlite_pairs(apps, schema_editor) -> None:
    """Back before the derived pairs: their SQLite trigger goes before their tables."""
    if schema_editor.connection.vendor == "sqlite":
        schema_editor.execute("DROP TRIGGER IF EXISTS ledger_leg_pairs")


def pairs_of_club_sql(vendor: str) -> list[str]:
    """The two statements that add up one club's legs (the parameter of each: its id, twice,
    as the legs are read twice) into its derived pairs and parts, which must be empty
    (``services.rebuild_balances``)."""
    least, greatest = _least_greatest(vendor)
    legs = """(SELECT l.transaction_id, l.debtor_id, l.creditor_id, l.amount_minor
            FROM ledger_leg l JOIN ledger_transaction x ON x.id = l.transaction_id
            WHERE x.club_id = %s)"""
    return _pairs_added(legs, least, greatest).split(";")


def drop_sqlite_balances(apps, schema_editor) -> None:
    """Back before the derived balances (the reverse of their migration): their SQLite
    trigger goes before their table."""
    if schema_editor.connection.vendor == "sqlite":
        schema_editor.execute("DROP TRIGGER IF EXISTS ledger_entry_balances")


def balances_of_club_sql() -> str:
    """The statement that adds up one club's entries (the parameter: its id) into its
    derived balances, which must be empty (``services.rebuild_balances``): the id twice, as
    the entries are read twice (the whole club's rows, the scopes')."""
    return _balances_added(
        """(SELECT e.transaction_id, e.player_id, e.amount_minor FROM ledger_entry e
            JOIN ledger_transaction x ON x.id = e.transaction_id WHERE x.club_id = %s)"""
    )


# The triggers that write a table a migration made later than the first triggers: an earlier
# migration's install leaves them out until their table is there.
SQLITE_NEEDS = {"ledger_entry_balances": "ledger_balance", "ledger_leg_pairs": "ledger_pairdebt"}


def install_sqlite(apps, schema_editor) -> None:
    """(Re)create the SQLite triggers; a no-op on other databases (a migration's RunPython)."""
    if schema_editor.connection.vendor != "sqlite":
        return
    with schema_editor.connection.cursor() as cursor:
        tables = set(schema_editor.connection.introspection.table_names(cursor))
    for name, sql in SQLITE_TRIGGERS.items():
        schema_editor.execute(f"DROP TRIGGER IF EXISTS {name}")
        if SQLITE_NEEDS.get(name, "ledger_entry") in tables:
            schema_editor.execute(sql)


def uninstall_sqlite(apps, schema_editor) -> None:
    if schema_editor.connection.vendor != "sqlite":
        return
    for name in SQLITE_TRIGGERS:
        schema_editor.execute(f"DROP TRIGGER IF EXISTS {name}")


def missing(connection) -> list[str]:
    """The names of the append-only triggers this database lacks (for ``ledger_check``)."""
    with connection.cursor() as cursor:
        if connection.vendor == "sqlite":
            cursor.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")
            present = {row[0] for row in cursor.fetchall()}
            return sorted(set(SQLITE_TRIGGERS) - present)
        if connection.vendor == "postgresql":
            cursor.execute(
                "SELECT c.relname, t.tgname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid"
                " WHERE c.relname = ANY(%s) AND t.tgenabled <> 'D'",
                [list(POSTGRES_TRIGGERS)],
            )
            present = {(table, name) for table, name in cursor.fetchall()}
            return sorted(
                f"{table}.{name}"
                for table, names in POSTGRES_TRIGGERS.items()
                for name in names
                if not any(t == table and n.startswith(f"pgtrigger_{name}_") for t, n in present)
            )
    return []
