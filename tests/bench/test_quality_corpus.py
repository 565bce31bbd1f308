"""The retrieval-quality corpus (bench/quality) is what the benchmark claims it is: big
enough, correctly labelled, and not trivially solved by matching the question's words.
No database: this reads the JSON and regenerates it."""

from __future__ import annotations

import itertools
import re
import statistics
from collections import Counter
from datetime import datetime

import pytest

from bench.quality import friends
from bench.quality.friends import SPEAKERS
from bench.quality.generate import answer_pattern, generate
from bench.quality.lives import AGGREGATION, INFERENTIAL, MIN_DAYS_APART
from bench.quality.model import (
    CATEGORIES,
    CORPUS_PATH,
    Corpus,
    Question,
    answer_parts,
    corpus_load,
    split_halves,
)
from bench.quality.scoring import Outcome, recall
from bench.quality.values import POOLS

# Words a question and its evidence share without that meaning anything.
_STOPWORDS = """
    a an the and or of to in on at for with is are was were am be been do does did i me my
    we our us you your what which who whose where when why how that this it its can should
    have has had from as by about into than their they them so not now these days
"""
STOPWORDS = frozenset(_STOPWORDS.split())
WORD = re.compile(r"[a-z0-9]+")


@pytest.fixture(scope="module")
def corpus() -> Corpus:
    return corpus_load()


def content_words(text: str) -> set[str]:
    def stem(word: str) -> str:
        for suffix in ("ing", "ed", "es", "s"):
            if word.endswith(suffix) and len(word) - len(suffix) >= 3:
                return word[: -len(suffix)]
        return word

    return {stem(w) for w in WORD.findall(text.lower()) if w not in STOPWORDS and len(w) > 2}


def test_the_stored_corpus_is_what_the_generator_makes(corpus: Corpus) -> None:
    """Deterministic, and regenerated after every template change."""
    assert generate() == corpus, "run: .venv/bin/python -m bench.quality.generate"


def test_the_corpus_is_as_large_as_issue_8_asks(corpus: Corpus) -> None:
    assert len(corpus.conversations) >= 20
    assert corpus.turn_count >= 2_000
    assert len(corpus.questions) >= 300
    counts = Counter(q.category for q in corpus.questions)
    assert set(counts) == set(CATEGORIES)
    assert min(counts.values()) >= 30, counts
    assert CORPUS_PATH.stat().st_size < 2_000_000


def test_conversations_span_several_sessions_in_time_order(corpus: Corpus) -> None:
    for conversation in corpus.conversations:
        times = [datetime.fromisoformat(t.created_at) for t in conversation.turns]
        assert all(t.tzinfo is not None for t in times)
        assert times == sorted(times), conversation.title
        assert len({t.date() for t in times}) >= 3, conversation.title
        assert {t.role for t in conversation.turns} == {"user", "assistant"}
        assert all(t.content.strip() for t in conversation.turns)
    assert len({c.title for c in corpus.conversations}) == len(corpus.conversations)


def test_every_evidence_turn_exists_and_holds_its_part_of_the_answer(corpus: Corpus) -> None:
    for question in corpus.questions:
        assert question.evidence, question.id
        for evidence in question.evidence:
            conversation = corpus.conversations[evidence.conversation]
            assert 1 <= evidence.order <= len(conversation.turns), question.id
            assert evidence.contains.lower() in corpus.turn(evidence).content.lower()
        for part in answer_parts(question.answer):
            pattern = answer_pattern(part)
            assert any(pattern.search(corpus.turn(e).content) for e in question.evidence), (
                f"{question.id}: no evidence turn says {part!r}"
            )
            assert not pattern.search(question.question), f"{question.id} gives its answer away"


