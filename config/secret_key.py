"""The secret key of a local run: generated once and kept under ``var/``.

``make run`` must start on a fresh clone without configuration and still be safe to open
on a LAN, so it cannot use a key written in the repository (anyone could forge its
sessions). The key is made on first start and kept in ``var/secret_key`` (mode 0600), so
sessions survive restarts. Production sets ``SECRET_KEY`` itself (production.py).
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

FILE_NAME = "secret_key"


def local_secret_key(var_dir: Path) -> str:
    path = var_dir / FILE_NAME
    try:
        key = path.read_text().strip()
    except FileNotFoundError:
        key = ""
    if key:
        return key
    var_dir.mkdir(parents=True, exist_ok=True)
    key = secrets.token_urlsafe(50)
    try:
        # O_EXCL: of two processes starting at once, one writes and both read its key.
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path.read_text().strip() or key
    with os.fdopen(descriptor, "w") as handle:
        handle.write(key)
    return key
