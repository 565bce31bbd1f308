"""``STORAGE_URL``: where users' files live, as the ``STORAGES["default"]`` entry.

- unset: a folder under ``MEDIA_ROOT`` (apps/core/storage.py's ``AtomicFileSystemStorage``);
  several machines share it as a mounted volume.
- ``s3://BUCKET?endpoint_url=…&region_name=…``: an S3-compatible bucket through
  django-storages; the keys come from ``AWS_ACCESS_KEY_ID`` / ``AWS_SECRET_ACCESS_KEY`` in
  the environment (read by django-storages, never written into the URL or the settings).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl, urlsplit

LOCAL_BACKEND = "apps.core.storage.AtomicFileSystemStorage"
S3_BACKEND = "storages.backends.s3.S3Storage"

# The query parameters an s3:// URL may carry, as django-storages names them.
S3_OPTIONS = {"endpoint_url", "region_name", "location", "addressing_style", "signature_version"}


class StorageUrlError(ValueError):
    pass


def storage_from_url(url: str) -> dict[str, Any]:
    """The ``STORAGES["default"]`` entry for ``url`` (empty: the local folder)."""
    url = url.strip()
    if not url:
        return {"BACKEND": LOCAL_BACKEND}
    parts = urlsplit(url)
    if parts.scheme != "s3":
        raise StorageUrlError(
            f"STORAGE_URL must be s3://BUCKET?endpoint_url=… (or unset for MEDIA_ROOT), "
            f"not {parts.scheme or url!r}."
        )
    if parts.username or parts.password:
        raise StorageUrlError(
            "STORAGE_URL carries no keys: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY."
        )
    if not parts.hostname:
        raise StorageUrlError("STORAGE_URL names no bucket: s3://BUCKET?…")
    options: dict[str, Any] = {
        "bucket_name": parts.hostname,
        # Keys carry a UUID per upload; a clash would still get another name, not overwrite.
        "file_overwrite": False,
        # Originals are served by Cairn's own views to their owner, never by a bucket URL.
        "querystring_auth": True,
        "default_acl": None,
    }
    for key, value in parse_qsl(parts.query, keep_blank_values=False):
        if key not in S3_OPTIONS:
            allowed = ", ".join(sorted(S3_OPTIONS))
            raise StorageUrlError(f"STORAGE_URL: unknown option {key!r} (known: {allowed}).")
        options[key] = value
    return {"BACKEND": S3_BACKEND, "OPTIONS": options}
