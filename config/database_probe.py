"""Exercise the database and pgvector for real, and say in one sentence what failed.

"SELECT 1" and a row in ``pg_extension`` said the database was fine on machines where the
first vector write killed the server process. This probe does what Cairn does: computes
distances, builds an HNSW index and inserts into it, in a transaction that is rolled
back, so nothing is left behind. ``python -m config.serve`` (every role) runs it before
serving and ``manage.py check`` as a system check; never ``/healthz``, which is called every
few seconds and must stay cheap (``config/health.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.db import DatabaseError, connections, transaction

from config.embedded_db import EmbeddedDatabaseError


@dataclass(frozen=True)
class ProbeStep:
    description: str  # what was being done, as it reads in a sentence
    sql: str


# Each step uses the functions the old pgvector crashed in: array_to_vector, l2_normalize,
# cosine_distance, and the HNSW insert path that calls them.
STEPS: list[ProbeStep] = [
    ProbeStep(
        "computing a vector distance",
        "SELECT ARRAY[1, 2, 3]::real[]::vector(3) <=> '[3, 2, 1]'::vector(3), "
        "l2_normalize('[3, 4]'::vector(2)), '[1, 2]'::vector(2) <-> '[2, 1]'::vector(2)",
    ),
    ProbeStep(
        "creating an HNSW index",
        "CREATE TEMPORARY TABLE cairn_vector_probe (embedding vector(3)) ON COMMIT DROP; "
        "CREATE INDEX ON cairn_vector_probe USING hnsw (embedding vector_cosine_ops)",
    ),
    ProbeStep(
        "inserting into an HNSW index",
        "INSERT INTO cairn_vector_probe SELECT ARRAY[i, 100 - i, i % 7]::real[]::vector(3) "
        "FROM generate_series(1, 64) AS i",
    ),
    ProbeStep(
        "searching an HNSW index",
        "SET LOCAL enable_seqscan = off; SELECT embedding <=> '[1, 0, 0]' FROM "
        "cairn_vector_probe ORDER BY embedding <=> '[1, 0, 0]' LIMIT 3",
    ),
]


class DatabaseProblem(RuntimeError):
    """The database cannot serve Cairn; the message is one sentence a person can act on."""


def _is_embedded(alias: str) -> bool:
    return bool(settings.DATABASES[alias]["ENGINE"] == "config.embedded_pg")


def _first_line(error: BaseException) -> str:
    return (str(error).strip().splitlines() or [type(error).__name__])[0]


def _server_died(alias: str, error: BaseException) -> bool:
    """Whether the server process serving this connection is gone (crashed or killed)."""
    connection = connections[alias]
    raw = connection.connection
    if raw is None or getattr(raw, "closed", False):
        return True
    text = str(error)
    return any(
        sign in text
        for sign in (
            "server closed the connection unexpectedly",
            "terminating connection",
            "consuming input failed",
            "connection is lost",
        )
    )


def _died_message(alias: str, step: str) -> str:
    if _is_embedded(alias):
        return (
            f"The embedded database server's process died while {step}: its pgvector "
            "library (vector.so) most likely uses processor instructions this machine lacks. "
            "Run `.venv/bin/python -m config.cpu_guard` to see which, reinstall with "
            "`make clean setup`, or set DATABASE_URL to a PostgreSQL with pgvector 0.8 or newer."
        )
    return (
        f"The database server's process died while {step}: its pgvector build most likely "
        "does not fit this server's processor, or the server ran out of memory; see the "
        "PostgreSQL server's log."
    )


def probe_database(alias: str = "default") -> str:
    """Run ``STEPS``; return what works ("pgvector 0.8.6: …") or raise ``DatabaseProblem``."""
    connection = connections[alias]
    try:
        connection.ensure_connection()
    except EmbeddedDatabaseError as error:
        raise DatabaseProblem(str(error)) from error
    except DatabaseError as error:
        where = "the embedded server" if _is_embedded(alias) else "DATABASE_URL"
        raise DatabaseProblem(
            f"Cairn cannot connect to its database ({_first_line(error)}): check {where}."
        ) from error
    step = "reading the installed extensions"
    try:
        with transaction.atomic(using=alias), connection.cursor() as cursor:
            cursor.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
            row = cursor.fetchone()
            installed = row is not None
            if not installed:
                # Before the first migrate: try the library all the same, in this
                # transaction, so that migrate (which runs the checks first) can go on.
                step = "installing the vector extension"
                cursor.execute("CREATE EXTENSION vector")
                cursor.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
                row = cursor.fetchone()
            for probe in STEPS:
                step = probe.description
                cursor.execute(probe.sql)
            transaction.set_rollback(True, using=alias)
    except DatabaseError as error:
        died = _server_died(alias, error)
        if died:
            # Django would reuse the dead connection; the next caller gets a fresh one.
            connection.close()
            raise DatabaseProblem(_died_message(alias, step)) from error
        if step == "installing the vector extension":
            name = settings.DATABASES[alias]["NAME"]
            raise DatabaseProblem(
                f"The vector extension is not installed in the database {name} and could not "
                f"be ({_first_line(error)}): install pgvector 0.8 or newer on that server."
            ) from error
        raise DatabaseProblem(
            f"pgvector failed while {step} ({_first_line(error)}): the database's vector "
            "extension may be too old; Cairn needs pgvector 0.8 or newer."
        ) from error
    assert row is not None
    state = "" if installed else " (migrate installs it)"
    return f"pgvector {row[0]}{state}: distance, HNSW insert and search work"
