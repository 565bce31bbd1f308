"""Connection keys encrypted at rest with Fernet (``cryptography``).

The Fernet key comes from CAIRN_SECRETS_KEY, or is generated once into
``var/secrets.key`` (mode 0600). CAIRN_SECRETS_KEY may list several keys separated by
commas: the first encrypts, any of them decrypts, so a key can be rotated. Several
machines sharing one database must share the key: set CAIRN_SECRETS_KEY on each.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from apps.core.keyfile import key_kept_in

KEY_FILE_NAME = "secrets.key"


class SecretUnreadable(Exception):
    """A stored key that this server's secrets key cannot decrypt (the key changed)."""


def _generated_key(var_dir: Path) -> str:
    return key_kept_in(var_dir / KEY_FILE_NAME, make=lambda: Fernet.generate_key().decode())


@cache
def _fernet(configured: str, var_dir: str) -> MultiFernet:
    keys = [part.strip() for part in configured.split(",") if part.strip()]
    if not keys:
        keys = [_generated_key(Path(var_dir))]
    try:
        return MultiFernet([Fernet(key) for key in keys])
    except ValueError as error:
        raise ImproperlyConfigured(
            "CAIRN_SECRETS_KEY must be Fernet keys (32 url-safe base64-encoded bytes), "
            "separated by commas; make one with: python -c 'from cryptography.fernet "
            "import Fernet; print(Fernet.generate_key().decode())'"
        ) from error


def fernet() -> MultiFernet:
    return _fernet(settings.CAIRN_SECRETS_KEY, str(settings.VAR_DIR))


def secret_encrypt(plain: str) -> str:
    return fernet().encrypt(plain.encode()).decode()


def secret_decrypt(token: str) -> str:
    try:
        return fernet().decrypt(token.encode()).decode()
    except InvalidToken as error:
        raise SecretUnreadable(
            "The stored key cannot be read with this server's secrets key "
            "(CAIRN_SECRETS_KEY or var/secrets.key changed): enter the key again."
        ) from error
