"""Many rows in few statements, for bulk imports' hot paths (any floor may use it: it knows
only models and the database).

``Model.objects.bulk_create`` builds a model instance per row and prepares every field of
it; at a hundred thousand Singapore hands (some ten rows each, and their ledger postings)
that alone takes longer than the whole import may. :func:`insert` writes plain tuples
instead. On PostgreSQL it streams them with ``COPY`` (the ids, when asked, drawn from the
table's sequence first); elsewhere it sends one multi-row ``INSERT ... RETURNING`` per
chunk, each value prepared by its own field only where the database needs it (JSON, dates
and times). Constraints and triggers apply as usual.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import orjson
from django.db import connection, models

# Well below SQLite's 32,766 and PostgreSQL's 65,535 parameters a statement.
MAX_PARAMETERS = 30_000


def _converter(field: models.Field):
    ops = connection.ops
    if isinstance(field, models.JSONField):
        encoder = field.encoder
        return lambda value: None if value is None else ops.adapt_json_value(value, encoder)
    if isinstance(field, models.DateTimeField):
        seen: dict = {}  # many rows share a moment (when the batch was written)

        def moment(value):
            found = seen.get(value)
            if found is None:
                found = seen[value] = field.get_db_prep_save(value, connection)
            return found

        return moment
    if isinstance(field, models.DecimalField):
        return lambda value: field.get_db_prep_save(value, connection)
    return None


def insert(
    model: type[models.Model],
    fields: Sequence[str],
    rows: Sequence[tuple],
    *,
    returning: bool = False,
) -> list[int]:
    """INSERT ``rows`` (tuples of the values of ``fields``, by field name) into ``model``'s
    table; the new ids in order when ``returning``."""
    if not rows:
        return []
    if connection.vendor == "postgresql":
        return _copy(model, fields, rows, returning=returning)
    meta = model._meta
    columns = [meta.get_field(name) for name in fields]
    converters = [(i, c) for i, f in enumerate(columns) if (c := _converter(f)) is not None]
    quote = connection.ops.quote_name
    head = (
        f"INSERT INTO {quote(meta.db_table)} "
        f"({', '.join(quote(field.column) for field in columns)}) VALUES "
    )
    one = "(" + ", ".join(["%s"] * len(columns)) + ")"
    tail = f" RETURNING {quote(meta.pk.column)}" if returning else ""
    per_statement = max(1, MAX_PARAMETERS // len(columns))
    ids: list[int] = []
    with connection.cursor() as cursor:
        for start in range(0, len(rows), per_statement):
            chunk = rows[start : start + per_statement]
            params: list = []
            for row in chunk:
                if converters:
                    row = list(row)
                    for index, convert in converters:
                        row[index] = convert(row[index])
                params.extend(row)
            cursor.execute(head + ", ".join([one] * len(chunk)) + tail, params)
            if returning:
                ids.extend(found[0] for found in cursor.fetchall())
    return ids


def dumps(value) -> str:
    """JSON text, by orjson (several times faster), or the standard library for what orjson
    refuses (integers beyond 64 bits in fields the rules ignore)."""
    try:
        return orjson.dumps(value).decode()
    except TypeError:
        return json.dumps(value)


def _copy(model, fields, rows, *, returning: bool) -> list[int]:
    meta = model._meta
    columns = [meta.get_field(name) for name in fields]
    as_json = [i for i, field in enumerate(columns) if isinstance(field, models.JSONField)]
    quote = connection.ops.quote_name
    names = [field.column for field in columns]
    ids: list[int] = []
    with connection.cursor() as cursor:
        if returning:
            cursor.execute(
                "SELECT nextval(pg_get_serial_sequence(%s, %s)) FROM generate_series(1, %s)",
                [meta.db_table, meta.pk.column, len(rows)],
            )
            ids = [found[0] for found in cursor.fetchall()]
            names = [meta.pk.column, *names]
        sql = f"COPY {quote(meta.db_table)} ({', '.join(quote(n) for n in names)}) FROM STDIN"
        with cursor.cursor.copy(sql) as copy:
            for n, row in enumerate(rows):
                if as_json:
                    row = list(row)
                    for index in as_json:
                        if row[index] is not None:
                            row[index] = dumps(row[index])
                copy.write_row((ids[n], *row) if returning else row)
    return ids
