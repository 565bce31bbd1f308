from django.db import migrations


class Migration(migrations.Migration):
    """A chat turn's row, with its window and the window's tsvector, is over PostgreSQL's
    2 kB TOAST threshold, and the embedding (1.5 kB, ``STORAGE EXTERNAL`` by pgvector's
    default) was the first value moved out of line: every exact comparison (a small
    account, the turns of a named month) then read each vector from the TOAST table.
    ``PLAIN`` keeps it in the row; the texts and tsvectors are still compressed or moved
    out as needed, so a row stays far below a page. Rows written before keep their
    layout until they are next written (``manage.py reindex`` rewrites every one)."""

    dependencies = [("indexing", "0008_chunk_said_at")]

    operations = [
        migrations.RunSQL(
            "ALTER TABLE indexing_chunk ALTER COLUMN embedding SET STORAGE PLAIN",
            "ALTER TABLE indexing_chunk ALTER COLUMN embedding SET STORAGE EXTERNAL",
        )
    ]
