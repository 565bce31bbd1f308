"""Upgrading to the ledger of work (apps/core/work.py): whatever the queue was to do before,
and may have lost, is owed in the ledger, so nothing saved stays unindexed: documents still
waiting or being indexed, imports not finished, and chat messages that never got a chunk.
Every task is idempotent, so owing something already done only costs its re-run."""

from django.db import migrations

OWE = """
INSERT INTO core_work (task, args, key, "group", user_id, state, attempts, due_at,
                       error, outcome, created_at)
SELECT task, args, args::text, grp, NULL, 'due', 0, now(), '', '', now() FROM (
    SELECT 'apps.indexing.tasks.index_documents' AS task,
           jsonb_build_array(jsonb_build_array(d.id::text), false) AS args, '' AS grp
      FROM indexing_document d WHERE d.status IN ('pending', 'indexing')
    UNION ALL
    SELECT 'apps.chat.exports.tasks.chat_import_run',
           jsonb_build_array(i.id::text, 0), 'import:' || i.id::text
      FROM chat_chatimport i WHERE i.status NOT IN ('done', 'failed')
    UNION ALL
    SELECT 'apps.indexing.tasks.index_message', jsonb_build_array(m.id::text), ''
      FROM chat_message m
     WHERE m.chat_import_id IS NULL AND m.status = 'complete' AND m.content <> ''
       AND NOT EXISTS (SELECT 1 FROM indexing_chunk c WHERE c.message_id = m.id)
) owed
ON CONFLICT DO NOTHING
"""


class Migration(migrations.Migration):
    dependencies = [
        ("chat", "0005_message_notices"),
        ("core", "0001_initial"),
        ("indexing", "0010_pack_large_accounts"),
    ]

    operations = [migrations.RunSQL(OWE, migrations.RunSQL.noop)]
