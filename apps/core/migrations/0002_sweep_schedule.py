"""The sweep of the work ledger, every minute in django-q2's scheduler (apps/core/work.py)."""

from django.db import migrations

NAME = "cairn: sweep the work ledger"


def add(apps, schema_editor):
    Schedule = apps.get_model("django_q", "Schedule")
    Schedule.objects.update_or_create(
        name=NAME,
        defaults={
            "func": "apps.core.work.work_sweep",
            "schedule_type": "I",  # MINUTES
            "minutes": 1,
            "repeats": -1,
        },
    )


def remove(apps, schema_editor):
    apps.get_model("django_q", "Schedule").objects.filter(name=NAME).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("core", "0001_initial"),
        ("django_q", "0019_alter_task_options_alter_ormq_key_alter_ormq_lock_and_more"),
    ]

    operations = [migrations.RunPython(add, remove)]
