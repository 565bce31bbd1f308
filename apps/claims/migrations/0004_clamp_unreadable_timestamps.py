from django.db import migrations

from apps.core.repair import timestamps_clamp


class Migration(migrations.Migration):
    """Claims (and every table before them) with a date Python cannot read (issue 15)."""

    dependencies = [("claims", "0003_claim_user_recent_index")]

    operations = [migrations.RunPython(timestamps_clamp, migrations.RunPython.noop)]
