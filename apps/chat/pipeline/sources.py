"""The per-turn source registry: every item an answer may draw on gets a number `[N]`.

After seeds/004: the pipeline registers memory, facts and chunks before the model runs,
tools register what they find while it runs, and the footer maps each `[N]` back to its
origin. Pure Python; no Django.

Footer policy (a decision, seeds/004 lists everything): the footer lists only the sources
the answer actually cites. Uncited retrievals are often low-relevance AUTO hits; listing
them would claim the answer rests on them. The full list stays available through `items()`
for the "memory used" panel, and `footer(text, include_uncited=True)` gives the seeds/004
behaviour.

Numbers: while the model writes, `[N]` are registry numbers (registration order). A saved
answer is renumbered by first use (`renumbered`): the first source cited is [1], the
footer lists them in that order, and uncited sources follow the cited ones in the saved
source list (issue 17: an answer citing [3], [2], [1] read as if it had been shuffled).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from uuid import UUID

from apps.chat.llm.types import HELD_BACK, SourceItem

# One footer mark, shared with the quoting that strips it from quoted text (issue 28).
from apps.indexing.search import FOOTER_MARK, without_footer  # noqa: F401 - re-exported

DEFAULT_CITE_THRESHOLD = 0.3

# `[3]`, `[1, 2]`, `[1,2,5]`; not `arr[1]` (a word character before it), not a markdown link
# `[1](url)` and not a reference definition `[1]: url`.
_CITATION = re.compile(r"(?<![\w\\])\[(\d{1,4}(?:\s*,\s*\d{1,4})*)\](?![(:])")
_CODE = re.compile(r"```.*?(?:```|\Z)|`[^`\n]*`", re.DOTALL)
_FOOTER_TITLE_CHARS = 120


def passes_cite_threshold(score: float | None, threshold: float = DEFAULT_CITE_THRESHOLD) -> bool:
    """Whether a retrieved item is relevant enough to be registered and cited.

    Items without a score (referenced, attached or pinned claims, current facts) always
    pass: the user or the pipeline chose them, not a similarity search. The threshold is
    on whatever scale the caller's scores use; 0.3 suits cosine similarity (seeds/004).
    """
    return score is None or score >= threshold


class SourceRegistry:
    """Numbers sources 1, 2, 3 … in registration order, once per (kind, ref_id)."""

    def __init__(self) -> None:
        self._items: list[SourceItem] = []
        self._by_key: dict[tuple[str, str], int] = {}

    def register(
        self,
        kind: str,
        ref_id: str | int | UUID,
        title: str,
        excerpt: str,
        score: float | None = None,
        url: str | None = None,
        waiting: bool = False,
    ) -> int:
        """Return the item's number, registering it if this (kind, ref_id) is new.

        A repeat keeps its first number and first title and excerpt, so numbers already
        shown to the model never change meaning mid-turn.
        """
        key = (kind, str(ref_id))
        existing = self._by_key.get(key)
        if existing is not None:
            return existing
        number = len(self._items) + 1
        self._items.append(
            SourceItem(
                number=number,
                kind=kind,
                ref_id=str(ref_id),
                title=title,
                excerpt=excerpt,
                score=score,
                url=url,
                waiting=waiting,
            )
        )
        self._by_key[key] = number
        return number

    def items(self) -> list[SourceItem]:
        return list(self._items)

    def get(self, number: int) -> SourceItem | None:
        if 1 <= number <= len(self._items):
            return self._items[number - 1]
        return None

    def number_for(self, kind: str, ref_id: str | int | UUID) -> int | None:
        return self._by_key.get((kind, str(ref_id)))

    @property
    def has_sources(self) -> bool:
        return bool(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def citations_in(self, text: str) -> set[int]:
        """The valid source numbers the text cites (outside code)."""
        return {n for n in _cited_numbers(text) if self.get(n) is not None}

    def invalid_citations_in(self, text: str) -> set[int]:
        """Numbers cited in the text that no registered source has."""
        return {n for n in _cited_numbers(text) if self.get(n) is None}

    def cited_items(self, text: str) -> list[SourceItem]:
        """The cited sources in number order; what the footer and the page show."""
        cited = self.citations_in(text)
        return [item for item in self._items if item.number in cited]

    def strip_invalid_citations(self, text: str) -> str:
        """Remove `[N]` markers whose number is not registered, keeping code untouched.

        In a group such as `[1, 9]` only the invalid numbers go; a marker left empty is
        removed together with the space before it.
        """

        def fix(match: re.Match[str]) -> str:
            numbers = [int(part) for part in re.split(r"\s*,\s*", match.group(1))]
            valid = [str(n) for n in numbers if self.get(n) is not None]
            return f"[{', '.join(valid)}]" if valid else ""

        def fix_prose(prose: str) -> str:
            cleaned = _CITATION.sub(fix, prose)
            # "text [9]." became "text ." - close the gap the removal left.
            if cleaned == prose:
                return prose
            return re.sub(r"[ \t]+(?=[.,;:!?)]|$)", "", cleaned, flags=re.MULTILINE)

        return _map_prose(text, fix_prose)

    def with_held_back(self, text: str) -> str:
        """``text`` ending with "Waiting for your review: …" when it cites a statement of
        the user's that waits for their review and does not say so itself (issue 28): the
        prompt asks the model to, and a model may not; the offline reply always does."""
        waiting = [item for item in self.cited_items(text) if item.waiting]
        if not waiting or HELD_BACK.lower() in text.lower():
            return text
        held = "; ".join(f"“{_shown(item.excerpt)}” [{item.number}]" for item in waiting)
        return f"{text.rstrip()}\n\n{HELD_BACK}: {held}."

    def footer(self, text: str, *, include_uncited: bool = False) -> str:
        """The sources footer for an answer, or "" when there is nothing to list.

        Lists the sources `text` cites (see the module docstring), or every registered
        source with `include_uncited=True`.
        """
        return _footer(self.items() if include_uncited else self.cited_items(text))


@dataclass(frozen=True)
class Renumbered:
    """An answer with its sources numbered by first use (see the module docstring)."""

    text: str
    items: list[SourceItem]  # the cited in order of first use, then the uncited
    cited: frozenset[int]  # new numbers the text cites
    new_numbers: dict[int, int]  # registry number → new number

    def footer(self) -> str:
        return _footer([item for item in self.items if item.number in self.cited])


def renumbered(registry: SourceRegistry, text: str) -> Renumbered:
    """Renumber ``text``'s valid citations so the first cited source is [1], the next new
    one [2] …; invalid numbers are left to ``strip_invalid_citations``."""
    order: list[int] = []
    for number in _cited_numbers(text):
        if registry.get(number) is not None and number not in order:
            order.append(number)
    rest = [item.number for item in registry.items() if item.number not in order]
    new_numbers = {old: new for new, old in enumerate([*order, *rest], start=1)}

    def rewrite(match: re.Match[str]) -> str:
        numbers = [int(part) for part in re.split(r"\s*,\s*", match.group(1))]
        mapped = sorted({new_numbers.get(n, n) for n in numbers})
        return f"[{', '.join(str(n) for n in mapped)}]"

    items = [
        replace(item, number=new_numbers[item.number])
        for item in sorted(registry.items(), key=lambda item: new_numbers[item.number])
    ]
    return Renumbered(
        text=_map_prose(text, lambda prose: _CITATION.sub(rewrite, prose)),
        items=items,
        cited=frozenset(new_numbers[n] for n in order),
        new_numbers=new_numbers,
    )


def _footer(items: Sequence[SourceItem]) -> str:
    if not items:
        return ""
    # Two trailing spaces make a Markdown line break: with a bare newline the page
    # showed every source on one line.
    return FOOTER_MARK + "  \n".join(_footer_line(item) for item in items)


def _cited_numbers(text: str) -> list[int]:
    numbers: list[int] = []
    for prose in _prose_segments(text):
        for match in _CITATION.finditer(prose):
            numbers.extend(int(part) for part in re.split(r"\s*,\s*", match.group(1)))
    return numbers


def _prose_segments(text: str) -> Iterable[str]:
    position = 0
    for code in _CODE.finditer(text):
        yield text[position : code.start()]
        position = code.end()
    yield text[position:]


def _map_prose(text: str, transform: Callable[[str], str]) -> str:
    parts: list[str] = []
    position = 0
    for code in _CODE.finditer(text):
        parts.append(transform(text[position : code.start()]))
        parts.append(code.group(0))
        position = code.end()
    parts.append(transform(text[position:]))
    return "".join(parts)


def _footer_line(item: SourceItem) -> str:
    title = " ".join(item.title.split()) or item.kind
    if len(title) > _FOOTER_TITLE_CHARS:
        title = title[: _FOOTER_TITLE_CHARS - 1].rstrip() + "…"
    title = re.sub(r"([\\\[\]<>*_`])", r"\\\1", title)
    label = f"[{title}]({item.url})" if item.url else title
    return f"[{item.number}] {label} · {item.kind}"


def _shown(excerpt: str, limit: int = 120) -> str:
    flat = " ".join(excerpt.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"
