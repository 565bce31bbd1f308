"""Settings for `make run`: safe to open on a LAN without any configuration.

No debug pages (``make dev`` turns them on for developers), and a secret key generated
once and kept under ``var/`` rather than one written in the repository.
"""

from __future__ import annotations

import os
from pathlib import Path

from config.secret_key import local_secret_key

if not os.environ.get("SECRET_KEY"):
    _var_dir = Path(os.environ.get("CAIRN_VAR_DIR", Path(__file__).resolve().parents[2] / "var"))
    os.environ["SECRET_KEY"] = local_secret_key(_var_dir)

from .base import *  # noqa: F403
