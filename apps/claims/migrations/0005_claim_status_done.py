from django.db import migrations, models


def done_is_not_retracted(apps, schema_editor):  # type: ignore[no-untyped-def]
    """Items completed before `done` existed were stored as retracted with metadata
    ``done: true``: they were finished, not wrong."""
    Claim = apps.get_model("claims", "Claim")
    Claim.objects.filter(status="retracted", metadata__contains={"done": True}).update(
        status="done"
    )


def done_back_to_retracted(apps, schema_editor):  # type: ignore[no-untyped-def]
    Claim = apps.get_model("claims", "Claim")
    Claim.objects.filter(status="done").update(status="retracted")


class Migration(migrations.Migration):
    dependencies = [
        ("claims", "0004_clamp_unreadable_timestamps"),
    ]

    operations = [
        migrations.AlterField(
            model_name="claim",
            name="status",
            field=models.CharField(
                choices=[
                    ("active", "Active"),
                    ("contested", "Contested"),
                    ("pending", "Pending review"),
                    ("retracted", "Retracted"),
                    ("superseded", "Superseded"),
                    ("done", "Done"),
                ],
                default="active",
                max_length=12,
            ),
        ),
        migrations.RunPython(done_is_not_retracted, done_back_to_retracted),
    ]
