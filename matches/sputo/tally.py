"""Each player's Sputo tally (:class:`~matches.sputo.models.SputoTally`): matches played and
won and tournaments won, per season and all time, the figures of the club's leaderboard.

The database keeps it, as it keeps the ledger's balances: triggers on the matches and on
the entrants add a row's contribution when it is written and take it away when it is
rewritten or deleted, in the write's own transaction, whoever writes (a result, a
correction and its cascade, a void, a walkover, a guest merge). A write costs the match's
two players, whatever the club's history, and the leaderboard reads a row a player instead
of counting the club's every match.

- **A match** counts for each of its seats that holds a player once its result is one
  played (:data:`BY_PLAY`: played, retirement, awarded by an admin; not a bye, a walkover or
  a double forfeit, as the leaderboard always counted them): one match, and one won if the
  seat is the winner's. Lost is matches less won.
- **A tournament won** is an entrant's final place 1 (``Entrant.place``, written when the
  tournament finishes and whenever a correction changes its standings).
- **Scopes**: the tournament's season, if it has one, and all time (season empty). The
  services change a tournament's season only before its draw (``update_tournament``), but
  a trigger on the tournaments moves its matches and places to the new season's rows
  whenever it changes.
- A row taken back to nothing stays, all zeros; the leaderboard and the comparison with a
  rebuild leave such rows out.

On PostgreSQL the triggers are declared on the models (django-pgtrigger) and installed by
the migrations; on SQLite :func:`install_sqlite` makes them (a migration that rebuilds
either table must call it again: SQLite drops a table's triggers with it; :func:`missing`
names any that is absent, and the test suite checks). :func:`rebuild_club` adds the
club's matches and places up from scratch (``manage.py recompute_stats``), by other code
than the triggers', so that ``tests/test_derived_by_deltas.py`` can compare the two.
"""

from __future__ import annotations

import pgtrigger
from django.db import connection, transaction

from matches.sputo import bracket

#: The results that count as a match played (``boards.BY_PLAY``).
BY_PLAY = (bracket.PLAYED, bracket.RETIREMENT, bracket.AWARDED)
SEATS = ("player_a_id", "player_b_id")

TABLE = "matches_sputotally"
_PLAYED = "(" + ", ".join(f"'{result}'" for result in BY_PLAY) + ")"


def _season_of(row: str) -> str:
    return f"(SELECT season_id FROM matches_tournament WHERE id = {row}.tournament_id)"


def _club_of(row: str) -> str:
    return f"(SELECT club_id FROM matches_tournament WHERE id = {row}.tournament_id)"


# The two scopes: (what the row's season is, the conflict target of its unique index).
def _scopes(row: str) -> list[tuple[str, str, str]]:
    season = _season_of(row)
    return [
        (season, f"{season} IS NOT NULL", "(club_id, season_id, player_id)"),
        ("NULL", "1 = 1", "(club_id, player_id) WHERE season_id IS NULL"),
    ]


def _match_added(row: str) -> list[str]:
    statements = []
    for seat in SEATS:
        won = f"CASE WHEN {row}.winner_id = {row}.{seat} THEN 1 ELSE 0 END"
        for season, present, target in _scopes(row):
            statements.append(
                f"""INSERT INTO {TABLE} (club_id, season_id, player_id, matches, won,
                                         tournaments_won)
                SELECT {row}.club_id, {season}, {row}.{seat}, 1, {won}, 0
                WHERE {row}.result IN {_PLAYED} AND {row}.{seat} IS NOT NULL AND {present}
                ON CONFLICT {target} DO UPDATE SET matches = {TABLE}.matches + 1,
                                                   won = {TABLE}.won + EXCLUDED.won"""
            )
    return statements


def _scope_is(season: str) -> str:
    return "season_id IS NULL" if season == "NULL" else f"season_id = {season}"


def _match_taken(row: str) -> list[str]:
    statements = []
    for seat in SEATS:
        won = f"CASE WHEN {row}.winner_id = {row}.{seat} THEN 1 ELSE 0 END"
        for season, _present, _target in _scopes(row):
            statements.append(
                f"""UPDATE {TABLE} SET matches = matches - 1, won = won - {won}
                WHERE club_id = {row}.club_id AND player_id = {row}.{seat}
                  AND {_scope_is(season)}
                  AND {row}.result IN {_PLAYED} AND {row}.{seat} IS NOT NULL"""
            )
    return statements


def _place_added(row: str) -> list[str]:
    return [
        f"""INSERT INTO {TABLE} (club_id, season_id, player_id, matches, won, tournaments_won)
        SELECT {_club_of(row)}, {season}, {row}.player_id, 0, 0, 1
        WHERE {row}.place = 1 AND {present}
        ON CONFLICT {target} DO UPDATE SET tournaments_won = {TABLE}.tournaments_won + 1"""
        for season, present, target in _scopes(row)
    ]


