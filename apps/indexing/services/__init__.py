"""Writes of the indexing app (DESIGN §2, §6). The chat calls ``message_index_enqueue``;
the Files page and the API call the source and document services; tasks call the rest."""

from .claims import claims_embed
from .documents import IndexRun, documents_index
from .folders import FolderUnavailable, ScanResult, folder_scan
from .messages import (
    ACCEPTED,
    message_chunks_set_archived,
    message_index,
    message_index_enqueue,
    message_windows_refresh,
    messages_index,
)
from .scans import source_scan_run
from .sources import (
    document_delete,
    document_reindex,
    folder_roots,
    source_create_folder,
    source_delete,
    source_ensure_upload,
    source_refresh,
)
from .uploads import UploadResult, documents_upload, upload_name_clean

__all__ = [
    "ACCEPTED",
    "FolderUnavailable",
    "IndexRun",
    "ScanResult",
    "UploadResult",
    "claims_embed",
    "document_delete",
    "document_reindex",
    "documents_index",
    "documents_upload",
    "folder_roots",
    "folder_scan",
    "message_chunks_set_archived",
    "message_index",
    "message_index_enqueue",
    "message_windows_refresh",
    "messages_index",
    "source_create_folder",
    "source_delete",
    "source_ensure_upload",
    "source_refresh",
    "source_scan_run",
    "upload_name_clean",
]
