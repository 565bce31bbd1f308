from django.db import migrations, models


class Migration(migrations.Migration):
    # Bulk loads that list their columns (the search bench's COPY) leave the flag out.

    dependencies = [
        ('indexing', '0002_chunk_archived'),
    ]

    operations = [
        migrations.AlterField(
            model_name='chunk',
            name='archived',
            field=models.BooleanField(db_default=False, default=False),
        ),
    ]
