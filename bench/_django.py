"""Set up Django for a benchmark on its own database (``cairn_bench``), never the dev one."""

from __future__ import annotations

import gc
import os
import statistics
import time
from collections.abc import Callable


def setup(database: str = "cairn_bench", *, sync_jobs: bool = True) -> None:
    """``sync_jobs=False`` queues background jobs as production does, instead of running
    them inline (the test settings' default), for benchmarks of the foreground path."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")
    os.environ["CAIRN_DB_NAME"] = database
    os.environ["CAIRN_Q_SYNC"] = "true" if sync_jobs else "false"
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)
    # As config/asgi.py does once the server has started (see there).
    gc.freeze()


def percentile(samples: list[float], pct: float) -> float:
    ordered = sorted(samples)
    index = min(len(ordered) - 1, max(0, round(pct / 100 * len(ordered)) - 1))
    return ordered[index]


def timed(fn: Callable[[], object], *, repeat: int, warmup: int = 3) -> list[float]:
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
    return samples


def report(
    name: str, samples_ms: list[float], target_ms: float | None = None, stat: str = "p95"
) -> None:
    value = percentile(samples_ms, 95) if stat == "p95" else statistics.median(samples_ms)
    line = (
        f"{name:<46} p50 {statistics.median(samples_ms):8.2f} ms   "
        f"p95 {percentile(samples_ms, 95):8.2f} ms"
    )
    if target_ms is not None:
        line += f"   target {stat} ≤ {target_ms:g} ms   ratio {value / target_ms:5.2f}"
        line += "  OK" if value <= target_ms else "  OVER"
    print(line, flush=True)
