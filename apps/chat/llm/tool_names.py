"""The memory tools' names, below the pipeline that offers the tools and the offline
provider that calls them without a model: both read the names here, so a renamed tool
cannot leave the offline provider calling one that no longer exists."""

from __future__ import annotations

MEMORY_ADD = "memory_add"
MEMORY_UPDATE = "memory_update"
MEMORY_SEARCH = "memory_search"
MEMORY_LIST = "memory_list"
READ_DOCUMENT = "read_document"
