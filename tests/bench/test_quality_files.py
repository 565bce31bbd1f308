"""The files of the retrieval-quality corpus (bench/quality/files.json): regenerated the
same, sizes as promised, every question's evidence a span of its file holding the answer,
and half the facts late in an old 2,048-character chunk. No database."""

from __future__ import annotations

from dataclasses import asdict

import pytest

from apps.indexing.chunking import chunk_file_text
from bench.quality.documents import FileCorpus, files_load, generate


@pytest.fixture(scope="module")
def files() -> FileCorpus:
    return files_load()


def test_the_stored_files_are_what_the_generator_makes(files: FileCorpus) -> None:
    assert asdict(generate()) == asdict(files)


def test_files_are_long_prose_documents(files: FileCorpus) -> None:
    assert 10 <= len(files.documents) <= 80
    assert all(3_000 <= len(d.text) <= 12_500 for d in files.documents)
    assert len({d.name for d in files.documents}) == len(files.documents)
    assert all("\n\n" in d.text for d in files.documents)


def test_each_question_points_at_its_fact_in_its_file(files: FileCorpus) -> None:
    assert len(files.questions) >= 60
    assert len({q.id for q in files.questions}) == len(files.questions)
    for question in files.questions:
        text = files.documents[question.document].text
        fact = text[question.start : question.end]
        assert fact.endswith(".")
        assert text.count(fact) == 1
        assert question.question.endswith("?")
        assert question.question not in text


def test_many_facts_lie_late_in_an_old_chunk(files: FileCorpus) -> None:
    late = 0
    for question in files.questions:
        text = files.documents[question.document].text
        holders = [
            c for c in chunk_file_text(text) if c.start <= question.start and question.end <= c.end
        ]
        assert holders
        late += all(question.start - c.start > 1_000 for c in holders)
    assert late >= len(files.questions) // 5
