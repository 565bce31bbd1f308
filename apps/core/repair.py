"""Repairs of rows that earlier releases let in and that cannot be read back."""

from __future__ import annotations

from typing import Any

from django.db import models

from .validation import EARLIEST, LATEST


def timestamps_clamp(apps: Any, schema_editor: Any) -> None:
    """Bring every date and time outside EARLIEST..LATEST back to that range.

    The knowledge importer once accepted "0001-01-01T00:00:00+14:00": year 0 in UTC, which
    PostgreSQL stores and Python cannot read, so from then on that account's claim list,
    export and search failed. Clamping keeps the row (its text is what matters) and makes
    it readable; the input guard keeps new ones out. Runs over the models of the migration
    state it is given, so each table that exists at that point is repaired.
    """
    connection = schema_editor.connection
    quote = connection.ops.quote_name
    with connection.cursor() as cursor:
        for model in apps.get_models():
            for field in model._meta.local_fields:
                if not isinstance(field, models.DateTimeField):
                    continue
                table, column = quote(model._meta.db_table), quote(field.column)
                for bound, compare in ((EARLIEST, "<"), (LATEST, ">")):
                    cursor.execute(
                        f"UPDATE {table} SET {column} = %s WHERE {column} {compare} %s",  # noqa: S608 - quoted names from the models, bounds as parameters
                        [bound, bound],
                    )
