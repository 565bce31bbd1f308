"""The statements chat turns make, told of their speaker (``MemoryUnit``), searched beside
the turns. The database deletes a chunk's units with it (as its mentions, 0012). Chunks
indexed before this migration have none until ``manage.py reindex --units`` reads them."""

import django.db.models.deletion
import pgvector.django
from django.db import migrations, models

CASCADE_FROM_CHUNK = (
    "ALTER TABLE indexing_unit ADD CONSTRAINT indexing_unit_chunk_fk "
    "FOREIGN KEY (chunk_id) REFERENCES indexing_chunk (id) ON DELETE CASCADE"
)


class Migration(migrations.Migration):
    dependencies = [
        ("indexing", "0013_mention_covering_index"),
    ]

    operations = [
        migrations.CreateModel(
            name="MemoryUnit",
            fields=[
                ("id", models.BigAutoField(primary_key=True, serialize=False)),
                ("user_id", models.BigIntegerField()),
                ("text", models.TextField()),
                ("embedding", pgvector.django.VectorField(dimensions=384)),
                (
                    "chunk",
                    models.ForeignKey(
                        db_constraint=False,
                        db_index=False,
                        on_delete=django.db.models.deletion.DO_NOTHING,
                        related_name="units",
                        to="indexing.chunk",
                    ),
                ),
            ],
            options={
                "db_table": "indexing_unit",
                "indexes": [
                    models.Index(fields=["user_id"], name="unit_user_idx"),
                    models.Index(fields=["chunk"], name="unit_chunk_idx"),
                    pgvector.django.HnswIndex(
                        ef_construction=64,
                        fields=["embedding"],
                        m=16,
                        name="unit_embedding_hnsw_idx",
                        opclasses=["vector_cosine_ops"],
                    ),
                ],
            },
        ),
        migrations.RunSQL(
            CASCADE_FROM_CHUNK,
            "ALTER TABLE indexing_unit DROP CONSTRAINT indexing_unit_chunk_fk",
        ),
    ]
