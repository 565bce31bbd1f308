"""The checks behind ``/healthz``: a small registry any app can add to.

A check is a function of no arguments returning a ``CheckResult``; register it with
``@health_check("name")`` in a module its app imports when it starts (``AppConfig.ready``).
``/healthz`` runs every check on every call — load balancers call it every few seconds —
so a check must be cheap: a query or two, never DDL, never a write. Heavy proofs (the
pgvector probe in ``config/database_probe.py``) run once at start instead.

A check that raises is reported, not propagated: a database error as "the database is
unreachable" in words (after a restart or an outage that is what it is), anything else
as its type and message.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.db import DatabaseError, InterfaceError, OperationalError


@dataclass(frozen=True)
class CheckResult:
    ok: bool
    detail: str  # one line a person can act on


HealthCheck = Callable[[], CheckResult]

# In registration order: config/health.py's (the database first) register before any app's.
HEALTH_CHECKS: dict[str, HealthCheck] = {}


def health_check(name: str) -> Callable[[HealthCheck], HealthCheck]:
    """Register ``check`` under ``name`` (a later registration of a name replaces it)."""

    def register(check: HealthCheck) -> HealthCheck:
        HEALTH_CHECKS[name] = check
        return check

    return register


def _first_line(error: BaseException) -> str:
    return (str(error).strip().splitlines() or [type(error).__name__])[0]


def describe_failure(error: BaseException) -> str:
    if isinstance(error, (OperationalError, InterfaceError)):
        return f"The database is unreachable ({_first_line(error)})."
    if isinstance(error, DatabaseError):
        return f"The database refused the check ({_first_line(error)})."
    return f"{type(error).__name__}: {error}"


def health_checks_run() -> dict[str, CheckResult]:
    results: dict[str, CheckResult] = {}
    for name, check in HEALTH_CHECKS.items():
        try:
            results[name] = check()
        except Exception as error:  # any failure is reported, not raised: that is the point
            results[name] = CheckResult(ok=False, detail=describe_failure(error))
    return results
