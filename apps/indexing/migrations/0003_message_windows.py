import django.contrib.postgres.indexes
import django.contrib.postgres.search
from django.db import migrations, models

from apps.indexing.lexical_triggers import backfill_sql, trigger_function_sql

# A message chunk counts twice: its turn alone (kind "message") and its window ("window").
CHUNK_SOURCES = [
    "r.project_id AS project_key, "
    "CASE WHEN r.document_id IS NULL THEN 'message' ELSE 'document' END AS kind, "
    "r.search_vector AS vector",
    "r.project_id AS project_key, 'window' AS kind, r.window_vector AS vector "
    "WHERE r.message_id IS NOT NULL",
]
WINDOWS_ONLY = [CHUNK_SOURCES[1]]

FORWARD = trigger_function_sql(
    "cairn_lexical_chunk", CHUNK_SOURCES, ["search_vector", "window_vector"]
) + backfill_sql("indexing_chunk", WINDOWS_ONLY)
BACKWARD = (
    "DELETE FROM indexing_lexical_collection WHERE kind = 'window';"
    "DELETE FROM indexing_lexical_term WHERE kind = 'window';"
    + trigger_function_sql("cairn_lexical_chunk", CHUNK_SOURCES[:1], ["search_vector"])
)


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