def test_answers_are_only_in_their_evidence_so_the_labels_are_complete(corpus: Corpus) -> None:
    for question in corpus.questions:
        patterns = [answer_pattern(part) for part in answer_parts(question.answer)]
        evidence = {(e.conversation, e.order) for e in question.evidence}
        holders = {
            (c, order)
            for c, conversation in enumerate(corpus.conversations)
            for order, turn in enumerate(conversation.turns, start=1)
            if any(pattern.search(turn.content) for pattern in patterns)
        }
        assert question.answer_only_in_evidence == (holders <= evidence), question.id
    assert all(q.answer_only_in_evidence for q in corpus.questions)


def test_multi_hop_questions_need_two_turns(corpus: Corpus) -> None:
    hops = [q for q in corpus.questions if q.category == "multi-hop"]
    assert all(len({(e.conversation, e.order) for e in q.evidence}) == 2 for q in hops)
    across = [q for q in hops if len({e.conversation for e in q.evidence}) == 2]
    assert len(across) >= len(hops) // 3, "a fair share spans two conversations"


def _days_said(corpus: Corpus, question: Question) -> list[datetime]:
    return sorted(datetime.fromisoformat(corpus.turn(e).created_at) for e in question.evidence)


def test_multi_session_answers_are_gathered_from_sessions_weeks_apart(corpus: Corpus) -> None:
    """Issue 31's aggregation family: every part of the answer is told in a turn of its
    own, each in another session, and the story spans months."""
    gathered = [q for q in corpus.questions if q.category == AGGREGATION]
    assert len(gathered) >= 30
    for question in gathered:
        parts = answer_parts(question.answer)
        assert len(parts) >= 2, question.id
        assert len(question.evidence) == len(parts), question.id
        assert sorted(e.contains for e in question.evidence) == sorted(parts), question.id
        days = _days_said(corpus, question)
        assert len({d.date() for d in days}) == len(days), f"{question.id}: one day each"
        assert all((b - a).days >= MIN_DAYS_APART - 1 for a, b in itertools.pairwise(days))
        for evidence in question.evidence:
            # The user's own news of a friend, or, in a transcript, the person's own words.
            if question.variant == SPEAKERS:
                said = corpus.turn(evidence).content
                assert said.startswith(f"{_person(question)}: "), question.id
            else:
                assert corpus.turn(evidence).role == "user", question.id
    spans = [(d[-1] - d[0]).days for d in (_days_said(corpus, q) for q in gathered)]
    assert statistics.median(spans) >= 90, "most stories are told over months"
    assert any(len(answer_parts(q.answer)) >= 3 for q in gathered)


def test_inferential_questions_share_no_word_with_their_evidence_but_a_name(
    corpus: Corpus,
) -> None:
    """Issue 31's open-domain family: the turns name the things, not the question's
    words; the only word they may share is the person's name (half the turns say "my
    old flatmate" instead)."""
    inferred = [q for q in corpus.questions if q.category == INFERENTIAL]
    assert len(inferred) >= 30
    for question in inferred:
        assert len(question.evidence) == 2, question.id
        asked = content_words(question.question)
        said = set().union(*(content_words(corpus.turn(e).content) for e in question.evidence))
        assert asked & said <= content_words(_person(question)), (question.id, asked & said)
        assert len(set(_days_said(corpus, question))) == 2, question.id


def test_the_same_person_is_named_in_turns_that_answer_other_questions(corpus: Corpus) -> None:
    """The name alone does not pick the evidence: each person of the new families is
    named in at least twice as many turns as any one question's evidence."""
    new = [q for q in corpus.questions if q.category in (AGGREGATION, INFERENTIAL)]
    turns = [t.content for c in corpus.conversations for t in c.turns]
    for question in new:
        name = _person(question)
        named = sum(bool(re.search(rf"\b{name}\b", t)) for t in turns)
        assert named >= 2 * len(question.evidence), (question.id, name, named)


def _person(question: Question) -> str:
    """The person a question of the new families asks about: its one person's name."""
    (name,) = (w for w in re.findall(r"[A-Z][a-z]+", question.question) if w in POOLS["name"])
    return name


