import django.contrib.postgres.indexes
import django.contrib.postgres.search
from django.db import migrations, models

# The SQL as this migration installs it, frozen here (issue 27): it was built by calling
# apps/indexing/lexical_triggers.py, so editing a builder changed what this migration did on a
# fresh database. The builders now write the SQL of the next migration, and
# tests/indexing/test_migration_sql.py checks the database holds what they build.
# A message chunk counts twice: its turn alone (kind "message") and its window ("window").
FORWARD = """
CREATE OR REPLACE FUNCTION cairn_lexical_chunk() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE
    emptied bigint[];
BEGIN
    IF TG_OP = 'INSERT' THEN

        PERFORM pg_advisory_xact_lock(1919, (users.u % 2147483647)::integer)
            FROM (SELECT DISTINCT user_id AS u FROM (SELECT r.user_id, r.project_id AS project_key, CASE WHEN r.document_id IS NULL THEN 'message' ELSE 'document' END AS kind, r.search_vector AS vector, 1 AS sign FROM new_rows AS r  UNION ALL SELECT r.user_id, r.project_id AS project_key, 'window' AS kind, r.window_vector AS vector, 1 AS sign FROM new_rows AS r  WHERE r.message_id IS NOT NULL) AS c ORDER BY 1) AS users;
        WITH changes AS (SELECT r.user_id, r.project_id AS project_key, CASE WHEN r.document_id IS NULL THEN 'message' ELSE 'document' END AS kind, r.search_vector AS vector, 1 AS sign FROM new_rows AS r  UNION ALL SELECT r.user_id, r.project_id AS project_key, 'window' AS kind, r.window_vector AS vector, 1 AS sign FROM new_rows AS r  WHERE r.message_id IS NOT NULL)
        INSERT INTO indexing_lexical_collection AS t (user_id, project_key, kind, rows, tokens)
            SELECT user_id, project_key, kind, sum(sign),
                   sum(sign * cairn_tsvector_tokens(vector))
            FROM changes GROUP BY 1, 2, 3 ORDER BY 1, 3, 2
            ON CONFLICT (user_id, kind, project_key) DO UPDATE
            SET rows = t.rows + excluded.rows, tokens = t.tokens + excluded.tokens;
        WITH changes AS (SELECT r.user_id, r.project_id AS project_key, CASE WHEN r.document_id IS NULL THEN 'message' ELSE 'document' END AS kind, r.search_vector AS vector, 1 AS sign FROM new_rows AS r  UNION ALL SELECT r.user_id, r.project_id AS project_key, 'window' AS kind, r.window_vector AS vector, 1 AS sign FROM new_rows AS r  WHERE r.message_id IS NOT NULL), up AS (
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
        WITH changes AS (SELECT r.user_id, r.project_id AS project_key, CASE WHEN r.document_id IS NULL THEN 'message' ELSE 'document' END AS kind, r.search_vector AS vector, 1 AS sign FROM new_rows AS r  UNION ALL SELECT r.user_id, r.project_id AS project_key, 'window' AS kind, r.window_vector AS vector, 1 AS sign FROM new_rows AS r  WHERE r.message_id IS NOT NULL)
        DELETE FROM indexing_lexical_collection AS t USING
            (SELECT DISTINCT user_id FROM changes WHERE sign < 0) AS c
            WHERE t.user_id = c.user_id AND t.rows <= 0;
    ELSIF TG_OP = 'DELETE' THEN

        PERFORM pg_advisory_xact_lock(1919, (users.u % 2147483647)::integer)
            FROM (SELECT DISTINCT user_id AS u FROM (SELECT r.user_id, r.project_id AS project_key, CASE WHEN r.document_id IS NULL THEN 'message' ELSE 'document' END AS kind, r.search_vector AS vector, -1 AS sign FROM old_rows AS r  UNION ALL SELECT r.user_id, r.project_id AS project_key, 'window' AS kind, r.window_vector AS vector, -1 AS sign FROM old_rows AS r  WHERE r.message_id IS NOT NULL) AS c ORDER BY 1) AS users;
        WITH changes AS (SELECT r.user_id, r.project_id AS project_key, CASE WHEN r.document_id IS NULL THEN 'message' ELSE 'document' END AS kind, r.search_vector AS vector, -1 AS sign FROM old_rows AS r  UNION ALL SELECT r.user_id, r.project_id AS project_key, 'window' AS kind, r.window_vector AS vector, -1 AS sign FROM old_rows AS r  WHERE r.message_id IS NOT NULL)
        INSERT INTO indexing_lexical_collection AS t (user_id, project_key, kind, rows, tokens)
            SELECT user_id, project_key, kind, sum(sign),
                   sum(sign * cairn_tsvector_tokens(vector))
            FROM changes GROUP BY 1, 2, 3 ORDER BY 1, 3, 2
            ON CONFLICT (user_id, kind, project_key) DO UPDATE
            SET rows = t.rows + excluded.rows, tokens = t.tokens + excluded.tokens;
        WITH changes AS (SELECT r.user_id, r.project_id AS project_key, CASE WHEN r.document_id IS NULL THEN 'message' ELSE 'document' END AS kind, r.search_vector AS vector, -1 AS sign FROM old_rows AS r  UNION ALL SELECT r.user_id, r.project_id AS project_key, 'window' AS kind, r.window_vector AS vector, -1 AS sign FROM old_rows AS r  WHERE r.message_id IS NOT NULL), up AS (
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
        WITH changes AS (SELECT r.user_id, r.project_id AS project_key, CASE WHEN r.document_id IS NULL THEN 'message' ELSE 'document' END AS kind, r.search_vector AS vector, -1 AS sign FROM old_rows AS r  UNION ALL SELECT r.user_id, r.project_id AS project_key, 'window' AS kind, r.window_vector AS vector, -1 AS sign FROM old_rows AS r  WHERE r.message_id IS NOT NULL)
        DELETE FROM indexing_lexical_collection AS t USING
            (SELECT DISTINCT user_id FROM changes WHERE sign < 0) AS c
            WHERE t.user_id = c.user_id AND t.rows <= 0;
    ELSE

        PERFORM pg_advisory_xact_lock(1919, (users.u % 2147483647)::integer)
            FROM (SELECT DISTINCT user_id AS u FROM (SELECT r.user_id, r.project_id AS project_key, CASE WHEN r.document_id IS NULL THEN 'message' ELSE 'document' END AS kind, r.search_vector AS vector, 1 AS sign FROM new_rows AS r JOIN old_rows AS o ON o.id = r.id AND (o.search_vector IS DISTINCT FROM r.search_vector OR o.window_vector IS DISTINCT FROM r.window_vector) UNION ALL SELECT r.user_id, r.project_id AS project_key, 'window' AS kind, r.window_vector AS vector, 1 AS sign FROM new_rows AS r JOIN old_rows AS o ON o.id = r.id AND (o.search_vector IS DISTINCT FROM r.search_vector OR o.window_vector IS DISTINCT FROM r.window_vector) WHERE r.message_id IS NOT NULL UNION ALL SELECT r.user_id, r.project_id AS project_key, CASE WHEN r.document_id IS NULL THEN 'message' ELSE 'document' END AS kind, r.search_vector AS vector, -1 AS sign FROM old_rows AS r JOIN new_rows AS o ON o.id = r.id AND (o.search_vector IS DISTINCT FROM r.search_vector OR o.window_vector IS DISTINCT FROM r.window_vector) UNION ALL SELECT r.user_id, r.project_id AS project_key, 'window' AS kind, r.window_vector AS vector, -1 AS sign FROM old_rows AS r JOIN new_rows AS o ON o.id = r.id AND (o.search_vector IS DISTINCT FROM r.search_vector OR o.window_vector IS DISTINCT FROM r.window_vector) WHERE r.message_id IS NOT NULL) AS c ORDER BY 1) AS users;
        WITH changes AS (SELECT r.user_id, r.project_id AS project_key, CASE WHEN r.document_id IS NULL THEN 'message' ELSE 'document' END AS kind, r.search_vector AS vector, 1 AS sign FROM new_rows AS r JOIN old_rows AS o ON o.id = r.id AND (o.search_vector IS DISTINCT FROM r.search_vector OR o.window_vector IS DISTINCT FROM r.window_vector) UNION ALL SELECT r.user_id, r.project_id AS project_key, 'window' AS kind, r.window_vector AS vector, 1 AS sign FROM new_rows AS r JOIN old_rows AS o ON o.id = r.id AND (o.search_vector IS DISTINCT FROM r.search_vector OR o.window_vector IS DISTINCT FROM r.window_vector) WHERE r.message_id IS NOT NULL UNION ALL SELECT r.user_id, r.project_id AS project_key, CASE WHEN r.document_id IS NULL THEN 'message' ELSE 'document' END AS kind, r.search_vector AS vector, -1 AS sign FROM old_rows AS r JOIN new_rows AS o ON o.id = r.id AND (o.search_vector IS DISTINCT FROM r.search_vector OR o.window_vector IS DISTINCT FROM r.window_vector) UNION ALL SELECT r.user_id, r.project_id AS project_key, 'window' AS kind, r.window_vector AS vector, -1 AS sign FROM old_rows AS r JOIN new_rows AS o ON o.id = r.id AND (o.search_vector IS DISTINCT FROM r.search_vector OR o.window_vector IS DISTINCT FROM r.window_vector) WHERE r.message_id IS NOT NULL)
        INSERT INTO indexing_lexical_collection AS t (user_id, project_key, kind, rows, tokens)
            SELECT user_id, project_key, kind, sum(sign),
                   sum(sign * cairn_tsvector_tokens(vector))
            FROM changes GROUP BY 1, 2, 3 ORDER BY 1, 3, 2
            ON CONFLICT (user_id, kind, project_key) DO UPDATE
            SET rows = t.rows + excluded.rows, tokens = t.tokens + excluded.tokens;
        WITH changes AS (SELECT r.user_id, r.project_id AS project_key, CASE WHEN r.document_id IS NULL THEN 'message' ELSE 'document' END AS kind, r.search_vector AS vector, 1 AS sign FROM new_rows AS r JOIN old_rows AS o ON o.id = r.id AND (o.search_vector IS DISTINCT FROM r.search_vector OR o.window_vector IS DISTINCT FROM r.window_vector) UNION ALL SELECT r.user_id, r.project_id AS project_key, 'window' AS kind, r.window_vector AS vector, 1 AS sign FROM new_rows AS r JOIN old_rows AS o ON o.id = r.id AND (o.search_vector IS DISTINCT FROM r.search_vector OR o.window_vector IS DISTINCT FROM r.window_vector) WHERE r.message_id IS NOT NULL UNION ALL SELECT r.user_id, r.project_id AS project_key, CASE WHEN r.document_id IS NULL THEN 'message' ELSE 'document' END AS kind, r.search_vector AS vector, -1 AS sign FROM old_rows AS r JOIN new_rows AS o ON o.id = r.id AND (o.search_vector IS DISTINCT FROM r.search_vector OR o.window_vector IS DISTINCT FROM r.window_vector) UNION ALL SELECT r.user_id, r.project_id AS project_key, 'window' AS kind, r.window_vector AS vector, -1 AS sign FROM old_rows AS r JOIN new_rows AS o ON o.id = r.id AND (o.search_vector IS DISTINCT FROM r.search_vector OR o.window_vector IS DISTINCT FROM r.window_vector) WHERE r.message_id IS NOT NULL), up AS (
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
        WITH changes AS (SELECT r.user_id, r.project_id AS project_key, CASE WHEN r.document_id IS NULL THEN 'message' ELSE 'document' END AS kind, r.search_vector AS vector, 1 AS sign FROM new_rows AS r JOIN old_rows AS o ON o.id = r.id AND (o.search_vector IS DISTINCT FROM r.search_vector OR o.window_vector IS DISTINCT FROM r.window_vector) UNION ALL SELECT r.user_id, r.project_id AS project_key, 'window' AS kind, r.window_vector AS vector, 1 AS sign FROM new_rows AS r JOIN old_rows AS o ON o.id = r.id AND (o.search_vector IS DISTINCT FROM r.search_vector OR o.window_vector IS DISTINCT FROM r.window_vector) WHERE r.message_id IS NOT NULL UNION ALL SELECT r.user_id, r.project_id AS project_key, CASE WHEN r.document_id IS NULL THEN 'message' ELSE 'document' END AS kind, r.search_vector AS vector, -1 AS sign FROM old_rows AS r JOIN new_rows AS o ON o.id = r.id AND (o.search_vector IS DISTINCT FROM r.search_vector OR o.window_vector IS DISTINCT FROM r.window_vector) UNION ALL SELECT r.user_id, r.project_id AS project_key, 'window' AS kind, r.window_vector AS vector, -1 AS sign FROM old_rows AS r JOIN new_rows AS o ON o.id = r.id AND (o.search_vector IS DISTINCT FROM r.search_vector OR o.window_vector IS DISTINCT FROM r.window_vector) WHERE r.message_id IS NOT NULL)
        DELETE FROM indexing_lexical_collection AS t USING
            (SELECT DISTINCT user_id FROM changes WHERE sign < 0) AS c
            WHERE t.user_id = c.user_id AND t.rows <= 0;
    END IF;
    RETURN NULL;
END
$fn$;

DO $do$
DECLARE
    emptied bigint[];
BEGIN

        PERFORM pg_advisory_xact_lock(1919, (users.u % 2147483647)::integer)
            FROM (SELECT DISTINCT user_id AS u FROM (SELECT r.user_id, r.project_id AS project_key, 'window' AS kind, r.window_vector AS vector, 1 AS sign FROM indexing_chunk AS r  WHERE r.message_id IS NOT NULL) AS c ORDER BY 1) AS users;
        WITH changes AS (SELECT r.user_id, r.project_id AS project_key, 'window' AS kind, r.window_vector AS vector, 1 AS sign FROM indexing_chunk AS r  WHERE r.message_id IS NOT NULL)
        INSERT INTO indexing_lexical_collection AS t (user_id, project_key, kind, rows, tokens)
            SELECT user_id, project_key, kind, sum(sign),
                   sum(sign * cairn_tsvector_tokens(vector))
            FROM changes GROUP BY 1, 2, 3 ORDER BY 1, 3, 2
            ON CONFLICT (user_id, kind, project_key) DO UPDATE
            SET rows = t.rows + excluded.rows, tokens = t.tokens + excluded.tokens;
        WITH changes AS (SELECT r.user_id, r.project_id AS project_key, 'window' AS kind, r.window_vector AS vector, 1 AS sign FROM indexing_chunk AS r  WHERE r.message_id IS NOT NULL), up AS (
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
        WITH changes AS (SELECT r.user_id, r.project_id AS project_key, 'window' AS kind, r.window_vector AS vector, 1 AS sign FROM indexing_chunk AS r  WHERE r.message_id IS NOT NULL)
        DELETE FROM indexing_lexical_collection AS t USING
            (SELECT DISTINCT user_id FROM changes WHERE sign < 0) AS c
            WHERE t.user_id = c.user_id AND t.rows <= 0;
END
$do$;
"""
BACKWARD = """DELETE FROM indexing_lexical_collection WHERE kind = 'window';DELETE FROM indexing_lexical_term WHERE kind = 'window';
CREATE OR REPLACE FUNCTION cairn_lexical_chunk() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE
    emptied bigint[];
BEGIN
    IF TG_OP = 'INSERT' THEN

        PERFORM pg_advisory_xact_lock(1919, (users.u % 2147483647)::integer)
            FROM (SELECT DISTINCT user_id AS u FROM (SELECT r.user_id, r.project_id AS project_key, CASE WHEN r.document_id IS NULL THEN 'message' ELSE 'document' END AS kind, r.search_vector AS vector, 1 AS sign FROM new_rows AS r ) AS c ORDER BY 1) AS users;
        WITH changes AS (SELECT r.user_id, r.project_id AS project_key, CASE WHEN r.document_id IS NULL THEN 'message' ELSE 'document' END AS kind, r.search_vector AS vector, 1 AS sign FROM new_rows AS r )
        INSERT INTO indexing_lexical_collection AS t (user_id, project_key, kind, rows, tokens)
            SELECT user_id, project_key, kind, sum(sign),
                   sum(sign * cairn_tsvector_tokens(vector))
            FROM changes GROUP BY 1, 2, 3 ORDER BY 1, 3, 2
            ON CONFLICT (user_id, kind, project_key) DO UPDATE
            SET rows = t.rows + excluded.rows, tokens = t.tokens + excluded.tokens;
        WITH changes AS (SELECT r.user_id, r.project_id AS project_key, CASE WHEN r.document_id IS NULL THEN 'message' ELSE 'document' END AS kind, r.search_vector AS vector, 1 AS sign FROM new_rows AS r ), up AS (
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
        WITH changes AS (SELECT r.user_id, r.project_id AS project_key, CASE WHEN r.document_id IS NULL THEN 'message' ELSE 'document' END AS kind, r.search_vector AS vector, 1 AS sign FROM new_rows AS r )
        DELETE FROM indexing_lexical_collection AS t USING
            (SELECT DISTINCT user_id FROM changes WHERE sign < 0) AS c
            WHERE t.user_id = c.user_id AND t.rows <= 0;
    ELSIF TG_OP = 'DELETE' THEN

        PERFORM pg_advisory_xact_lock(1919, (users.u % 2147483647)::integer)
            FROM (SELECT DISTINCT user_id AS u FROM (SELECT r.user_id, r.project_id AS project_key, CASE WHEN r.document_id IS NULL THEN 'message' ELSE 'document' END AS kind, r.search_vector AS vector, -1 AS sign FROM old_rows AS r ) AS c ORDER BY 1) AS users;
        WITH changes AS (SELECT r.user_id, r.project_id AS project_key, CASE WHEN r.document_id IS NULL THEN 'message' ELSE 'document' END AS kind, r.search_vector AS vector, -1 AS sign FROM old_rows AS r )
        INSERT INTO indexing_lexical_collection AS t (user_id, project_key, kind, rows, tokens)
            SELECT user_id, project_key, kind, sum(sign),
                   sum(sign * cairn_tsvector_tokens(vector))
            FROM changes GROUP BY 1, 2, 3 ORDER BY 1, 3, 2
            ON CONFLICT (user_id, kind, project_key) DO UPDATE
            SET rows = t.rows + excluded.rows, tokens = t.tokens + excluded.tokens;
        WITH changes AS (SELECT r.user_id, r.project_id AS project_key, CASE WHEN r.document_id IS NULL THEN 'message' ELSE 'document' END AS kind, r.search_vector AS vector, -1 AS sign FROM old_rows AS r ), up AS (
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
        WITH changes AS (SELECT r.user_id, r.project_id AS project_key, CASE WHEN r.document_id IS NULL THEN 'message' ELSE 'document' END AS kind, r.search_vector AS vector, -1 AS sign FROM old_rows AS r )
        DELETE FROM indexing_lexical_collection AS t USING
            (SELECT DISTINCT user_id FROM changes WHERE sign < 0) AS c
            WHERE t.user_id = c.user_id AND t.rows <= 0;
    ELSE

        PERFORM pg_advisory_xact_lock(1919, (users.u % 2147483647)::integer)
            FROM (SELECT DISTINCT user_id AS u FROM (SELECT r.user_id, r.project_id AS project_key, CASE WHEN r.document_id IS NULL THEN 'message' ELSE 'document' END AS kind, r.search_vector AS vector, 1 AS sign FROM new_rows AS r JOIN old_rows AS o ON o.id = r.id AND (o.search_vector IS DISTINCT FROM r.search_vector) UNION ALL SELECT r.user_id, r.project_id AS project_key, CASE WHEN r.document_id IS NULL THEN 'message' ELSE 'document' END AS kind, r.search_vector AS vector, -1 AS sign FROM old_rows AS r JOIN new_rows AS o ON o.id = r.id AND (o.search_vector IS DISTINCT FROM r.search_vector)) AS c ORDER BY 1) AS users;
        WITH changes AS (SELECT r.user_id, r.project_id AS project_key, CASE WHEN r.document_id IS NULL THEN 'message' ELSE 'document' END AS kind, r.search_vector AS vector, 1 AS sign FROM new_rows AS r JOIN old_rows AS o ON o.id = r.id AND (o.search_vector IS DISTINCT FROM r.search_vector) UNION ALL SELECT r.user_id, r.project_id AS project_key, CASE WHEN r.document_id IS NULL THEN 'message' ELSE 'document' END AS kind, r.search_vector AS vector, -1 AS sign FROM old_rows AS r JOIN new_rows AS o ON o.id = r.id AND (o.search_vector IS DISTINCT FROM r.search_vector))
        INSERT INTO indexing_lexical_collection AS t (user_id, project_key, kind, rows, tokens)
            SELECT user_id, project_key, kind, sum(sign),
                   sum(sign * cairn_tsvector_tokens(vector))
            FROM changes GROUP BY 1, 2, 3 ORDER BY 1, 3, 2
            ON CONFLICT (user_id, kind, project_key) DO UPDATE
            SET rows = t.rows + excluded.rows, tokens = t.tokens + excluded.tokens;
        WITH changes AS (SELECT r.user_id, r.project_id AS project_key, CASE WHEN r.document_id IS NULL THEN 'message' ELSE 'document' END AS kind, r.search_vector AS vector, 1 AS sign FROM new_rows AS r JOIN old_rows AS o ON o.id = r.id AND (o.search_vector IS DISTINCT FROM r.search_vector) UNION ALL SELECT r.user_id, r.project_id AS project_key, CASE WHEN r.document_id IS NULL THEN 'message' ELSE 'document' END AS kind, r.search_vector AS vector, -1 AS sign FROM old_rows AS r JOIN new_rows AS o ON o.id = r.id AND (o.search_vector IS DISTINCT FROM r.search_vector)), up AS (
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
        WITH changes AS (SELECT r.user_id, r.project_id AS project_key, CASE WHEN r.document_id IS NULL THEN 'message' ELSE 'document' END AS kind, r.search_vector AS vector, 1 AS sign FROM new_rows AS r JOIN old_rows AS o ON o.id = r.id AND (o.search_vector IS DISTINCT FROM r.search_vector) UNION ALL SELECT r.user_id, r.project_id AS project_key, CASE WHEN r.document_id IS NULL THEN 'message' ELSE 'document' END AS kind, r.search_vector AS vector, -1 AS sign FROM old_rows AS r JOIN new_rows AS o ON o.id = r.id AND (o.search_vector IS DISTINCT FROM r.search_vector))
        DELETE FROM indexing_lexical_collection AS t USING
            (SELECT DISTINCT user_id FROM changes WHERE sign < 0) AS c
            WHERE t.user_id = c.user_id AND t.rows <= 0;
    END IF;
    RETURN NULL;
END
$fn$;
"""


class Migration(migrations.Migration):
    dependencies = [
        ("indexing", "0002_lexical_statistics"),
    ]

    operations = [
        migrations.AddField(
            model_name="chunk",
            name="context",
            field=models.TextField(blank=True, default=""),
        ),
        migrations.AddField(
            model_name="chunk",
            name="window_vector",
            field=models.GeneratedField(
                db_persist=True,
                expression=django.contrib.postgres.search.SearchVector(
                    "text", "context", config="english"
                ),
                output_field=django.contrib.postgres.search.SearchVectorField(),
            ),
        ),
        migrations.AddIndex(
            model_name="chunk",
            index=django.contrib.postgres.indexes.GinIndex(
                fields=["window_vector"], name="chunk_window_vector_idx"
            ),
        ),
        migrations.RunSQL(FORWARD, BACKWARD),
    ]
