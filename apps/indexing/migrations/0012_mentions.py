"""The names, speakers and relations each chunk holds (``Mention``), for search to gather
the passages about the people a question names. The database deletes a chunk's mentions
with it (the model leaves the foreign key to this constraint, so that Django deletes chunks
without a query for their mentions). Chunks indexed before this migration have none until
``manage.py reindex --mentions`` reads them."""

import django.db.models.deletion
from django.db import migrations, models

CASCADE_FROM_CHUNK = (
    "ALTER TABLE indexing_mention ADD CONSTRAINT indexing_mention_chunk_fk "
    "FOREIGN KEY (chunk_id) REFERENCES indexing_chunk (id) ON DELETE CASCADE"
)


class Migration(migrations.Migration):
    dependencies = [
        ("indexing", "0011_document_dated_at"),
    ]

    operations = [
        migrations.CreateModel(
            name="Mention",
            fields=[
                ("id", models.BigAutoField(primary_key=True, serialize=False)),
                ("user_id", models.BigIntegerField()),
                ("key", models.CharField(max_length=130)),
                ("role", models.CharField(max_length=8)),
                ("alias", models.CharField(blank=True, default="", max_length=130)),
                (
                    "chunk",
                    models.ForeignKey(
                        db_constraint=False,
                        db_index=False,
                        on_delete=django.db.models.deletion.DO_NOTHING,
                        related_name="mentions",
                        to="indexing.chunk",
                    ),
                ),
            ],
            options={
                "db_table": "indexing_mention",
                "indexes": [
                    models.Index(fields=["user_id", "key", "role"], name="mention_user_key_idx"),
                    models.Index(fields=["chunk"], name="mention_chunk_idx"),
                ],
            },
        ),
        migrations.RunSQL(
            CASCADE_FROM_CHUNK,
            "ALTER TABLE indexing_mention DROP CONSTRAINT indexing_mention_chunk_fk",
        ),
    ]
