"""The archived flag (one-way apps, issue 14) and BM25 with windows (issue 19), joined."""

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('indexing', '0003_chunk_archived_db_default'),
        ('indexing', '0005_chunk_token_lengths'),
    ]

    operations = [
    ]
