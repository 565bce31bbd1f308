"""Settings for `make run`: safe to open on a LAN without any configuration.

No debug pages (``make dev`` turns them on for developers), and a secret key generated
once and kept under ``var/`` rather than one written in the repository.
"""

from __future__ import annotations

import os
from pathlib import Path

import environ

from config.secret_key import local_secret_key

_root = Path(__file__).resolve().parents[2]
# A SECRET_KEY written in .env counts as set: read it before deciding to generate one.
environ.Env.read_env(_root / ".env", overwrite=False)
# Several processes need one key they share; config/serve.py refuses to scale out on a
# generated one (each machine would make its own).
_generated_secret_key = not os.environ.get("SECRET_KEY")
if _generated_secret_key:
    _var_dir = Path(os.environ.get("CAIRN_VAR_DIR", _root / "var"))
    os.environ["SECRET_KEY"] = local_secret_key(_var_dir)

from .base import *  # noqa: E402, F403

CAIRN_SECRET_KEY_GENERATED = _generated_secret_key
