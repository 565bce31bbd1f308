"""A key made once and kept in a file under ``var/`` (mode 0600), read by every process:
the local secret key (``config/secret_key.py``) and the connections' encryption key
(``apps/chat/connections/secrets.py``)."""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable
from pathlib import Path


def key_kept_in(path: Path, *, make: Callable[[], str]) -> str:
    """The key in ``path``; the first time, one made by ``make`` and written there. Written
    whole under a private name, then linked into place: of two processes starting at
    once, one links and both read the same complete key."""
    try:
        key = path.read_text().strip()
    except FileNotFoundError:
        key = ""
    if key:
        return key
    path.parent.mkdir(parents=True, exist_ok=True)
    draft = path.with_name(f".{path.name}.{secrets.token_hex(8)}")
    descriptor = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w") as handle:
        handle.write(make())
    try:
        os.link(draft, path)
    except FileExistsError:
        pass  # another process linked its key first: that one is the key
    finally:
        draft.unlink()
    return path.read_text().strip()
