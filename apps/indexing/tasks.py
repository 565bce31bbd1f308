"""django-q2 tasks: take ids, reload the rows, call a service, and never raise.

A failure is logged and recorded, and the task schedules its own next attempt with back-off
(``services.queue``); after the last attempt the documents concerned are marked failed
with the error. Every service below is idempotent, so a re-delivered or retried task is
harmless.
"""

from __future__ import annotations

import logging
import time

from django.conf import settings

from .models import SourceStatus
from .services import (
    FolderUnavailable,
    claims_embed,
    documents_index,
    message_index,
    source_scan_run,
)
from .services.documents import IndexRun, documents_mark_failed, documents_mark_retrying
from .services.postings import PackingAbandoned, postings_pack, postings_pack_due
from .services.progress import source_status_set
from .services.queue import DOCUMENTS_PER_TASK, enqueue_documents, schedule_retry

logger = logging.getLogger(__name__)

DEADLINE_SHARE = 0.5
"""A task stops taking new documents after this share of the django-q2 timeout and queues
the rest, so it is never killed for running long."""


def _describe(error: Exception) -> str:
    return f"{error.__class__.__name__}: {error}"[:500]


def index_message(message_id: str, attempt: int = 1) -> str:
    try:
        count = message_index(message_id=message_id)
    except Exception as error:  # recorded and retried; a task must not raise
        logger.exception("indexing message %s failed (attempt %d)", message_id, attempt)
        if schedule_retry("index_message", message_id, attempt=attempt):
            return f"retrying: {_describe(error)}"
        return f"failed: {_describe(error)}"
    return f"{count} chunks"


def _deadline() -> float:
    """When a task that starts now must stop taking new documents."""
    timeout = float(settings.Q_CLUSTER.get("timeout") or 600)  # type: ignore[arg-type]
    return time.monotonic() + timeout * DEADLINE_SHARE


def index_documents(document_ids: list[str], force: bool = False, attempt: int = 1) -> str:
    return _index_documents(document_ids, force=force, attempt=attempt, deadline=_deadline())


def _index_documents(document_ids: list[str], *, force: bool, attempt: int, deadline: float) -> str:
    run = IndexRun()
    try:
        documents_index(document_ids=document_ids, force=force, deadline=deadline, run=run)
    except Exception as error:  # recorded per document, retried with back-off
        logger.exception("indexing documents %s failed (attempt %d)", document_ids, attempt)
        reason = _describe(error)
        # Documents finished before the failure keep their outcome.
        unfinished = [str(pk) for pk in document_ids if str(pk) not in run.finished]
        if schedule_retry("index_documents", unfinished, force, attempt=attempt):
            documents_mark_retrying(document_ids=unfinished, error=reason, attempt=attempt)
            return f"retrying: {reason}"
        documents_mark_failed(
            document_ids=unfinished, error=f"indexing failed {attempt} times: {reason}"
        )
        return f"failed: {reason}"
    if run.remaining:
        enqueue_documents(run.remaining, force=force)
    return (
        f"{len(run.indexed)} indexed ({run.chunks_written} chunks), {len(run.unchanged)} "
        f"unchanged, {len(run.skipped)} skipped, {len(run.failed)} failed, "
        f"{len(run.remaining)} queued again"
    )


def index_document(document_id: str, force: bool = False, attempt: int = 1) -> str:
    return index_documents([document_id], force, attempt)


def scan_folder_source(source_id: str, attempt: int = 1) -> str:
    deadline = _deadline()  # for the documents indexed here, after the scan
    try:
        # The first task's worth of documents is indexed right here, once the rest are
        # queued: this worker is free, and through the queue they would wait for a worker
        # to poll it (up to half a second with the ORM broker) while it sat idle.
        result = source_scan_run(source_id=source_id, leave_first=DOCUMENTS_PER_TASK)
    except FolderUnavailable as error:  # recorded on the source; a rescan tries again
        return f"failed: {error}"
    except Exception as error:  # recorded on the source, retried with back-off
        logger.exception("scanning source %s failed (attempt %d)", source_id, attempt)
        reason = _describe(error)
        retrying = schedule_retry("scan_folder_source", source_id, attempt=attempt)
        message = f"scan attempt {attempt} failed: {reason}" + (
            "; it will be retried" if retrying else ""
        )
        source_status_set(source_id=source_id, status=SourceStatus.FAILED, error=message)
        return message
    if result is None:
        return "source gone"
    summary = (
        f"{result.found} files: {result.new} new, {result.changed} changed, "
        f"{result.retried} retried, {result.unchanged} unchanged, {result.removed} removed, "
        f"{len(result.refused)} refused"
    )
    first = result.to_index[:DOCUMENTS_PER_TASK]
    if first:
        outcome = _index_documents(first, force=False, attempt=1, deadline=deadline)
        summary += f"; first {len(first)}: {outcome}"
    return summary


def embed_claims(claim_ids: list[str], attempt: int = 1) -> str:
    try:
        count = claims_embed(claim_ids=claim_ids)
    except Exception as error:  # retried with back-off; claims keep their old vectors
        logger.exception("embedding claims failed (attempt %d)", attempt)
        if schedule_retry("embed_claims", claim_ids, attempt=attempt):
            return f"retrying: {_describe(error)}"
        return f"failed: {_describe(error)}"
    return f"{count} claims embedded"


def pack_postings(user_id: int) -> str:
    """Pack the user's BM25 postings (``services.postings``); nothing is lost when this
    fails: search reads what is not packed from the posting rows."""
    try:
        # Every write finding packing due queues one, until one starts: the first to run
        # packs, the rest find it done.
        if not postings_pack_due(user_id=user_id):
            return "not due"
        packed = postings_pack(user_id=user_id)
    except PackingAbandoned as error:
        return f"abandoned: {error}"
    except Exception as error:  # the next write that finds packing due queues it again
        logger.exception("packing the postings of user %s failed", user_id)
        return f"failed: {_describe(error)}"
    if packed is None:
        return "a packing of this user is under way"
    return (
        f"{packed.postings} postings of {packed.terms} terms packed, through chunk {packed.through}"
    )
