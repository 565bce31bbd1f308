"""The SQL that keeps BM25's postings current (``ChunkPosting``, ``ClaimPosting``).

Statement-level triggers on the chunk and claim tables read the rows a statement inserted,
deleted or changed (transition tables, so a bulk insert or a ``COPY`` is one statement,
not one per row) and write one posting per lexeme of each row's ``tsvector``, in the same
transaction as the rows. An update replaces the postings of the rows whose text, window or
project changed. Plain PostgreSQL, no extension.

Each posting table has one index, its primary key, which is also what search reads: keyed
by user, term (and kind) then row, carrying the term frequency and length as included
columns, so a query reads a term's postings without visiting the table, and a deleted
row's postings are found from its own lexemes by exact probes. A second index keyed by row
would make every write to the index twice: it cost a third of the import speed.

Migrations carry the SQL these build as literal text (``triggers``: what the database holds
now, and how a change reaches it).
"""

from __future__ import annotations

from dataclasses import dataclass

from .lexical_triggers import LOCK_CLASS

# A term frequency above this is stored as this: smallint, and BM25's saturation makes the
# difference between 32,767 occurrences and more immaterial.
TF_MAX = 32767

_TF = f"least(greatest(cardinality(u.positions), 1), {TF_MAX})"


@dataclass(frozen=True)
class PostingTable:
    """How one table's rows become postings: ``rows`` selects the postings' ``columns``
    from ``{rows}`` (a table or transition table) filtered by ``{where}``; ``key`` is the
    primary key, ``include`` what it carries for index-only reads."""

    table: str
    columns: tuple[str, ...]
    key: tuple[str, ...]
    include: tuple[str, ...]
    rows: str
    changed: tuple[str, ...]  # the source columns whose change replaces a row's postings

    def insert(self, rows: str, where: str = "") -> str:
        return (
            f"INSERT INTO {self.table} ({', '.join(self.columns)}) {_over(self.rows, rows, where)};"
        )

    def delete(self, rows: str, where: str = "") -> str:
        matches = " AND ".join(f"p.{column} = o.{column}" for column in self.key)
        return (
            f"DELETE FROM {self.table} AS p USING ({_over(self.rows, rows, where)}) AS o "  # noqa: S608 - trigger SQL from code, it takes no values
            f"WHERE {matches};"
        )

    def primary_key_sql(self) -> str:
        """Django names the key; this gives it the included columns it cannot express."""
        return (
            f"ALTER TABLE {self.table} DROP CONSTRAINT {self.table}_pkey, "
            f"ADD CONSTRAINT {self.table}_pkey PRIMARY KEY ({', '.join(self.key)}) "
            f"INCLUDE ({', '.join(self.include)});"
        )


CHUNK = PostingTable(
    table="indexing_chunk_posting",
    columns=("user_id", "term", "kind", "chunk_id", "project_id", "tf", "length"),
    key=("user_id", "term", "kind", "chunk_id"),
    include=("project_id", "tf", "length"),
    rows=(
        "SELECT r.user_id, u.lexeme AS term, "  # noqa: S608 - trigger SQL from code, it takes no values
        "CASE WHEN r.document_id IS NULL THEN 2 ELSE 1 END AS kind, r.id AS chunk_id, "
        f"r.project_id, {_TF} AS tf, r.search_length AS length "
        "FROM {rows} AS r CROSS JOIN LATERAL unnest(r.search_vector) AS u {where} "
        "UNION ALL "
        "SELECT r.user_id, u.lexeme, 3, r.id, r.project_id, "
        f"{_TF}, r.window_length "
        "FROM {rows} AS r CROSS JOIN LATERAL unnest(r.window_vector) AS u "
        "{where} {and} r.document_id IS NULL"
    ),
    changed=("search_vector", "window_vector", "project_id", "user_id", "document_id"),
)

CLAIM = PostingTable(
    table="indexing_claim_posting",
    columns=("user_id", "term", "claim_id", "tf", "length"),
    key=("user_id", "term", "claim_id"),
    include=("tf", "length"),
    rows=(
        "SELECT r.user_id, u.lexeme AS term, r.id AS claim_id, "  # noqa: S608 - trigger SQL from code, it takes no values
        f"{_TF} AS tf, cairn_tsvector_tokens(r.search_vector) AS length "
        "FROM {rows} AS r CROSS JOIN LATERAL unnest(r.search_vector) AS u {where}"
    ),
    changed=("search_vector", "user_id"),
)


def _over(template: str, rows: str, where: str) -> str:
    """``template`` over the rows of ``rows``, those matching ``where`` (a ``WHERE``
    clause) when given."""
    return (
        template.replace("{rows}", rows)
        .replace("{where}", where)
        .replace("{and}", "AND" if where else "WHERE")
    )


def _changed(other: str, columns: tuple[str, ...]) -> str:
    """Rows of which one of ``columns`` differs in ``other`` (the old or new rows)."""
    differs = " OR ".join(f"o.{column} IS DISTINCT FROM r.{column}" for column in columns)
    return f"WHERE EXISTS (SELECT 1 FROM {other} AS o WHERE o.id = r.id AND ({differs}))"  # noqa: S608 - trigger SQL from code, it takes no values


