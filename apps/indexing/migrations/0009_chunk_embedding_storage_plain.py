from django.db import migrations


class Migration(migrations.Migration):
    """A chat turn's row, with its window and the window's tsvector, is over PostgreSQL's
    2 kB TOAST threshold, and the embedding (1.5 kB, ``STORAGE EXTERNAL`` by pgvector's
    default) was the first value moved out of line: every exact comparison (a small
    account, the turns of a named month) then read each vector from the TOAST table.
    ``PLAIN`` keeps it in the row; the texts and tsvectors are still compressed or moved
    out as needed, so a row stays far below a page. Rows written before keep their vector
    out of line until they are written again (a file or message indexed again, ``manage.py
    reindex --documents``, a model change): search is the same, their exact comparison
    only slower. Rewriting every row here would rebuild the HNSW entries of all of them."""

    dependencies = [("indexing", "0008_chunk_said_at")]

    operations = [
        migrations.RunSQL(
            "ALTER TABLE indexing_chunk ALTER COLUMN embedding SET STORAGE PLAIN",
            "ALTER TABLE indexing_chunk ALTER COLUMN embedding SET STORAGE EXTERNAL",
        )
    ]