def test_transcripts_are_told_by_two_friends_each_heading_their_turns(corpus: Corpus) -> None:
    """Issue 31's speaker-aware variant (``friends``): a conversation per pair of friends,
    every turn headed by its speaker's name, one friend the user and the other the
    assistant; each person is asked about in the third person and the evidence is their
    own first-person turns, while their friend tells the same kinds of thread."""
    told = [q for q in corpus.questions if q.variant == SPEAKERS]
    assert {q.category for q in told} == {AGGREGATION, INFERENTIAL}
    assert len(told) >= 30
    transcripts = {e.conversation for q in told for e in q.evidence}
    assert len(transcripts) == friends.PAIRS
    for index in transcripts:
        turns = corpus.conversations[index].turns
        speakers = {role: {t.content.split(": ")[0] for t in turns if t.role == role}
                    for role in ("user", "assistant")}  # fmt: skip
        assert all(len(names) == 1 for names in speakers.values()), speakers
        assert speakers["user"] != speakers["assistant"]
    for question in told:
        person = _person(question)
        for evidence in question.evidence:
            said = corpus.turn(evidence).content.removeprefix(f"{person}: ")
            assert person not in said, f"{question.id}: the turn names its own speaker"
            assert re.search(r"\b(I|my|me|our|we|I'm|I've)\b", said, re.IGNORECASE), question.id
    # Both friends of a pair are asked the same kind of question about their own lives.
    asked = Counter(
        (question.evidence[0].conversation, re.sub(_person(question), "", question.question))
        for question in told
    )
    assert max(asked.values()) >= 2


