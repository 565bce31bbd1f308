from __future__ import annotations

from django.db import connection

from apps.claims.models import ClaimCounter


def claim_number_allocate(*, user_id: int) -> int:
    """The user's next claim number, race-free: one atomic upsert on the counter row.

    The row stays locked until the caller's transaction ends, so concurrent creations for
    one user are serialised and numbers come out 1…N without gaps or duplicates; other
    users are not blocked. A rolled-back creation gives its number back with it, so no
    committed number is ever reused.
    """
    table = ClaimCounter._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            INSERT INTO {table} (user_id, last_number) VALUES (%s, 1)
            ON CONFLICT (user_id) DO UPDATE SET last_number = {table}.last_number + 1
            RETURNING last_number
            """,  # noqa: S608 - table name from the model, values as parameters
            [user_id],
        )
        row = cursor.fetchone()
    assert row is not None
    return int(row[0])
