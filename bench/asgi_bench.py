"""The real ASGI application with the zero-latency provider, for load benchmarks:
`uvicorn bench.asgi_bench:application`."""

from __future__ import annotations

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")

# Django must be set up (by importing the ASGI app) before the consumers are imported.
from config.asgi import application

# isort: split
from apps.chat import consumers
from bench.providers import InstantProvider

_DELTAS = int(os.environ.get("BENCH_DELTAS", "200"))
consumers.provider_for_running_loop = lambda _answerer=None: InstantProvider(_DELTAS)  # type: ignore[assignment]

__all__ = ["application"]