def test_the_transcripts_leave_the_rest_of_the_corpus_as_it_was(
    corpus: Corpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Made after everything else, with a random generator of their own: without them
    the corpus is the same, so the earlier questions' evidence still holds."""
    monkeypatch.setattr(friends, "PAIRS", 0)
    without = generate()
    kept = len(without.conversations)
    assert corpus.conversations[:kept] == without.conversations
    assert corpus.questions[: len(without.questions)] == without.questions
    assert all(q.variant == SPEAKERS for q in corpus.questions[len(without.questions) :])


def test_the_halves_are_disjoint_and_split_every_family(corpus: Corpus) -> None:
    tuning, test = split_halves(corpus.questions)
    assert not {q.id for q in tuning} & {q.id for q in test}
    assert len(tuning) + len(test) == len(corpus.questions)
    for category in CATEGORIES:
        in_tuning = sum(q.category == category for q in tuning)
        in_test = sum(q.category == category for q in test)
        assert abs(in_tuning - in_test) <= 2, category
        assert in_test >= 15, category
    for variant in {q.variant for q in corpus.questions}:
        for category in CATEGORIES:
            in_tuning = sum((q.category, q.variant) == (category, variant) for q in tuning)
            in_test = sum((q.category, q.variant) == (category, variant) for q in test)
            assert abs(in_tuning - in_test) <= 1, (category, variant)


def test_a_variant_moves_no_earlier_question_from_its_half(corpus: Corpus) -> None:
    earlier = [q for q in corpus.questions if not q.variant]
    tuning, test = split_halves(corpus.questions)
    alone_tuning, alone_test = split_halves(earlier)
    assert {q.id for q in alone_tuning} <= {q.id for q in tuning}
    assert {q.id for q in alone_test} <= {q.id for q in test}


def test_the_new_families_are_deterministic_and_change_with_the_seed() -> None:
    again = generate()
    other = generate(seed=7)
    new = {AGGREGATION, INFERENTIAL}
    assert [q for q in again.questions if q.category in new] == [
        q for q in corpus_load().questions if q.category in new
    ]
    assert [q.question for q in other.questions if q.category in new] != [
        q.question for q in again.questions if q.category in new
    ]


def test_in_thread_answers_are_replies_to_a_question_on_the_topic(corpus: Corpus) -> None:
    """The in-thread family (issue 19): the answer is the user's reply to the assistant's
    question just before it, in a thread that named its topic a few turns earlier."""
    threads = [q for q in corpus.questions if q.category == "in-thread"]
    assert len(threads) >= 30
    for question in threads:
        (evidence,) = question.evidence
        turns = corpus.conversations[evidence.conversation].turns
        reply, prompt = turns[evidence.order - 1], turns[evidence.order - 2]
        assert (reply.role, prompt.role) == ("user", "assistant"), question.id
        assert prompt.content.endswith("?"), question.id
        assert len(reply.content) < 80, question.id


def test_preference_updates_point_at_the_latest_statement(corpus: Corpus) -> None:
    updates = [q for q in corpus.questions if q.category == "preference-update"]
    for question in updates:
        (current,) = question.evidence
        assert question.superseded, question.id
        said_at = datetime.fromisoformat(corpus.turn(current).created_at)
        earlier = [datetime.fromisoformat(corpus.turn(s).created_at) for s in question.superseded]
        assert earlier == sorted(earlier), question.id
        assert earlier[-1] < said_at, question.id
        for superseded in question.superseded:
            assert corpus.turn(superseded).role == "user"
            assert not answer_pattern(question.answer).search(corpus.turn(superseded).content)
    assert any(len(q.superseded) == 2 for q in updates), "some change their mind twice"


def test_temporal_questions_agree_with_the_turn_dates(corpus: Corpus) -> None:
    month_named = re.compile(
        r"in (January|February|March|April|May|June|July|August|"
        r"September|October|November|December) (\d{4})"
    )
    temporal = [q for q in corpus.questions if q.category == "temporal"]
    dated = 0
    for question in temporal:
        days = [datetime.fromisoformat(corpus.turn(e).created_at) for e in question.evidence]
        if match := month_named.search(question.question):
            dated += 1
            assert any(f"{d:%B %Y}" == f"{match[1]} {match[2]}" for d in days), question.id
        if re.fullmatch(r"\d{1,2} [A-Z][a-z]+", question.answer):  # "When did I …?"
            dated += 1
            assert any(f"{d.day} {d:%B}" == question.answer for d in days), question.id
        if "same month" in question.question:
            dated += 1
            assert len({(d.year, d.month) for d in days}) == 1, question.id
    assert dated == len(temporal)


def test_full_text_alone_does_not_trivially_win(corpus: Corpus) -> None:
    """Questions are paraphrased: few repeat every word of their evidence, a good share
    share none of them (only meaning links them), most share some (a name, a topic)."""
    every, none = 0, 0
    for question in corpus.questions:
        asked = content_words(question.question)
        said = set().union(*(content_words(corpus.turn(e).content) for e in question.evidence))
        every += asked <= said
        none += not asked & said
    assert every / len(corpus.questions) < 0.15
    assert 0.1 <= none / len(corpus.questions) <= 0.5


def test_recall_counts_the_share_of_evidence_found() -> None:
    assert recall(["a", "b"], ["x", "b", "y"], k=2) == 0.5
    assert recall(["a", "b"], ["x", "y", "a", "b"], k=2) == 0.0
    outcome = Outcome(
        "q1",
        "multi-hop",
        ["a", "b"],
        {"hybrid": ["a2", "b"]},
        neighbours={"a": {"a1", "a2"}, "b": set()},
    )
    assert outcome.recall("hybrid", 10) == 0.5
    assert outcome.recall_near("hybrid", 10) == 1.0
    assert outcome.first_rank("hybrid") == 2


def test_a_stale_preference_counts_only_when_it_outranks_the_current_one() -> None:
    outcome = Outcome(
        "q1",
        "preference-update",
        ["new"],
        {"text": ["old", "new"], "vector": ["new", "old"], "hybrid": ["x"]},
        superseded=["old"],
    )
    assert outcome.stale_first("text", 10)
    assert not outcome.stale_first("vector", 10)
    assert not outcome.stale_first("hybrid", 10)
