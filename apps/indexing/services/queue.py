"""Handing indexing work to the ledger (apps/core/work.py): a row written in the caller's
transaction, by id, taken by a worker under a lease, retried with back-off, and taken again
if its worker dies. The task functions are in ``apps.indexing.tasks``."""

from __future__ import annotations

from apps.core.work import work_add

DOCUMENTS_PER_TASK = 64
"""Documents one indexing task takes. A task of 16 made embedding calls of about 20
passages and paid a task's fixed costs (the claim, the row locks, a commit, progress) every
20: through a real cluster the worker indexed at 0.78 of the raw model's speed, against
0.85 at 64 together with flushes of 128 chunks (bench/bench_indexing.py). A task still
stops at its deadline and queues the rest, and its progress is published as it goes, so
larger ones neither time out nor look stuck. The cost: a file that kills its worker
outright (out of memory) takes the task's other documents with it until the lease runs
out and another worker takes them again; after the last attempt they are failed with the
reason."""


def task_path(name: str) -> str:
    return f"apps.indexing.tasks.{name}"


def enqueue(name: str, *args: object, key: str = "", group: str = "") -> None:
    """Owe ``tasks.<name>(*args)``: in the caller's transaction, so it is owed exactly when
    what it is about was saved; workers are woken when that commits."""
    work_add(task=task_path(name), args=args, key=key, group=group)


def enqueue_documents(document_ids: list[str], *, force: bool = False, group: str = "") -> None:
    """Index these documents, in tasks of ``DOCUMENTS_PER_TASK``: one task embeds their
    chunks together, which keeps the model's batches full."""
    for first in range(0, len(document_ids), DOCUMENTS_PER_TASK):
        batch = [str(pk) for pk in document_ids[first : first + DOCUMENTS_PER_TASK]]
        enqueue("index_documents", batch, force, group=group)
