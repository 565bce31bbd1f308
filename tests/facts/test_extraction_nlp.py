"""The spaCy pipeline: loaded once per process, thread-safe, with a rule-only fallback."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from spacy.language import Language

from apps.facts.extraction import extract_facts, nlp

NOW = datetime(2025, 6, 11, 10, 0, tzinfo=UTC)
TEXT = "My wife Anna and I had lunch with John Smith in London. My name is Peter Parker."


@pytest.fixture
def fallback() -> Language:
    return nlp.load_nlp("cairn_no_such_model")


@pytest.fixture
def fresh_singleton() -> Iterator[None]:
    nlp.reset_for_tests()
    yield
    nlp.reset_for_tests()


def test_the_packaged_model_runs_only_the_recogniser_behind_the_ruler() -> None:
    pipeline = nlp.get_nlp()
    assert nlp.has_recogniser(pipeline)
    assert pipeline.pipe_names == ["contact_ruler", "ner"]


def test_the_ruler_marks_addresses_so_the_recogniser_leaves_them_alone() -> None:
    doc = nlp.get_nlp()("write to jane.doe@acme.io or see https://acme.io today")
    assert [(ent.text, ent.label_) for ent in doc.ents][:2] == [
        ("jane.doe@acme.io", "EMAIL"),
        ("https://acme.io", "URL"),
    ]


def test_fallback_when_the_model_is_missing(fallback: Language) -> None:
    assert not nlp.has_recogniser(fallback)
    assert fallback.pipe_names == ["contact_ruler"]
    assert [e.label_ for e in fallback("mail a@b.io").ents] == ["EMAIL"]


def test_fallback_keeps_phrase_rules_and_drops_bare_mentions(fallback: Language) -> None:
    with_model = {f.key: f.value for f in extract_facts(TEXT, now=NOW).facts}
    rules_only = {f.key: f.value for f in extract_facts(TEXT, now=NOW, nlp=fallback).facts}

    assert rules_only == {"user.relations.wife": "Anna", "user.name": "Peter Parker"}
    assert with_model == {
        **rules_only,
        "mentioned.person.john_smith": "John Smith",
        "mentioned.place.london": "London",
    }


def test_fallback_is_what_get_nlp_loads_without_the_model(
    monkeypatch: pytest.MonkeyPatch, fresh_singleton: None
) -> None:
    monkeypatch.setattr(nlp, "MODEL_NAME", "cairn_no_such_model")
    assert not nlp.has_recogniser(nlp.get_nlp())
    facts = extract_facts("I live in Berlin, said John Smith", now=NOW).facts
    assert [(f.key, f.value) for f in facts] == [("user.location", "Berlin")]


def test_loaded_once_per_process_even_when_threads_race(
    monkeypatch: pytest.MonkeyPatch, fresh_singleton: None
) -> None:
    calls = []
    real_load = nlp.load_nlp
    started = threading.Barrier(8)

    def counting_load(model_name: str = nlp.MODEL_NAME) -> Language:
        calls.append(model_name)
        return real_load("cairn_no_such_model")  # fast: the race is what is tested

    monkeypatch.setattr(nlp, "load_nlp", counting_load)
    seen: list[Language] = []

    def worker() -> None:
        started.wait()
        seen.append(nlp.get_nlp())

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert len(calls) == 1
    assert len({id(p) for p in seen}) == 1


def test_extraction_from_many_threads_gives_the_same_answer() -> None:
    expected = extract_facts(TEXT, now=NOW)
    results: list[object] = []

    def worker() -> None:
        for _ in range(5):
            results.append(extract_facts(TEXT, now=NOW))

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == [expected] * 20
