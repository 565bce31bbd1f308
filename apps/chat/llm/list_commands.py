"""List commands read without a model (issue 28, failure 6): "add oat milk to my shopping
list", "add eggs, bread and milk to my shopping list", "tick off oat milk", "I bought the
oat milk", "oat milk is done", "put oat milk back", "remove oat milk from my shopping list".

The offline provider obeys them through the same memory tools a model calls (memory_add,
memory_list, memory_update), so the rulebook behind them is the one every door uses; this
module only reads the sentence and matches items by their words. Pure Python.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

ListAction = Literal["add", "tick_off", "restore", "remove"]

_LISTS = (
    ("shopping_item", r"shopping(?:\s+list)?|grocer(?:y|ies)(?:\s+list)?|buy\s+list"),
    ("task", r"to-?do(?:\s+list)?|to\s+do\s+list|tasks?(?:\s+list)?|task\s+list"),
    ("goal", r"goals?(?:\s+list)?"),
)
_LIST = "|".join(f"(?P<{kind}>{words})" for kind, words in _LISTS)
_ON_LIST = rf"(?:\s+(?:to|on|onto|from|off|in)\s+(?:my|the|our)\s+(?:{_LIST}))"
_END = r"[\s.!]*$"
_POLITE = r"^\s*(?:(?:please|ok(?:ay)?|and|also|now)[\s,]+)*"

# (action, explicit, pattern). An explicit command ("tick off X") that finds no item says
# so; an implicit one ("I bought X", "X is done") that finds none is an ordinary message.
_COMMANDS: tuple[tuple[ListAction, bool, str], ...] = (
    ("restore", True, rf"put\s+(?P<items>.+?)\s+back(?:{_ON_LIST})?"),
    ("add", True, rf"(?:add|put)\s+(?P<items>.+?){_ON_LIST}"),
    ("add", True, r"(?:I\s+need\s+to\s+buy|remind\s+me\s+to\s+buy)\s+(?P<items>.+?)"),
    ("restore", True, rf"(?:restore|untick|un-tick)\s+(?P<items>.+?){_ON_LIST}?"),
    ("remove", True, rf"(?:remove|delete|take|drop)\s+(?P<items>.+?)(?:\s+off)?{_ON_LIST}"),
    (
        "tick_off",
        True,
        rf"(?:tick|check|cross|mark)\s+(?:off\s+)?(?P<items>.+?)(?:\s+off)?"
        rf"(?:\s+as\s+done)?{_ON_LIST}?",
    ),
    (
        "tick_off",
        False,
        r"I(?:'ve|\s+have)?\s+(?:just\s+)?(?:bought|got|picked\s+up)\s+(?P<items>.+?)",
    ),
    ("tick_off", False, r"(?P<items>.+?)\s+(?:is|are)\s+(?:done|bought)"),
)
_PATTERNS = tuple(
    (action, explicit, re.compile(_POLITE + pattern + _END, re.IGNORECASE))
    for action, explicit, pattern in _COMMANDS
)
_SEPARATORS = re.compile(r"\s*,\s*(?:and\s+)?|\s+and\s+|\s*&\s*")
_LEADING = re.compile(r"^(?:the|some|a|an|my|our|more)\s+", re.IGNORECASE)
_TRAILING = re.compile(r"\s+(?:too|as\s+well|please)$", re.IGNORECASE)
_WORD = re.compile(r"[a-z0-9]+")


@dataclass(frozen=True)
class ListCommand:
    action: ListAction
    items: tuple[str, ...]
    # "shopping_item", "task" or "goal"; None when no list was named (then every list is
    # searched for the item, and an added one goes on the shopping list).
    claim_type: str | None
    explicit: bool = True


def read_list_command(text: str) -> ListCommand | None:
    """The list command ``text`` gives, or None when it is not one (a question never is)."""
    sentence = " ".join(text.split())
    if not sentence or sentence.endswith("?") or len(sentence) > 300:
        return None
    for action, explicit, pattern in _PATTERNS:
        match = pattern.match(sentence)
        if match is None:
            continue
        items = split_items(match.group("items"))
        if not items:
            continue
        named = next((kind for kind, _ in _LISTS if match.groupdict().get(kind)), None)
        return ListCommand(
            action=action,
            items=tuple(items),
            claim_type=named or ("shopping_item" if action == "add" else None),
            explicit=explicit,
        )
    return None


def split_items(text: str) -> list[str]:
    """ "eggs, bread and milk" → ["eggs", "bread", "milk"], each without "the" or "some"."""
    items = []
    for part in _SEPARATORS.split(text.strip()):
        item = _TRAILING.sub("", _LEADING.sub("", part.strip(" .!\"'“”")))
        if item:
            items.append(item)
    return items


def item_statement(item: str) -> str:
    """How an added item is stored: "oat milk" → "Oat milk"."""
    return item[:1].upper() + item[1:]


def matching(item: str, candidates: Sequence[tuple[int, str]]) -> list[tuple[int, str]]:
    """The candidates ``(number, statement)`` holding every word of ``item`` ("milk" finds
    "Oat milk"), or only the one that holds exactly its words when there is one."""
    wanted = _words(item)
    if not wanted:
        return []
    every = [c for c in candidates if wanted <= _words(c[1])]
    if every:
        exact = [c for c in every if _words(c[1]) == wanted]
        return exact or every
    return []


def _words(text: str) -> set[str]:
    return {_singular(word) for word in _WORD.findall(text.lower()) if word not in _FILLER}


def _singular(word: str) -> str:
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word


_FILLER = frozenset({"the", "some", "a", "an", "buy", "of", "my"})
