"""`/healthz`: the database, the vector extension and the job queue, as JSON (200 or 503)."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.decorators import login_not_required
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from config.database_probe import DatabaseProblem, probe_database
from config.embedded_db import EmbeddedDatabaseError


def _check_database() -> tuple[bool, str]:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except EmbeddedDatabaseError as error:
        return False, str(error)
    return True, "ok"


def _check_vector() -> tuple[bool, str]:
    """pgvector for real: distances, an HNSW insert and search, rolled back."""
    try:
        return True, probe_database()
    except DatabaseProblem as problem:
        return False, str(problem)


def _check_queue() -> tuple[bool, str]:
    broker_name = "redis" if settings.Q_CLUSTER.get("redis") else "orm"
    from django_q.brokers import get_broker

    broker = get_broker()
    if not broker.ping():
        return False, f"{broker_name} broker does not answer"
    return True, f"{broker_name} broker, {broker.queue_size() or 0} queued"


CHECKS = {"database": _check_database, "vector": _check_vector, "queue": _check_queue}


@login_not_required
@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    results: dict[str, dict[str, object]] = {}
    for name, check in CHECKS.items():
        try:
            ok, detail = check()
        except Exception as error:  # any failure is reported, not raised: that is the point
            ok, detail = False, f"{type(error).__name__}: {error}"
        results[name] = {"ok": ok, "detail": detail}
    healthy = all(result["ok"] for result in results.values())
    return JsonResponse(
        {"status": "ok" if healthy else "fail", "checks": results}, status=200 if healthy else 503
    )
