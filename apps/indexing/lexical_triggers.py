"""The SQL that keeps BM25 statistics current (``LexicalCollection``, ``LexicalTerm``).

Statement-level triggers on the chunk and claim tables read the rows a statement
inserted, deleted or changed (transition tables) and add or subtract their row counts,
token counts and per-lexeme document frequencies, per user, project and kind, in the same
transaction as the rows themselves. A transaction-scoped advisory lock per user orders
concurrent writers of one account's statistics (two indexing workers would otherwise
lock its term rows in different orders and deadlock). The SQL is plain PostgreSQL, no
extension; migrations carry what these build as literal text (``triggers``: what the
database holds now, and how a change reaches it).

A *source* is a ``SELECT``-list fragment over the changed row ``r`` naming
``project_key``, ``kind`` and ``vector``, optionally followed by a ``WHERE``.
"""

from __future__ import annotations

from collections.abc import Sequence

ZERO_UUID = "00000000-0000-0000-0000-000000000000"
LOCK_CLASS = 1919  # advisory lock namespace of the statistics' writers
# The lock the triggers below take for a user (``%s``: the user's id), from Python.
USER_LOCK_SQL = f"SELECT pg_advisory_xact_lock({LOCK_CLASS}, (%s::bigint %% 2147483647)::integer)"

TOKENS_FUNCTION = """
CREATE OR REPLACE FUNCTION cairn_tsvector_tokens(v tsvector) RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT AS $$
    SELECT coalesce(sum(greatest(cardinality(positions), 1)), 0)::bigint FROM unnest(v)
$$;
"""


def changes_sql(rows_of: str, sign: int, sources: list[str], join: str = "") -> str:
    """``(user_id, project_key, kind, vector, sign)`` of each row of ``rows_of``."""
    return " UNION ALL ".join(
        f"SELECT r.user_id, {_with_join(source, join)}".replace("{sign}", str(sign)).replace(
            "{rows}", rows_of
        )
        for source in sources
    )


def _with_join(source: str, join: str) -> str:
    select, _, where = source.partition(" WHERE ")
    tail = f" WHERE {where}" if where else ""
    return f"{select}, {{sign}} AS sign FROM {{rows}} AS r {join}{tail}"


def _changed(other: str, columns: Sequence[str]) -> str:
    """An UPDATE counts only rows whose text changed: the old version out, the new in."""
    differs = " OR ".join(f"o.{column} IS DISTINCT FROM r.{column}" for column in columns)
    return f"JOIN {other} AS o ON o.id = r.id AND ({differs})"


def trigger_function_sql(name: str, sources: list[str], changed_columns: Sequence[str]) -> str:
    """One plpgsql function serving the INSERT, DELETE and UPDATE triggers of a table;
    an UPDATE is counted for rows one of whose ``changed_columns`` changed."""
    changed = (
        changes_sql("new_rows", 1, sources, _changed("old_rows", changed_columns))
        + " UNION ALL "
        + changes_sql("old_rows", -1, sources, _changed("new_rows", changed_columns))
    )
    return f"""
CREATE OR REPLACE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE
    emptied bigint[];
BEGIN
    IF TG_OP = 'INSERT' THEN
{apply_sql(changes_sql("new_rows", 1, sources))}
    ELSIF TG_OP = 'DELETE' THEN
{apply_sql(changes_sql("old_rows", -1, sources))}
    ELSE
{apply_sql(changed)}
    END IF;
    RETURN NULL;
END
$fn$;
"""


def apply_sql(changes: str) -> str:
    """plpgsql statements adding ``changes`` (``changes_sql`` rows) to the statistics;
    needs a ``bigint[]`` variable ``emptied``. Rows whose count falls to zero are removed,
    so the tables hold only what some row still uses."""
    with_changes = f"WITH changes AS ({changes})"
    return f"""
        PERFORM pg_advisory_xact_lock({LOCK_CLASS}, (users.u % 2147483647)::integer)
            FROM (SELECT DISTINCT user_id AS u FROM ({changes}) AS c ORDER BY 1) AS users;
        {with_changes}
        INSERT INTO indexing_lexical_collection AS t (user_id, project_key, kind, rows, tokens)
            SELECT user_id, project_key, kind, sum(sign),
                   sum(sign * cairn_tsvector_tokens(vector))
            FROM changes GROUP BY 1, 2, 3 ORDER BY 1, 3, 2
            ON CONFLICT (user_id, kind, project_key) DO UPDATE
            SET rows = t.rows + excluded.rows, tokens = t.tokens + excluded.tokens;
        {with_changes}, up AS (
            INSERT INTO indexing_lexical_term AS t (user_id, project_key, kind, term, rows)
                SELECT c.user_id, c.project_key, c.kind, u.lexeme, sum(c.sign)
                FROM changes AS c, unnest(c.vector) AS u
                GROUP BY 1, 2, 3, 4 HAVING sum(c.sign) <> 0 ORDER BY 1, 4, 3, 2
                ON CONFLICT (user_id, term, kind, project_key) DO UPDATE
                SET rows = t.rows + excluded.rows
                RETURNING t.id, t.rows
        )
        SELECT array_agg(id) INTO emptied FROM up WHERE rows <= 0;
        IF emptied IS NOT NULL THEN
            DELETE FROM indexing_lexical_term WHERE id = ANY(emptied);
        END IF;
        {with_changes}
        DELETE FROM indexing_lexical_collection AS t USING
            (SELECT DISTINCT user_id FROM changes WHERE sign < 0) AS c
            WHERE t.user_id = c.user_id AND t.rows <= 0;"""  # noqa: S608 - trigger SQL from code, it takes no values


def triggers_sql(table: str, function: str, purpose: str = "lexical") -> str:
    """Statement-level INSERT, DELETE and UPDATE triggers of ``table`` calling
    ``function`` with the transition tables, named ``{table}_{purpose}_…``."""
    return f"""
DROP TRIGGER IF EXISTS {table}_{purpose}_insert ON {table};
DROP TRIGGER IF EXISTS {table}_{purpose}_delete ON {table};
DROP TRIGGER IF EXISTS {table}_{purpose}_update ON {table};
CREATE TRIGGER {table}_{purpose}_insert AFTER INSERT ON {table}
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION {function}();
CREATE TRIGGER {table}_{purpose}_delete AFTER DELETE ON {table}
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION {function}();
CREATE TRIGGER {table}_{purpose}_update AFTER UPDATE ON {table}
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION {function}();
"""


def backfill_sql(table: str, sources: list[str]) -> str:
    """Statistics of the rows already there (the triggers count only later changes)."""
    return f"""
DO $do$
DECLARE
    emptied bigint[];
BEGIN
{apply_sql(changes_sql(table, 1, sources))}
END
$do$;
"""
