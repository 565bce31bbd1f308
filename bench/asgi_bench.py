"""The real ASGI application with the zero-latency provider, for load benchmarks:
`uvicorn bench.asgi_bench:application`."""

from __future__ import annotations

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")

from config.asgi import application  # noqa: E402

from apps.chat import consumers  # noqa: E402
from bench.providers import InstantProvider  # noqa: E402

_DELTAS = int(os.environ.get("BENCH_DELTAS", "200"))
consumers.provider_for_running_loop = lambda: InstantProvider(_DELTAS)  # type: ignore[assignment]

__all__ = ["application"]
