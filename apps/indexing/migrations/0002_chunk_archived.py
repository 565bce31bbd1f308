from django.db import migrations, models


def copy_archived(apps, schema_editor):
    """Chunks of messages in conversations archived before the flag existed start hidden."""
    Chunk = apps.get_model("indexing", "Chunk")
    Chunk.objects.filter(message__conversation__archived=True).update(archived=True)


class Migration(migrations.Migration):
    dependencies = [
        ("indexing", "0001_initial"),
        ("chat", "0002_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="chunk",
            name="archived",
            field=models.BooleanField(default=False),
        ),
        migrations.RunPython(copy_archived, migrations.RunPython.noop),
    ]