def trigger_function_sql(name: str, postings: PostingTable) -> str:
    """One plpgsql function serving the INSERT, DELETE and UPDATE triggers of a table."""
    return f"""
CREATE OR REPLACE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
    IF TG_OP = 'INSERT' THEN
        {postings.insert("new_rows")}
    ELSIF TG_OP = 'DELETE' THEN
        {postings.delete("old_rows")}
    ELSE
        {postings.delete("old_rows", _changed("new_rows", postings.changed))}
        {postings.insert("new_rows", _changed("old_rows", postings.changed))}
    END IF;
    RETURN NULL;
END
$fn$;
"""


# The greatest chunk id handed out so far (0 before the first): what a packing covers.
LAST_CHUNK_ID_SQL = (
    "SELECT coalesce(pg_sequence_last_value("
    "pg_get_serial_sequence('indexing_chunk', 'id')::regclass), 0)"
)
# A user's (first ``%s``) postings of chunks up to an id (second ``%s``) packed, one row per
# term, kind and project; each aggregate orders by chunk, so the three arrays line up.
PACK_SQL = (
    "INSERT INTO indexing_posting_pack "
    "(user_id, term, kind, project_id, chunk_ids, tfs, lengths) "
    "SELECT user_id, term, kind, project_id, "
    "string_agg(int8send(chunk_id), ''::bytea ORDER BY chunk_id), "
    "string_agg(int2send(tf), ''::bytea ORDER BY chunk_id), "
    "string_agg(int4send(length), ''::bytea ORDER BY chunk_id) "
    "FROM indexing_chunk_posting WHERE user_id = %s AND chunk_id <= %s "
    "GROUP BY user_id, term, kind, project_id"
)


def _stale(marked: str, *, gone: bool = False) -> str:
    """Mark the chunks ``marked`` selects (``user_id, id`` pairs) that a packing covers, or
    is about to (``PostingStale``): search then reads their postings from ``ChunkPosting``,
    not from the packs. The users' statistics lock is taken first, in user order (as
    ``lexical_triggers`` takes it, and a packing to fix ``packing_through``), so the state
    read here is the latest. That holds for writers at READ COMMITTED, PostgreSQL's and
    Django's default, where each statement sees what committed before it began; a writer
    at REPEATABLE READ would read the state of its snapshot and could miss a packing."""
    return f"""
        PERFORM pg_advisory_xact_lock({LOCK_CLASS}, (users.u % 2147483647)::integer)
            FROM (SELECT DISTINCT m.user_id AS u FROM ({marked}) AS m ORDER BY 1) AS users;
        INSERT INTO indexing_posting_stale (user_id, chunk_id, gone)
            SELECT DISTINCT m.user_id, m.id, {str(gone).upper()} FROM ({marked}) AS m
            JOIN indexing_posting_pack_state AS s
              ON s.user_id = m.user_id AND m.id <= s.packing_through;"""  # noqa: S608 - trigger SQL from code, it takes no values


def _pairs(rows: str, where: str = "") -> str:
    return f"SELECT r.user_id, r.id FROM {rows} AS r {where}"  # noqa: S608 - trigger SQL from code, it takes no values


# Once the last chunk of a user's project (or of the user) is gone, so are its packs (and
# the user's marks and state): an account or project deleted leaves none of its words. A
# packed chunk deleted while others remain is only marked, until the next packing. Whether
# any remain is read from the statistics (``lexical_triggers``, whose trigger has run for
# this statement already: its name sorts first), once per project and user, not from the
# chunk table, whose index still holds the entries this transaction deleted.
def _emptied(columns: str, project: str) -> str:
    return (
        f"WITH gone AS MATERIALIZED (SELECT o.* FROM (SELECT DISTINCT {columns} "  # noqa: S608 - trigger SQL from code, it takes no values
        "FROM old_rows) AS o WHERE NOT EXISTS (SELECT 1 FROM indexing_lexical_collection "
        "AS c WHERE c.user_id = o.user_id AND c.kind IN ('document', 'message') "
        f"{project}))"
    )


_DROP_EMPTIED = f"""
        {_emptied("user_id, project_id", "AND c.project_key = o.project_id")}
        DELETE FROM indexing_posting_pack AS k USING gone
            WHERE k.user_id = gone.user_id AND k.project_id = gone.project_id;
        {_emptied("user_id", "")}
        DELETE FROM indexing_posting_stale AS t USING gone WHERE t.user_id = gone.user_id;
        {_emptied("user_id", "")}
        DELETE FROM indexing_posting_pack_state AS t USING gone WHERE t.user_id = gone.user_id;"""  # noqa: S608 - trigger SQL from code, it takes no values


def packed_chunk_function_sql(name: str = "cairn_postings_chunk") -> str:
    """The chunk table's trigger function once postings are also packed (migration 0009):
    as ``trigger_function_sql``, and every chunk written, deleted or changed that a pack
    covers is marked stale in the same transaction (a changed one once, under its old
    owner and its new)."""
    changed_old = _changed("new_rows", CHUNK.changed)
    changed_new = _changed("old_rows", CHUNK.changed)
    changed = f"{_pairs('old_rows', changed_old)} UNION {_pairs('new_rows', changed_new)}"
    return f"""
CREATE OR REPLACE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
    IF TG_OP = 'INSERT' THEN
        {_stale(_pairs("new_rows"))}
        {CHUNK.insert("new_rows")}
    ELSIF TG_OP = 'DELETE' THEN
        {_stale(_pairs("old_rows"), gone=True)}
        {CHUNK.delete("old_rows")}
        {_DROP_EMPTIED}
    ELSE
        {_stale(changed)}
        {CHUNK.delete("old_rows", changed_old)}
        {CHUNK.insert("new_rows", changed_new)}
    END IF;
    RETURN NULL;
END
$fn$;
"""
