"""The SQL that keeps BM25's postings current (``ChunkPosting``, ``ClaimPosting``).

Statement-level triggers on the chunk and claim tables read the rows a statement inserted,
deleted or changed (transition tables, so a bulk insert or a ``COPY`` is one statement,
not one per row) and write one posting per lexeme of each row's ``tsvector``, in the same
transaction as the rows. An update replaces the postings of the rows whose text, window or
project changed. Plain PostgreSQL, no extension; migrations call these builders.
"""

from __future__ import annotations

# A term frequency above this is stored as this: smallint, and BM25's saturation makes the
# difference between 32,767 occurrences and more immaterial.
TF_MAX = 32767

_TF = f"least(greatest(cardinality(u.positions), 1), {TF_MAX})"

CHUNK_POSTINGS = f"""
    INSERT INTO indexing_chunk_posting (chunk_id, kind, term, user_id, project_id, tf, length)
    SELECT r.id, CASE WHEN r.document_id IS NULL THEN 2 ELSE 1 END, u.lexeme, r.user_id,
           r.project_id, {_TF}, r.search_length
    FROM {{rows}} AS r CROSS JOIN LATERAL unnest(r.search_vector) AS u {{where}}
    UNION ALL
    SELECT r.id, 3, u.lexeme, r.user_id, r.project_id, {_TF}, r.window_length
    FROM {{rows}} AS r CROSS JOIN LATERAL unnest(r.window_vector) AS u
    {{where}} {{and}} r.document_id IS NULL;"""

CLAIM_POSTINGS = f"""
    INSERT INTO indexing_claim_posting (claim_id, term, user_id, tf, length)
    SELECT r.id, u.lexeme, r.user_id, {_TF}, cairn_tsvector_tokens(r.search_vector)
    FROM {{rows}} AS r CROSS JOIN LATERAL unnest(r.search_vector) AS u {{where}};"""


def _postings(template: str, rows: str, where: str = "") -> str:
    """``template`` over the rows of ``rows`` (a table or transition table), those
    matching ``where`` (a ``WHERE`` clause) when given."""
    return (
        template.replace("{rows}", rows)
        .replace("{where}", where)
        .replace("{and}", "AND" if where else "WHERE")
    )


def _differs(columns: tuple[str, ...]) -> str:
    return " OR ".join(f"o.{column} IS DISTINCT FROM r.{column}" for column in columns)


def _changed(other: str, columns: tuple[str, ...]) -> str:
    """Rows of which one of ``columns`` differs in ``other`` (the old or new rows)."""
    return f"WHERE EXISTS (SELECT 1 FROM {other} AS o WHERE o.id = r.id AND ({_differs(columns)}))"


def trigger_function_sql(
    name: str, table: str, key: str, template: str, columns: tuple[str, ...]
) -> str:
    """One plpgsql function serving the INSERT, DELETE and UPDATE triggers of a table
    whose postings live in ``table`` under the row's id in ``key``."""
    return f"""
CREATE OR REPLACE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
    IF TG_OP = 'INSERT' THEN
        {_postings(template, "new_rows")}
    ELSIF TG_OP = 'DELETE' THEN
        DELETE FROM {table} AS p USING old_rows AS r WHERE p.{key} = r.id;
    ELSE
        DELETE FROM {table} AS p USING old_rows AS r
            WHERE p.{key} = r.id AND EXISTS (
                SELECT 1 FROM new_rows AS o WHERE o.id = r.id AND ({_differs(columns)}));
        {_postings(template, "new_rows", _changed("old_rows", columns))}
    END IF;
    RETURN NULL;
END
$fn$;
"""


def triggers_sql(table: str, function: str) -> str:
    return f"""
DROP TRIGGER IF EXISTS {table}_postings_insert ON {table};
DROP TRIGGER IF EXISTS {table}_postings_delete ON {table};
DROP TRIGGER IF EXISTS {table}_postings_update ON {table};
CREATE TRIGGER {table}_postings_insert AFTER INSERT ON {table}
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION {function}();
CREATE TRIGGER {table}_postings_delete AFTER DELETE ON {table}
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION {function}();
CREATE TRIGGER {table}_postings_update AFTER UPDATE ON {table}
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION {function}();
"""


def backfill_sql(template: str, table: str) -> str:
    """Postings of the rows already there (the triggers see only later changes)."""
    return _postings(template, table)


CHUNK_COLUMNS = ("search_vector", "window_vector", "project_id", "user_id", "document_id")
CLAIM_COLUMNS = ("search_vector", "user_id")

FORWARD = (
    trigger_function_sql(
        "cairn_postings_chunk", "indexing_chunk_posting", "chunk_id", CHUNK_POSTINGS, CHUNK_COLUMNS
    )
    + trigger_function_sql(
        "cairn_postings_claim", "indexing_claim_posting", "claim_id", CLAIM_POSTINGS, CLAIM_COLUMNS
    )
    + triggers_sql("indexing_chunk", "cairn_postings_chunk")
    + triggers_sql("claims_claim", "cairn_postings_claim")
    + backfill_sql(CHUNK_POSTINGS, "indexing_chunk")
    + backfill_sql(CLAIM_POSTINGS, "claims_claim")
)
BACKWARD = """
DROP TRIGGER IF EXISTS indexing_chunk_postings_insert ON indexing_chunk;
DROP TRIGGER IF EXISTS indexing_chunk_postings_delete ON indexing_chunk;
DROP TRIGGER IF EXISTS indexing_chunk_postings_update ON indexing_chunk;
DROP TRIGGER IF EXISTS claims_claim_postings_insert ON claims_claim;
DROP TRIGGER IF EXISTS claims_claim_postings_delete ON claims_claim;
DROP TRIGGER IF EXISTS claims_claim_postings_update ON claims_claim;
DROP FUNCTION IF EXISTS cairn_postings_chunk();
DROP FUNCTION IF EXISTS cairn_postings_claim();
"""
