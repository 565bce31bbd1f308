"""System checks of the running environment (``manage.py check``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.apps import AppConfig
from django.core import checks

from config.database_probe import DatabaseProblem, probe_database


@checks.register("database_server")
def check_database_server(
    *,
    app_configs: Sequence[AppConfig] | None = None,
    databases: Sequence[str] | None = None,
    **kwargs: Any,
) -> list[checks.CheckMessage]:
    """The database answers and pgvector really computes, indexes and searches.

    Registered under its own tag, not Django's ``database`` one, so that a plain
    ``manage.py check`` runs it: the failure it finds is the one a new user meets first.
    """
    problems: list[checks.CheckMessage] = []
    for alias in databases or ["default"]:
        try:
            probe_database(alias)
        except DatabaseProblem as problem:
            problems.append(checks.Error(str(problem), id="cairn.E001", obj=f"database {alias!r}"))
    return problems