def _place_taken(row: str) -> list[str]:
    return [
        f"""UPDATE {TABLE} SET tournaments_won = tournaments_won - 1
        WHERE club_id = {_club_of(row)} AND player_id = {row}.player_id
          AND {_scope_is(season)} AND {row}.place = 1"""
        for season, _present, _target in _scopes(row)
    ]


_MATCH_CHANGED = " OR ".join(
    f"OLD.{column} IS DISTINCT FROM NEW.{column}"
    for column in ("result", "winner_id", "player_a_id", "player_b_id")
)


def _postgres(name: str, taken: list[str], added: list[str], changed: str) -> pgtrigger.Trigger:
    return pgtrigger.Trigger(
        name=name,
        operation=pgtrigger.Insert | pgtrigger.Update | pgtrigger.Delete,
        when=pgtrigger.After,
        level=pgtrigger.Row,
        func=f"""
            IF TG_OP = 'UPDATE' AND NOT ({changed}) THEN
                RETURN NULL;
            END IF;
            IF TG_OP <> 'INSERT' THEN
                {"; ".join(taken)};
            END IF;
            IF TG_OP <> 'DELETE' THEN
                {"; ".join(added)};
            END IF;
            RETURN NULL;
        """,
    )


def _seats(club: str) -> str:
    """Every contribution of the club's matches and places (``club``: a condition on t)."""
    matches = " UNION ALL ".join(
        f"""SELECT t.club_id, t.season_id, m.{seat} AS player_id, 1 AS matches,
                   CASE WHEN m.winner_id = m.{seat} THEN 1 ELSE 0 END AS won, 0 AS won_t
            FROM matches_tournamentmatch m JOIN matches_tournament t ON t.id = m.tournament_id
            WHERE m.result IN {_PLAYED} AND m.{seat} IS NOT NULL AND {club}"""
        for seat in SEATS
    )
    return f"""{matches} UNION ALL
        SELECT t.club_id, t.season_id, e.player_id, 0, 0, 1
        FROM matches_entrant e JOIN matches_tournament t ON t.id = e.tournament_id
        WHERE e.place = 1 AND {club}"""


def _season_moved() -> list[str]:
    """A tournament moved to another season (``OLD``/``NEW``: the tournament's row): its
    matches and places leave the old season's rows and join the new one's."""
    seats = _seats("t.id = NEW.id")
    figures = ("matches", "won", "tournaments_won")
    sums = {"matches": "matches", "won": "won", "tournaments_won": "won_t"}
    taken = ", ".join(
        f"""{column} = {column} - COALESCE((SELECT SUM(s.{sums[column]}) FROM ({seats}) s
                                            WHERE s.player_id = {TABLE}.player_id), 0)"""
        for column in figures
    )
    return [
        # Only the rows of the tournament's own players: the season's others stay untouched.
        f"""UPDATE {TABLE} SET {taken}
        WHERE club_id = OLD.club_id AND season_id = OLD.season_id
          AND player_id IN (SELECT s.player_id FROM ({seats}) s)""",
        f"""INSERT INTO {TABLE} (club_id, season_id, player_id, matches, won, tournaments_won)
        SELECT club_id, season_id, player_id, SUM(matches), SUM(won), SUM(won_t)
        FROM ({seats}) seats WHERE season_id IS NOT NULL
        GROUP BY club_id, season_id, player_id
        ON CONFLICT (club_id, season_id, player_id) DO UPDATE SET
            matches = {TABLE}.matches + EXCLUDED.matches,
            won = {TABLE}.won + EXCLUDED.won,
            tournaments_won = {TABLE}.tournaments_won + EXCLUDED.tournaments_won""",
    ]


def tournament_triggers() -> list[pgtrigger.Trigger]:
    """``Tournament.Meta.triggers`` (PostgreSQL)."""
    return [
        pgtrigger.Trigger(
            name="sputo_tournament_tally",
            operation=pgtrigger.Update,
            when=pgtrigger.After,
            level=pgtrigger.Row,
            condition=pgtrigger.Condition("OLD.season_id IS DISTINCT FROM NEW.season_id"),
            func=f"""
                {"; ".join(_season_moved())};
                RETURN NULL;
            """,
        )
    ]


def match_triggers() -> list[pgtrigger.Trigger]:
    """``TournamentMatch.Meta.triggers`` (PostgreSQL)."""
    return [
        _postgres("sputo_match_tally", _match_taken("OLD"), _match_added("NEW"), _MATCH_CHANGED)
    ]


