"""The secret key of a local run: generated once and kept under ``var/``.

``make run`` must start on a fresh clone without configuration and still be safe to open
on a LAN, so it cannot use a key written in the repository (anyone could forge its
sessions). The key is made on first start and kept in ``var/secret_key`` (mode 0600), so
sessions survive restarts. Production sets ``SECRET_KEY`` itself (production.py).
"""

from __future__ import annotations

import secrets
from pathlib import Path

from apps.core.keyfile import key_kept_in

FILE_NAME = "secret_key"


def local_secret_key(var_dir: Path) -> str:
    return key_kept_in(var_dir / FILE_NAME, make=lambda: secrets.token_urlsafe(50))
