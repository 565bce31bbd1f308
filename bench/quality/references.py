"""Reference retrievers for the quality benchmark (issue 19): what a few lines of Python
reach on the same turns, for Cairn's search to be measured against in the same run.

``Bm25`` is plain Okapi BM25 (k1 1.2, b 0.75, Lucene's idf) over lower-cased words
without English stop words, no stemming: the script the issue's table used. ``Dense`` is
exact cosine search over the embedding model's vectors. ``rrf`` fuses rankings by
reciprocal rank (k = 60). Pure functions over turn texts and ids, tested without a
database (tests/bench/test_quality_references.py).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

import numpy as np

K1 = 1.2
B = 0.75
RRF_K = 60
_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")

_STOP_WORDS_TEXT = """
a about above after again against all am an and any are aren't as at be because been
before being below between both but by can can't cannot could couldn't did didn't do does
doesn't doing don't down during each few for from further had hadn't has hasn't have
haven't having he he'd he'll he's her here here's hers herself him himself his how how's
i i'd i'll i'm i've if in into is isn't it it's its itself let's me more most mustn't my
myself no nor not of off on once only or other ought our ours ourselves out over own same
shan't she she'd she'll she's should shouldn't so some such than that that's the their
theirs them themselves then there there's these they they'd they'll they're they've this
those through to too under until up very was wasn't we we'd we'll we're we've were
weren't what what's when when's where where's which while who who's whom why why's with
won't would wouldn't you you'd you'll you're you've your yours yourself yourselves"""
STOP_WORDS = frozenset(_STOP_WORDS_TEXT.split())


def words(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.lower()) if w not in STOP_WORDS]


class Bm25:
    """Okapi BM25 over ``texts`` (one per id)."""

    def __init__(self, ids: Sequence[str], texts: Sequence[str]) -> None:
        self.ids = list(ids)
        self.counts = [Counter(words(text)) for text in texts]
        self.lengths = [sum(counts.values()) for counts in self.counts]
        self.average = sum(self.lengths) / max(len(self.lengths), 1)
        frequency: Counter[str] = Counter()
        for counts in self.counts:
            frequency.update(counts.keys())
        total = len(self.counts)
        self.idf = {
            term: math.log(1 + (total - df + 0.5) / (df + 0.5)) for term, df in frequency.items()
        }
        self.postings: dict[str, list[int]] = {}
        for index, counts in enumerate(self.counts):
            for term in counts:
                self.postings.setdefault(term, []).append(index)

    def rank(self, query: str, k: int) -> list[str]:
        scores: dict[int, float] = {}
        for term in set(words(query)):
            idf = self.idf.get(term)
            if idf is None:
                continue
            for index in self.postings[term]:
                tf = self.counts[index][term]
                norm = K1 * (1 - B + B * self.lengths[index] / self.average)
                scores[index] = scores.get(index, 0.0) + idf * tf * (K1 + 1) / (tf + norm)
        best = sorted(scores.items(), key=lambda item: (-item[1], item[0]))[:k]
        return [self.ids[index] for index, _ in best]


class Dense:
    """Exact nearest neighbours by cosine similarity."""

    def __init__(self, ids: Sequence[str], vectors: np.ndarray) -> None:
        self.ids = list(ids)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        self.vectors = vectors / np.maximum(norms, 1e-12)

    def rank(self, query_vector: np.ndarray, k: int) -> list[str]:
        scores = self.vectors @ (query_vector / max(float(np.linalg.norm(query_vector)), 1e-12))
        best = np.argsort(-scores, kind="stable")[:k]
        return [self.ids[int(index)] for index in best]


def rrf(*rankings: tuple[Sequence[str], float]) -> list[str]:
    """Weighted reciprocal rank fusion of ``(ranking, weight)`` pairs."""
    scores: dict[str, float] = {}
    for ranking, weight in rankings:
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + weight / (RRF_K + rank)
    return [item for item, _ in sorted(scores.items(), key=lambda pair: -pair[1])]


def windows(turns: Sequence[str]) -> list[str]:
    """Each turn of one conversation with the turns before and after it."""
    return [" ".join(turns[max(0, i - 1) : i + 2]) for i in range(len(turns))]
