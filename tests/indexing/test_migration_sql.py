"""Migrations carry the SQL they install (issue 27): a database migrated from nothing and
one upgraded from before search's triggers existed hold the same functions and triggers,
and both hold what today's builders write (``apps.indexing.triggers``), so a builder
edited without a migration that installs its output is caught here."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from apps.indexing.triggers import installed_sql

# Functions of the project's own (not an extension's: pgvector's and pg_trgm's live in the
# same schema), each with its whole definition; and every trigger a migration created.
FUNCTIONS_SQL = """
    SELECT p.proname, pg_get_functiondef(p.oid)
    FROM pg_proc AS p JOIN pg_namespace AS n ON n.oid = p.pronamespace
    WHERE n.nspname = current_schema() AND NOT EXISTS (
        SELECT 1 FROM pg_depend AS d
        WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
    )
    ORDER BY 1, 2
"""
TRIGGERS_SQL = """
    SELECT c.relname, t.tgname, pg_get_triggerdef(t.oid)
    FROM pg_trigger AS t JOIN pg_class AS c ON c.oid = t.tgrelid
    JOIN pg_namespace AS n ON n.oid = c.relnamespace
    WHERE NOT t.tgisinternal AND n.nspname = current_schema()
    ORDER BY 1, 2
"""
SEARCH_FUNCTIONS = {
    "cairn_tsvector_tokens",
    "cairn_lexical_chunk",
    "cairn_lexical_claim",
    "cairn_postings_chunk",
    "cairn_postings_claim",
}
# The last migration before the statistics' and postings' triggers.
BEFORE_SEARCH_TRIGGERS = ("indexing", "0001_initial")


def definitions() -> tuple[list[tuple[str, ...]], list[tuple[str, ...]]]:
    with connection.cursor() as cursor:
        cursor.execute(FUNCTIONS_SQL)
        functions = [tuple(row) for row in cursor.fetchall()]
        cursor.execute(TRIGGERS_SQL)
        triggers = [tuple(row) for row in cursor.fetchall()]
    return functions, triggers


def function_names(functions: list[tuple[str, ...]]) -> set[str]:
    return {name for name, _ in functions}


@pytest.mark.django_db
def test_the_migrated_database_holds_what_the_builders_write() -> None:
    # Given the test database, migrated from nothing
    migrated = definitions()
    assert function_names(migrated[0]) >= SEARCH_FUNCTIONS

    # When today's builders' SQL is run over it (undone with the test's transaction)
    with connection.cursor() as cursor:
        cursor.execute(installed_sql())

    # Then no function or trigger differs: the migrations installed exactly that
    assert definitions() == migrated


@pytest.mark.django_db(transaction=True)
def test_a_database_upgraded_from_before_the_triggers_holds_what_a_fresh_one_does() -> None:
    # Given a database migrated from nothing, and the same database taken back to before
    # search's triggers existed
    fresh = definitions()
    leaves = MigrationExecutor(connection).loader.graph.leaf_nodes()
    try:
        MigrationExecutor(connection).migrate([BEFORE_SEARCH_TRIGGERS])
        before = definitions()

        # When it is upgraded, as an old installation is
        MigrationExecutor(connection).migrate(leaves)
        upgraded = definitions()
    finally:
        # Whatever failed, the database is left migrated for the tests that follow.
        MigrationExecutor(connection).migrate(leaves)

    # Then it holds the same functions and triggers, definition for definition
    assert not SEARCH_FUNCTIONS & function_names(before[0])
    assert upgraded == fresh
