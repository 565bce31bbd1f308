"""Settings for `make run` on a developer's machine."""

from __future__ import annotations

import os

# A local run must start without any configuration; production refuses to (production.py).
os.environ.setdefault("SECRET_KEY", "local-development-only-not-secret")
os.environ.setdefault("DEBUG", "true")

from .base import *  # noqa: F403
