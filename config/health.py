"""`/healthz`: cheap checks of what serving needs, as JSON (200, or 503 when one fails).

The database answers, the extensions Cairn's schema uses are there, and the job queue's
broker answers. Each is a query or a ping: a load balancer calls this every few seconds.
That pgvector really computes and indexes is proved once, when a process starts
(``config/serve.py``, ``manage.py check``: ``config/database_probe.py``), never here —
building a table and an HNSW index per call was costly, and after a database restart it
blamed the pgvector build for a dropped connection.

Other apps add checks with ``apps.core.health.health_check``.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.decorators import login_not_required
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET
from redis.exceptions import RedisError

from apps.core.health import CheckResult, health_check, health_checks_run
from config.embedded_db import EmbeddedDatabaseError

# What the migrations create (accounts 0001, claims 0002); without them nothing works.
REQUIRED_EXTENSIONS = ("vector", "pg_trgm", "btree_gist")


@health_check("database")
def check_database() -> CheckResult:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except EmbeddedDatabaseError as error:
        return CheckResult(ok=False, detail=str(error))
    return CheckResult(ok=True, detail="ok")


@health_check("extensions")
def check_extensions() -> CheckResult:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT extname, extversion FROM pg_extension WHERE extname = ANY(%s)",
            [list(REQUIRED_EXTENSIONS)],
        )
        versions = dict(cursor.fetchall())
    missing = [name for name in REQUIRED_EXTENSIONS if name not in versions]
    if missing:
        return CheckResult(
            ok=False,
            detail=f"Missing extension(s) {', '.join(missing)}: run `manage.py migrate`.",
        )
    return CheckResult(
        ok=True, detail=", ".join(f"{name} {versions[name]}" for name in REQUIRED_EXTENSIONS)
    )


@health_check("queue")
def check_queue() -> CheckResult:
    from django_q.brokers import get_broker

    broker_name = "redis" if settings.Q_CLUSTER.get("redis") else "orm"
    broker = get_broker()
    try:
        answered = broker.ping()
    except RedisError as error:
        return CheckResult(ok=False, detail=f"The redis broker is unreachable ({error}).")
    if not answered:
        return CheckResult(ok=False, detail=f"The {broker_name} broker does not answer.")
    return CheckResult(ok=True, detail=f"{broker_name} broker, {broker.queue_size() or 0} queued")


@login_not_required
@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    results = health_checks_run()
    healthy = all(result.ok for result in results.values())
    return JsonResponse(
        {
            "status": "ok" if healthy else "fail",
            "checks": {
                name: {"ok": result.ok, "detail": result.detail} for name, result in results.items()
            },
        },
        status=200 if healthy else 503,
    )
