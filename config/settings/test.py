"""Settings for the test suite: fast hashing, synchronous jobs, in-memory layers."""

from __future__ import annotations

import os

os.environ.setdefault("SECRET_KEY", "test-only-not-secret")
# Tests load (and reset) the models themselves; no background warm-up thread (config/asgi.py).
os.environ.setdefault("CAIRN_WARM_UP", "0")

from .base import *  # noqa: F403
from .base import Q_CLUSTER, env

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
# Jobs run in the test process so a test sees their effect right after on_commit; the
# scale-out test turns this off for the processes it starts.
Q_CLUSTER["sync"] = env.bool("CAIRN_Q_SYNC", default=True)
# The fault drills' site processes slow the offline answer down to land a fault mid-stream.
CAIRN_OFFLINE_WORD_DELAY = env.float("CAIRN_OFFLINE_WORD_DELAY", default=0.0)
# The browser tests' server serves static files straight from the app folders.
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True
# Many tests sign up from the same test client address; the throttling tests lower it.
CAIRN_SIGNUP_RATE = "10000/h"
CAIRN_RESET_EMAIL_RATE = "10000/h"
# Connections' keys are encrypted with a key of the suite's own, never one generated into
# var/ (a run must leave nothing there; tests of the generated key give their own folder).
CAIRN_SECRETS_KEY = env("CAIRN_SECRETS_KEY", default="_in5uKGx-IRzfbVPNCAWLGgcaCuIjvtk9BugRF5ej8U=")
