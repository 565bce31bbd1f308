"""Indexing throughput against the raw embedder (issue 6: ratio ≥ 0.85).

1,000+ generated documents of mixed kinds (text, Markdown, JSON, CSV, HTML, code, Word,
PDF, e-mail) are indexed through the real pipeline — folder scan, hash, extraction,
chunking, embedding with the real model, one-transaction chunk writes with the HNSW and GIN
indexes maintained, progress published — and the same chunk texts are embedded by the raw
provider alone, in the same run. The work is split into rounds that alternate which of the
two goes first, so that load from other processes falls on both alike.

Run: .venv/bin/python bench/bench_indexing.py [--documents 1200] [--rounds 4]
Uses the database cairn_bench (never the dev one) and a temporary folder.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench import _django

TARGET_RATIO = 0.85
_TOPICS = [
    "the quarterly budget",
    "a flight to Lisbon",
    "the database migration",
    "the garden shed",
    "our onboarding checklist",
    "the marathon training plan",
    "the dentist appointment",
    "the kitchen renovation",
    "the search latency regression",
    "the family reunion",
    "the new laptop order",
    "the piano lessons",
    "the insurance renewal",
    "the team offsite",
]
_VERBS = ["covers", "reviews", "changes", "explains", "summarises", "questions", "updates"]
_DETAILS = [
    "with figures from the last three months",
    "and the open questions from Monday",
    "because the schedule moved again",
    "including the contacts and the deadlines",
    "after the vendor sent a revised quote",
    "so that everyone knows who does what",
    "with a short list of risks and how we handle each of them",
]


def sentence(rng: random.Random) -> str:
    return (
        f"This note {rng.choice(_VERBS)} {rng.choice(_TOPICS)} {rng.choice(_DETAILS)}, "
        f"item {rng.randint(1, 999)}."
    )


def paragraph(rng: random.Random, chars: int) -> str:
    text = ""
    while len(text) < chars:
        text += sentence(rng) + (" " if rng.random() < 0.8 else "\n\n")
    return text.strip()


def document_size(rng: random.Random) -> int:
    """Mostly one passage, a tenth spanning several (2,048-character chunks)."""
    roll = rng.random()
    if roll < 0.6:
        return rng.randint(200, 700)
    if roll < 0.9:
        return rng.randint(700, 2000)
    return rng.randint(2000, 6000)


def write_document(folder: Path, n: int, rng: random.Random) -> None:
    from tests.indexing import samples

    text = paragraph(rng, document_size(rng))
    kind = n % 10
    if kind in (0, 1, 2):
        (folder / f"note{n}.txt").write_text(text)
    elif kind in (3, 4):
        (folder / f"note{n}.md").write_text(f"# Note {n}\n\n{text}")
    elif kind == 5:
        (folder / f"data{n}.json").write_text(json.dumps({"id": n, "summary": text}, indent=2))
    elif kind == 6:
        rows = "\n".join(f"{i},{part.strip()}" for i, part in enumerate(text.split(".")) if part)
        (folder / f"table{n}.csv").write_text("row,text\n" + rows)
    elif kind == 7:
        body = "".join(f"<p>{part}</p>" for part in text.split("\n\n"))
        (folder / f"page{n}.html").write_text(f"<html><title>Page {n}</title><body>{body}</body>")
    elif kind == 8:
        samples.write_docx(folder / f"report{n}.docx", text.split("\n\n"))
    else:
        lines = [text[i : i + 80] for i in range(0, min(len(text), 2400), 80)]
        samples.write_pdf(folder / f"scan{n}.pdf", [lines])


def chunk_texts(folder: Path) -> list[str]:
    """The chunk texts the pipeline will embed, computed ahead and outside the timing."""
    from apps.indexing.chunking import chunk_file_text
    from apps.indexing.extract import extract_text

    texts: list[str] = []
    for path in sorted(folder.iterdir()):
        texts.extend(chunk.text for chunk in chunk_file_text(extract_text(path).text))
    return texts


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--documents", type=int, default=1200)
    parser.add_argument("--rounds", type=int, default=4)
    options = parser.parse_args()
    _django.setup()

    from apps.accounts.models import User
    from apps.indexing.embeddings import get_embedding_provider
    from apps.indexing.models import Chunk, Document, Source
    from apps.indexing.services import source_create_folder, source_scan_run
    from apps.projects.services import project_ensure_personal

    user, _ = User.objects.get_or_create(email="indexing@indexing-bench.invalid")
    project = project_ensure_personal(user=user)
    Source.objects.filter(project=project).delete()
    provider = get_embedding_provider()
    provider.embed_documents([sentence(random.Random(0))] * 8)  # load and warm the model

    rng = random.Random(42)
    with tempfile.TemporaryDirectory(prefix="cairn-bench-") as temporary:
        rounds = []
        per_round = -(-options.documents // options.rounds)
        for index in range(options.rounds):
            folder = Path(temporary) / f"round{index}"
            folder.mkdir()
            for n in range(index * per_round, min(options.documents, (index + 1) * per_round)):
                write_document(folder, n, rng)
            source = source_create_folder(
                user=user, project=project, root_path=str(folder), trusted=True
            )
            rounds.append((folder, source, chunk_texts(folder)))
        print(
            f"{options.documents} documents in {options.rounds} rounds, "
            f"{sum(len(texts) for _, _, texts in rounds)} chunks",
            flush=True,
        )

        pipeline_s = raw_s = 0.0
        for index, (_folder, source, texts) in enumerate(rounds):

            def run_raw(texts: list[str] = texts) -> float:
                start = time.perf_counter()
                provider.embed_documents(texts)
                return time.perf_counter() - start

            def run_pipeline(source: Source = source) -> float:
                start = time.perf_counter()
                source_scan_run(source_id=source.pk, inline=True)
                return time.perf_counter() - start

            if index % 2:
                pipeline, raw = run_pipeline(), run_raw()
            else:
                raw, pipeline = run_raw(), run_pipeline()
            pipeline_s, raw_s = pipeline_s + pipeline, raw_s + raw
            print(
                f"  round {index}: {len(texts):5d} chunks  pipeline {pipeline:6.2f} s  "
                f"raw embedder {raw:6.2f} s  ratio {raw / pipeline:4.2f}",
                flush=True,
            )

        sources = [source for _, source, _ in rounds]
        chunks = Chunk.objects.filter(document__source__in=sources).count()
        indexed = Document.objects.filter(source__in=sources, status="indexed").count()
        expected = sum(len(texts) for _, _, texts in rounds)
        pipeline_rate, raw_rate = chunks / pipeline_s, expected / raw_s
        ratio = pipeline_rate / raw_rate
        print(
            f"documents indexed {indexed}/{options.documents}, chunks written {chunks} "
            f"(expected {expected})"
        )
        print(
            f"{'pipeline (scan → extract → chunk → embed → write)':<52} "
            f"{pipeline_rate:7.1f} chunks/s  {options.documents / pipeline_s:7.1f} docs/s"
        )
        print(f"{'raw embedder (same chunk texts)':<52} {raw_rate:7.1f} chunks/s")
        verdict = "OK" if ratio >= TARGET_RATIO else "UNDER"
        print(
            f"{'throughput ratio pipeline / raw':<52} {ratio:7.2f}   target ≥ {TARGET_RATIO}"
            f"  {verdict}"
        )
        Source.objects.filter(pk__in=[s.pk for s in sources]).delete()


if __name__ == "__main__":
    main()
