from typing import Any

from django.conf import settings
from django.db import migrations, transaction

# The SQL of apps/indexing/lexical_triggers.py and posting_triggers.py as this migration
# was written, frozen here (issue 27): what an upgrade runs does not follow later edits.
USER_LOCK_SQL = "SELECT pg_advisory_xact_lock(1919, (%s::bigint %% 2147483647)::integer)"
LAST_CHUNK_ID_SQL = (
    "SELECT coalesce(pg_sequence_last_value("
    "pg_get_serial_sequence('indexing_chunk', 'id')::regclass), 0)"
)
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


def pack_large_accounts(apps: Any, schema_editor: Any) -> None:
    """Accounts already large are packed now, as ``services.postings.postings_pack``
    would (their searches would otherwise read every posting from its row until the
    worker packs them): one account at a time, each in its own transaction, under the
    account's lock (a writer elsewhere waits for it, ~8 s per 100,000 chunks, and one that
    took its chunk id before is marked stale by the trigger, as during a packing). An
    account packed already is left alone, so running this again is harmless."""
    connection = schema_editor.connection
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT user_id, sum(rows) FROM indexing_lexical_collection "
            "WHERE kind IN ('document', 'message') GROUP BY user_id HAVING sum(rows) >= %s "
            "ORDER BY user_id",
            [int(settings.CAIRN_POSTINGS_PACK_MIN_ROWS)],
        )
        accounts = cursor.fetchall()
    for user_id, rows in accounts:
        with transaction.atomic(using=connection.alias), connection.cursor() as cursor:
            cursor.execute(USER_LOCK_SQL, [user_id])
            cursor.execute(
                "SELECT EXISTS (SELECT 1 FROM indexing_posting_pack_state WHERE user_id = %s)",
                [user_id],
            )
            if cursor.fetchone()[0]:
                continue
            cursor.execute(LAST_CHUNK_ID_SQL)
            (through,) = cursor.fetchone()
            cursor.execute(PACK_SQL, [user_id, through])
            cursor.execute(
                "INSERT INTO indexing_posting_pack_state "
                "(user_id, through, packing_through, packed_rows, packed_at) "
                "VALUES (%s, %s, %s, %s, now())",
                [user_id, through, through, rows],
            )


class Migration(migrations.Migration):
    # Each account commits alone (pack_large_accounts).
    atomic = False

    dependencies = [
        ('indexing', '0009_posting_packs'),
    ]

    operations = [
        migrations.RunPython(pack_large_accounts, migrations.RunPython.noop, elidable=True),
    ]