def entrant_triggers() -> list[pgtrigger.Trigger]:
    """``Entrant.Meta.triggers`` (PostgreSQL)."""
    changed = "OLD.place IS DISTINCT FROM NEW.place OR OLD.player_id IS DISTINCT FROM NEW.player_id"
    return [_postgres("sputo_entrant_tally", _place_taken("OLD"), _place_added("NEW"), changed)]


def _sqlite(name: str, table: str, event: str, statements: list[str]) -> str:
    body = ";\n".join(statements)
    return f"CREATE TRIGGER {name} AFTER {event} ON {table} BEGIN\n{body};\nEND"


SQLITE_TRIGGERS = {
    "sputo_match_tally_insert": _sqlite(
        "sputo_match_tally_insert", "matches_tournamentmatch", "INSERT", _match_added("NEW")
    ),
    "sputo_match_tally_update": _sqlite(
        "sputo_match_tally_update",
        "matches_tournamentmatch",
        "UPDATE OF result, winner_id, player_a_id, player_b_id",
        _match_taken("OLD") + _match_added("NEW"),
    ),
    "sputo_match_tally_delete": _sqlite(
        "sputo_match_tally_delete", "matches_tournamentmatch", "DELETE", _match_taken("OLD")
    ),
    "sputo_tournament_tally": _sqlite(
        "sputo_tournament_tally",
        "matches_tournament",
        "UPDATE OF season_id",
        _season_moved(),
    ).replace(" BEGIN", " WHEN OLD.season_id IS NOT NEW.season_id BEGIN", 1),
    "sputo_entrant_tally_insert": _sqlite(
        "sputo_entrant_tally_insert", "matches_entrant", "INSERT", _place_added("NEW")
    ),
    "sputo_entrant_tally_update": _sqlite(
        "sputo_entrant_tally_update",
        "matches_entrant",
        "UPDATE OF place, player_id",
        _place_taken("OLD") + _place_added("NEW"),
    ),
    "sputo_entrant_tally_delete": _sqlite(
        "sputo_entrant_tally_delete", "matches_entrant", "DELETE", _place_taken("OLD")
    ),
}


def install_sqlite(apps=None, schema_editor=None) -> None:
    """(Re)create the SQLite triggers; a no-op on other databases (a migration's RunPython)."""
    db = schema_editor.connection if schema_editor else connection
    if db.vendor != "sqlite":
        return
    with db.cursor() as cursor:
        for name, sql in SQLITE_TRIGGERS.items():
            cursor.execute(f"DROP TRIGGER IF EXISTS {name}")
            cursor.execute(sql)


def uninstall_sqlite(apps=None, schema_editor=None) -> None:
    db = schema_editor.connection if schema_editor else connection
    if db.vendor != "sqlite":
        return
    with db.cursor() as cursor:
        for name in SQLITE_TRIGGERS:
            cursor.execute(f"DROP TRIGGER IF EXISTS {name}")


def missing(db=connection) -> list[str]:
    """The tally's triggers this database lacks."""
    with db.cursor() as cursor:
        if db.vendor == "sqlite":
            cursor.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")
            present = {row[0] for row in cursor.fetchall()}
            return sorted(set(SQLITE_TRIGGERS) - present)
        if db.vendor == "postgresql":
            cursor.execute("SELECT tgname FROM pg_trigger WHERE tgenabled <> 'D'")
            present = {row[0] for row in cursor.fetchall()}
            wanted = ("sputo_match_tally", "sputo_entrant_tally", "sputo_tournament_tally")
            return [w for w in wanted if not any(p.startswith(f"pgtrigger_{w}_") for p in present)]
    return []


# --- From scratch ----------------------------------------------------------------------------


def _fill_sql(club: str) -> list[str]:
    seats = _seats(club)
    columns = f"INSERT INTO {TABLE} (club_id, season_id, player_id, matches, won, tournaments_won)"
    return [
        f"""{columns} SELECT club_id, season_id, player_id, SUM(matches), SUM(won), SUM(won_t)
            FROM ({seats}) seats WHERE season_id IS NOT NULL
            GROUP BY club_id, season_id, player_id""",
        f"""{columns} SELECT club_id, NULL, player_id, SUM(matches), SUM(won), SUM(won_t)
            FROM ({seats}) seats GROUP BY club_id, player_id""",
    ]


def fill(apps, schema_editor) -> None:
    """Every club's tallies from the matches and places already there (a migration's
    RunPython; the table is new, so empty)."""
    for statement in _fill_sql("1 = 1"):
        schema_editor.execute(statement)


def rebuild_club(club_id: int) -> None:
    """The club's tallies again from its matches and places (``recompute_stats``)."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(f"DELETE FROM {TABLE} WHERE club_id = %s", [club_id])
        for statement in _fill_sql("t.club_id = %s"):
            # The club's id once for each reading of the matches and places (three).
            cursor.execute(statement, [club_id] * 3)
