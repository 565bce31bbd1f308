"""The indexing app's background work, run by the ledger (apps/core/work.py): each task
takes ids, reloads the rows and calls a service. A failure raises: the ledger records it,
retries with back-off and, after the last attempt, calls the task's ``on_give_up``, which
marks the documents concerned failed with the error. Every service below is idempotent, so
work taken again after its worker died is harmless.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from django.conf import settings

from apps.core.work import durable

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
from .services.queue import enqueue_documents
from .services.units import units_build

logger = logging.getLogger(__name__)

DEADLINE_SHARE = 0.25
"""A task stops taking new documents after this share of the django-q2 timeout and queues
the rest: the ledger's wake-up task that runs it gives itself half the timeout, so one long
indexing task never gets it killed."""


@durable(max_attempts=5)
def index_message(message_id: str, attempt: int = 1) -> str:
    # ``attempt``: tasks queued through django-q2 before the ledger still carry it.
    return f"{message_index(message_id=message_id)} chunks"


def _deadline() -> float:
    """When a task that starts now must stop taking new documents."""
    timeout = float(settings.Q_CLUSTER.get("timeout") or 600)  # type: ignore[arg-type]
    return time.monotonic() + timeout * DEADLINE_SHARE


def _documents_retrying(args: list[Any], reason: str, attempt: int) -> None:
    documents_mark_retrying(document_ids=args[0], error=reason, attempt=attempt)


def _documents_given_up(args: list[Any], reason: str, attempts: int) -> None:
    documents_mark_failed(document_ids=args[0], error=f"indexing failed {attempts} times: {reason}")


@durable(max_attempts=4, on_retry=_documents_retrying, on_give_up=_documents_given_up)
def index_documents(document_ids: list[str], force: bool = False, attempt: int = 1) -> str:
    return _index_documents(document_ids, force=force, deadline=_deadline())


def _index_documents(document_ids: list[str], *, force: bool, deadline: float) -> str:
    """Documents finished before a failure keep their outcome (the retry finds them
    unchanged); only those still waiting are marked as retrying or failed."""
    run = IndexRun()
    documents_index(document_ids=document_ids, force=force, deadline=deadline, run=run)
    if run.remaining:
        enqueue_documents(run.remaining, force=force)
    return (
        f"{len(run.indexed)} indexed ({run.chunks_written} chunks), {len(run.unchanged)} "
        f"unchanged, {len(run.skipped)} skipped, {len(run.failed)} failed, "
        f"{len(run.remaining)} queued again"
    )


def index_document(document_id: str, force: bool = False, attempt: int = 1) -> str:
    return index_documents([document_id], force)


def _scan_failed(args: list[Any], reason: str, attempt: int) -> None:
    source_status_set(
        source_id=args[0],
        status=SourceStatus.FAILED,
        error=f"scan attempt {attempt} failed: {reason}; it will be retried",
    )


def _scan_given_up(args: list[Any], reason: str, attempts: int) -> None:
    source_status_set(
        source_id=args[0],
        status=SourceStatus.FAILED,
        error=f"scan failed {attempts} times: {reason}",
    )


@durable(max_attempts=4, on_retry=_scan_failed, on_give_up=_scan_given_up)
def scan_folder_source(source_id: str, attempt: int = 1) -> str:
    # The documents to index are owed in the scan's own transaction; this worker's loop
    # (``work_run_due``) takes the first batch next, with no wait on the queue.
    try:
        result = source_scan_run(source_id=source_id)
    except FolderUnavailable as error:  # recorded on the source; a rescan tries again
        return f"failed: {error}"
    if result is None:
        return "source gone"
    return (
        f"{result.found} files: {result.new} new, {result.changed} changed, "
        f"{result.retried} retried, {result.unchanged} unchanged, {result.removed} removed, "
        f"{len(result.refused)} refused"
    )


@durable(max_attempts=5)
def build_units(message_ids: list[str]) -> str:
    return f"{units_build(message_ids=message_ids)} units"


@durable(max_attempts=5)
def embed_claims(claim_ids: list[str], attempt: int = 1) -> str:
    return f"{claims_embed(claim_ids=claim_ids)} claims embedded"


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
        return f"failed: {error.__class__.__name__}: {error}"[:300]
    if packed is None:
        return "a packing of this user is under way"
    return (
        f"{packed.postings} postings of {packed.terms} terms packed, through chunk {packed.through}"
    )
