"""The database probe behind `python -m config.serve` and `manage.py check` (issue 13);
`/healthz` stays cheap and never runs it (tests/config/test_health.py).

It does what Cairn does with pgvector (distances, an HNSW insert and search) and turns a
server process that dies into one sentence. The stand-in for a crash is a backend that
terminates itself mid-probe: the client sees exactly what it sees after "Illegal
instruction", a connection closed under it.
"""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.db import connection

from config import database_probe
from config.database_probe import DatabaseProblem, ProbeStep, probe_database

KILL_OWN_BACKEND = "SELECT pg_terminate_backend(pg_backend_pid())"


@pytest.fixture
def crashing_hnsw_insert(monkeypatch: pytest.MonkeyPatch) -> None:
    steps = [
        ProbeStep(step.description, KILL_OWN_BACKEND)
        if step.description == "inserting into an HNSW index"
        else step
        for step in database_probe.STEPS
    ]
    monkeypatch.setattr(database_probe, "STEPS", steps)


@pytest.mark.django_db
def test_the_probe_uses_pgvector_for_real_and_leaves_nothing_behind() -> None:
    detail = probe_database()

    assert detail.startswith("pgvector 0.8.6: ")
    with connection.cursor() as cursor:
        cursor.execute("SELECT to_regclass('cairn_vector_probe')")
        assert cursor.fetchone() == (None,)


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("crashing_hnsw_insert")
def test_a_server_process_that_dies_is_one_sentence_and_the_next_call_reconnects() -> None:
    with pytest.raises(DatabaseProblem) as problem:
        probe_database()

    assert str(problem.value) == (
        "The embedded database server's process died while inserting into an HNSW index: "
        "its pgvector library (vector.so) most likely uses processor instructions this "
        "machine lacks. Run `.venv/bin/python -m config.cpu_guard` to see which, reinstall "
        "with `make clean setup`, or set DATABASE_URL to a PostgreSQL with pgvector 0.8 or "
        "newer."
    )
    with connection.cursor() as cursor:  # not left holding the dead connection
        cursor.execute("SELECT 1")
        assert cursor.fetchone() == (1,)


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("crashing_hnsw_insert")
def test_manage_py_check_reports_it() -> None:
    with pytest.raises(SystemCheckError) as failed:
        call_command("check")

    assert "(cairn.E001) The embedded database server's process died while inserting" in str(
        failed.value
    )


@pytest.mark.django_db
def test_a_failing_vector_function_names_the_step(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        database_probe,
        "STEPS",
        [ProbeStep("computing a vector distance", "SELECT '[1,2]'::vector(2) <=> '[1]'::vector")],
    )

    with pytest.raises(DatabaseProblem) as problem:
        probe_database()

    assert str(problem.value).startswith(
        "pgvector failed while computing a vector distance (different vector dimensions 2 and 1)"
    )


def test_manage_py_check_passes_on_a_healthy_database(db: None) -> None:
    call_command("check")
