"""Export a user's knowledge as one JSON document and import it into an empty account."""

from .export import knowledge_document, knowledge_export
from .importer import AccountNotEmptyError, ImportReport, knowledge_import
from .parse import document_parse
from .records import FORMAT_NAME, FORMAT_VERSION, KnowledgeDocument

__all__ = [
    "FORMAT_NAME",
    "FORMAT_VERSION",
    "AccountNotEmptyError",
    "ImportReport",
    "KnowledgeDocument",
    "document_parse",
    "knowledge_document",
    "knowledge_export",
    "knowledge_import",
]
