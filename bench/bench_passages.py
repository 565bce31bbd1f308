"""Issue 19, bullet 6: are the passages of files found, with passages cut to the model's
window (today) beside the old 2,048-character chunks, in one run?

The files of ``bench/quality/files.json`` (``python -m bench.quality.documents``) are
uploaded through the upload service into three projects of one fresh user and indexed as
the server indexes them; two projects' passages are then cut again the old way
(``chunk_file_text``: 2,048 characters overlapping by 256) and written through the same
chunk writer, one with each passage's vector the mean of its windows' vectors (the
alternative to cutting). So the three projects hold: passages cut to the model's window
(what indexing does now), the old chunks truncated by the model, and the old chunks
pooled. Each question is asked in each project of

- Cairn, through the search service the API calls, files only (``kinds=("document",)``):
  BM25 (``text_search``), vectors (``vector_search``) and the hybrid (``hybrid_search``);
- the references over the same passages: plain BM25 in Python, exact dense search with
  the same model, and their reciprocal rank fusion.

A question is found at k when one of the first k passages holds its evidence (the fact's
whole span); also when one of the passages read from the top until 5,000 or 10,000
characters are read holds it, since a reply's memory is filled to a token budget, not to
a count of passages. Figures are given for all questions and for those whose fact lies past what
the model reads of its old chunk (its first 254 word pieces), where the cut should matter.

Run: .venv/bin/python bench/bench_passages.py   (``make bench-quality`` and ``make bench``)
Regenerate the files: .venv/bin/python -m bench.quality.documents
"""

from __future__ import annotations

import logging
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench import _django  # noqa: E402
from bench.quality.documents import FileCorpus, FileQuestion, files_load  # noqa: E402
from bench.quality.references import Bm25, Dense, rrf  # noqa: E402

DATABASE = "cairn_quality"
EMAIL = "files@passages.bench.invalid"
DEPTHS = (5, 10)
UPLOAD_BATCH = 20  # files a request; the upload service takes at most 50 at once
REFERENCE_DEPTH = 30
DEEP = 30  # Cairn's lists as deep as the references', so the character budgets can fill
CUTS = ("old", "pooled", "new")
CUT_LABELS = {
    "old": "old: 2,048 characters, truncated by the model",
    "pooled": "old cut, vectors mean-pooled over windows",
    "new": "new: cut to the model's window",
}
BUDGETS = (5_000, 10_000)
"""Characters of passages read from the top: what a reply's context can hold. Recall at k
passages favours long passages (a whole file as one passage is always "found"), so the
cuts are also compared at the same amount of text returned."""
METHODS = {
    "text": "Cairn BM25 (text_search)",
    "vector": "Cairn vectors (vector_search)",
    "hybrid": "Cairn hybrid (hybrid_search)",
    "ref-bm25": "ref. BM25 over the passages",
    "ref-dense": "ref. exact dense",
    "ref-rrf": "ref. RRF BM25 + dense",
}


@dataclass(frozen=True)
class Passage:
    id: str
    document: int
    start: int
    end: int
    text: str


@dataclass
class Asked:
    question: FileQuestion
    past_old_window: bool
    ranked: dict[tuple[str, str], list[str]] = field(default_factory=dict)  # (cut, method)
    holding: dict[str, set[str]] = field(default_factory=dict)  # cut -> passage ids

    def found(self, cut: str, method: str, k: int) -> bool:
        return bool(self.holding[cut] & set(self.ranked[(cut, method)][:k]))

    def found_within(self, cut: str, method: str, budget: int, lengths: dict[str, int]) -> bool:
        """Among the passages read from the top until ``budget`` characters are read
        (the passage that crosses the budget counts only if it starts within it)."""
        read = 0
        for passage_id in self.ranked[(cut, method)]:
            if read >= budget:
                return False
            if passage_id in self.holding[cut]:
                return True
            read += lengths[passage_id]
        return False


