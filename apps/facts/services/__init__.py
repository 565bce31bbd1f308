"""Writes to project facts (DESIGN §4, §7 step 3) and the relevance read of §7 step 5.

* ``fact_store`` / ``facts_store_many`` — stored, updated or unchanged; history kept.
* ``fact_retract`` — the current value stops being current; history kept.
* ``facts_persist`` — a user message's extracted facts, stored in one transaction.
* ``facts_relevant`` — the current facts a question needs, and their topic count.
"""

from .persist import FactsPersistResult, facts_persist
from .relevant import MAX_QUERY_CHARS, FactsRelevantResult, facts_relevant
from .store import (
    FactWrite,
    FactWriteResult,
    WriteOutcome,
    fact_retract,
    fact_store,
    facts_store_many,
    prepare_write,
)
from .values import MAX_VALUE_CHARS, key_topic, normalize_key, normalize_value

__all__ = [
    "MAX_QUERY_CHARS",
    "MAX_VALUE_CHARS",
    "FactWrite",
    "FactWriteResult",
    "FactsPersistResult",
    "FactsRelevantResult",
    "WriteOutcome",
    "fact_retract",
    "fact_store",
    "facts_persist",
    "facts_relevant",
    "facts_store_many",
    "key_topic",
    "normalize_key",
    "normalize_value",
    "prepare_write",
]