def index_both_ways(corpus: FileCorpus) -> tuple[object, dict[str, object]]:
    """A fresh user with the files in two projects, indexed; the "old" one cut again the
    old way. Returns the user and its projects by cut."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    from apps.accounts.models import User
    from apps.indexing.services import documents_upload
    from apps.projects.services import project_create

    User.objects.filter(email=EMAIL).delete()
    user = User.objects.create_user(email=EMAIL, password=None)
    projects = {cut: project_create(owner=user, name=f"Files, {cut} passages") for cut in CUTS}
    for project in projects.values():
        files = [
            SimpleUploadedFile(d.name, d.text.encode(), content_type="text/markdown")
            for d in corpus.documents
        ]
        start = time.perf_counter()
        for first in range(0, len(files), UPLOAD_BATCH):  # as the page sends them
            batch = files[first : first + UPLOAD_BATCH]
            documents_upload(project=project, files=batch)  # indexed inline on commit
        print(
            f"  uploaded and indexed {len(files)} files into '{project.name}' in "
            f"{time.perf_counter() - start:.1f} s",
            flush=True,
        )
    recut_old_way(projects["old"], pooled=False)
    recut_old_way(projects["pooled"], pooled=True)
    return user, projects


def recut_old_way(project: object, *, pooled: bool) -> None:
    """The project's files as the previous release cut them, written by the same writer;
    ``pooled``: each passage's vector the mean of its windows' vectors (windows of the
    model's size overlapping by an eighth, as the new cut makes them), normalised."""
    from apps.indexing.chunking import chunk_file_text
    from apps.indexing.embeddings import get_embedding_provider
    from apps.indexing.extract import extract_text
    from apps.indexing.models import Document
    from apps.indexing.services.chunk_writes import Prepared, chunks_replace
    from apps.indexing.services.files import document_file_local

    provider = get_embedding_provider()
    documents = Document.objects.filter(source__project=project).select_related("source__project")
    prepared = []
    for d in documents:
        with document_file_local(d) as local:
            text = extract_text(local.path).text
        prepared.append(Prepared(d, chunk_file_text(text), d.sha256, d.size, d.mtime, d.doc_type))
    texts = [chunk.text for item in prepared for chunk in item.chunks]
    vectors = pooled_vectors(texts, provider) if pooled else provider.embed_documents(texts)
    chunks_replace(prepared, vectors, provider.name)


def pooled_vectors(texts: list[str], provider: object) -> np.ndarray:
    from apps.indexing.chunking import chunk_document_text, document_window_tokens

    window = document_window_tokens(provider)
    windows = [
        [w.text for w in chunk_document_text(text, provider.token_offsets, max_tokens=window)]  # type: ignore[attr-defined]
        for text in texts
    ]
    flat = provider.embed_documents([w for group in windows for w in group])  # type: ignore[attr-defined]
    vectors, row = np.empty((len(texts), flat.shape[1]), dtype=np.float32), 0
    for index, group in enumerate(windows):
        mean = flat[row : row + len(group)].mean(axis=0)
        vectors[index] = mean / max(float(np.linalg.norm(mean)), 1e-12)
        row += len(group)
    return vectors


def passages_of(project: object, names: dict[str, int]) -> list[Passage]:
    from apps.indexing.models import Chunk

    rows = Chunk.objects.filter(project=project, document__isnull=False).values_list(
        "id", "document__path", "start", "end", "text"
    )
    return [Passage(str(pk), names[path], s, e, text) for pk, path, s, e, text in rows]


def holding(passages: Sequence[Passage], question: FileQuestion) -> set[str]:
    return {
        p.id
        for p in passages
        if p.document == question.document and p.start <= question.start and question.end <= p.end
    }


def past_window(passages: Sequence[Passage], question: FileQuestion, provider: object) -> bool:
    """Every old chunk holding the fact holds it past the model's first 254 word pieces."""
    from apps.indexing.chunking import document_window_tokens

    window = document_window_tokens(provider)
    past = []
    for p in passages:
        if p.document == question.document and p.start <= question.start <= p.end:
            offsets = provider.token_offsets(p.text)  # type: ignore[attr-defined]
            read_until = p.start + offsets[min(window, len(offsets)) - 1][1]
            past.append(question.end > read_until)
    return bool(past) and all(past)


def ask_all(
    corpus: FileCorpus, user: object, projects: dict[str, object]
) -> tuple[list[Asked], dict[str, int]]:
    from apps.indexing.embeddings import get_embedding_provider
    from apps.indexing.search import hybrid_search, text_search, vector_search

    provider = get_embedding_provider()
    names = {d.name: i for i, d in enumerate(corpus.documents)}
    passages = {cut: passages_of(projects[cut], names) for cut in CUTS}
    for cut in CUTS:
        sizes = [len(p.text) for p in passages[cut]]
        print(
            f"  {CUT_LABELS[cut]}: {len(sizes)} passages, mean {sum(sizes) / len(sizes):,.0f} "
            f"characters, longest {max(sizes):,}"
        )
    references = {}
    for cut in CUTS:
        texts = [p.text for p in passages[cut]]
        ids = [p.id for p in passages[cut]]
        vectors = pooled_vectors(texts, provider) if cut == "pooled" else None
        vectors = provider.embed_documents(texts) if vectors is None else vectors
        references[cut] = (Bm25(ids, texts), Dense(ids, vectors))
    asked = []
    for question in corpus.questions:
        one = Asked(question, past_window(passages["old"], question, provider))
        vector = provider.embed_query(question.question)
        for cut in CUTS:
            project = projects[cut]
            one.holding[cut] = holding(passages[cut], question)
            scope = {"user": user, "project": project, "kinds": ("document",), "k": DEEP}
            found = {
                "text": text_search(query=question.question, **scope),  # type: ignore[arg-type]
                "vector": vector_search(vector=vector, **scope),  # type: ignore[arg-type]
                "hybrid": hybrid_search(query=question.question, **scope),  # type: ignore[arg-type]
            }
            for method, hits in found.items():
                one.ranked[(cut, method)] = [str(hit.chunk_id) for hit in hits]
            bm25, dense = references[cut]
            lexical = bm25.rank(question.question, REFERENCE_DEPTH)
            nearest = dense.rank(vector, REFERENCE_DEPTH)
            one.ranked[(cut, "ref-bm25")] = lexical
            one.ranked[(cut, "ref-dense")] = nearest
            one.ranked[(cut, "ref-rrf")] = rrf((lexical, 1), (nearest, 1))
        asked.append(one)
    lengths = {p.id: len(p.text) for cut in CUTS for p in passages[cut]}
    return asked, lengths


def recall(asked: Sequence[Asked], cut: str, method: str, k: int) -> float:
    return sum(a.found(cut, method, k) for a in asked) / len(asked) if asked else 0.0


def within(
    asked: Sequence[Asked], cut: str, method: str, budget: int, lengths: dict[str, int]
) -> float:
    found = sum(a.found_within(cut, method, budget, lengths) for a in asked)
    return found / len(asked) if asked else 0.0


def report(asked: list[Asked], lengths: dict[str, int]) -> None:
    groups = [
        ("all", asked),
        ("past the old window", [a for a in asked if a.past_old_window]),
        ("within it", [a for a in asked if not a.past_old_window]),
    ]
    width = max(len(label) for label in METHODS.values())
    measures: list[tuple[str, Callable[[Sequence[Asked], str, str], float]]] = [
        (f"@{k}", lambda members, cut, method, k=k: recall(members, cut, method, k)) for k in DEPTHS
    ] + [
        (
            f"@{budget // 1000}k chars",
            lambda members, cut, method, b=budget: within(members, cut, method, b, lengths),
        )
        for budget in BUDGETS
    ]
    print("\nRecall of the passage holding the fact (old / pooled / new):")
    for name, members in groups:
        print(f"\n  {name} ({len(members)} questions)")
        print(f"  {'':<{width}}" + "".join(f"  {label:>20}" for label, _ in measures))
        for method, label in METHODS.items():
            cells = "".join(
                "  " + " ".join(f"{measure(members, cut, method):6.3f}" for cut in CUTS)
                for _, measure in measures
            )
            print(f"  {label:<{width}}{cells}")
    print("\nNew cut against the old, recall ratio (new / old), all questions:")
    for method, label in METHODS.items():
        ratios = []
        for title, measure in measures:
            old, new = measure(asked, "old", method), measure(asked, "new", method)
            ratios.append(f"{title} {new / old:5.2f}" if old else f"{title}   n/a")
        print(f"  {label:<{width}}  " + "   ".join(ratios))
    lost = [a for a in asked if not all(a.holding[cut] for cut in CUTS)]
    if lost:
        print(f"\n{len(lost)} questions have no passage holding their whole fact in one cut.")


def main() -> None:
    _django.setup(database=DATABASE)
    logging.getLogger("django-q").setLevel(logging.WARNING)
    from django.test import override_settings

    from apps.indexing.embeddings import get_embedding_provider

    corpus = files_load()
    sizes = [len(d.text) for d in corpus.documents]
    print(
        f"Embedding model: {get_embedding_provider().name}. Files: {len(corpus.documents)} of "
        f"{min(sizes):,}–{max(sizes):,} characters, {len(corpus.questions)} questions."
    )
    with tempfile.TemporaryDirectory() as media, override_settings(MEDIA_ROOT=media):
        user, projects = index_both_ways(corpus)
        start = time.perf_counter()
        asked, lengths = ask_all(corpus, user, projects)
        print(
            f"  asked {len(asked)} questions in each project in {time.perf_counter() - start:.1f} s"
        )
        report(asked, lengths)
        user.delete()  # type: ignore[attr-defined]


if __name__ == "__main__":
    main()
