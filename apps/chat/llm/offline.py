"""The offline provider (DESIGN §7): answers from the turn's sources, without a network.

It is the default when no API key is set, so a fresh install works end to end and tests
are deterministic. The answer lists what the turn's memory and sources say about the
question, most relevant first, each with its `[N]`, and streams word by word. "Remember
that …" becomes a real `memory_add` tool call when the pipeline offers the tool.
Word counts stand in for token counts in `StreamDone.usage`.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator, Sequence

from apps.chat.llm.execution import run_tool_call
from apps.chat.llm.list_commands import (
    ListCommand,
    item_statement,
    matching,
    read_list_command,
)
from apps.chat.llm.tool_names import MEMORY_ADD, MEMORY_LIST, MEMORY_UPDATE
from apps.chat.llm.types import (
    DEFAULT_MAX_TOKENS,
    HELD_BACK,
    ChatTurn,
    CompletionTask,
    ModelRole,
    SourceItem,
    StreamDone,
    StreamEvent,
    TextDelta,
    ToolCall,
    ToolExecutor,
    ToolResult,
    ToolSpec,
    Usage,
)
from apps.core.words import STOP_WORDS

OFFLINE_MODEL = "offline"
_REMEMBER = re.compile(
    r"^\s*(?:please\s+)?(?:remember|note|save)(?:\s+that)?[\s:,]+(?P<statement>.+?)\s*$",
    re.IGNORECASE | re.DOTALL,
)
_MEMORY_LINE = re.compile(
    r"^- \[(?P<label>[^\]]*)\] \[[^\]]*\] #(?P<number>\d+) (?P<rest>.*)$", re.MULTILINE
)
_WORD = re.compile(r"[a-z0-9]+")
# Where the next sentence starts: after . ! ? or an ellipsis, closing quotes or brackets,
# and whitespace.
_SENTENCE_BREAK = re.compile("[.!?\u2026][\"'\u201d\u2019)\\]]*\\s+")
_PIECE = re.compile(r"\S+\s*|\s+")
_EXCERPT_CHARS = 220
# A source that shares no word with the question is still shown when its meaning is this
# close (cosine); the pipeline's cite threshold has already dropped the distant ones.
CLOSE_BY_MEANING = 0.45


class OfflineProvider:
    name = "offline"

    def __init__(
        self,
        *,
        main_model: str = OFFLINE_MODEL,
        cheap_model: str = OFFLINE_MODEL,
        word_delay: float = 0.0,
        max_sources: int = 5,
    ) -> None:
        self._models: dict[ModelRole, str] = {"main": main_model, "cheap": cheap_model}
        self._word_delay = word_delay
        self._max_sources = max_sources

    def model_name(self, role: ModelRole) -> str:
        return self._models[role]

    async def aclose(self) -> None:
        return None

    async def stream(
        self,
        *,
        system: str,
        messages: Sequence[ChatTurn],
        tools: Sequence[ToolSpec] = (),
        tool_executor: ToolExecutor | None = None,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        model_role: ModelRole = "main",
        sources: Sequence[SourceItem] = (),
    ) -> AsyncIterator[StreamEvent]:
        question = next((t.content for t in reversed(messages) if t.role == "user"), "")
        remember = _REMEMBER.match(question)
        offered = {spec.name for spec in tools}
        command = read_list_command(question)
        obeyed: list[str] = []
        if command and tool_executor is not None and offered >= _LIST_TOOLS:
            async for event in _obey(command, offered, tool_executor, obeyed):
                yield event
        if obeyed and obeyed[0]:
            text = obeyed[0]
        elif remember and tool_executor is not None and MEMORY_ADD in offered:
            statement = " ".join(remember.group("statement").split())
            call = ToolCall(
                id="offline_call_1",
                name=MEMORY_ADD,
                input={"statement": statement, "asked_by_user": True},
            )
            yield call
            result = await run_tool_call(call, available=offered, executor=tool_executor)
            yield result
            text = _remembered_reply(statement, result)
        else:
            text = compose_list_reply(system) or compose_offline_reply(
                question, sources, max_sources=self._max_sources
            )

        pieces = _PIECE.findall(text)
        for piece in pieces:
            await asyncio.sleep(self._word_delay)  # also lets other tasks run and cancel us
            yield TextDelta(piece)
        words_in = len(system.split()) + sum(len(t.content.split()) for t in messages)
        yield StreamDone(
            stop_reason="end_turn",
            usage=Usage(input_tokens=words_in, output_tokens=len(pieces)),
            model=self.model_name(model_role),
        )

    async def complete(
        self,
        *,
        system: str,
        prompt: str,
        task: CompletionTask = "other",
        max_tokens: int = 1024,
        model_role: ModelRole = "cheap",
    ) -> str:
        """Distillation: the non-referenced memory lines as compact bullets; alignment:
        each `[N]` checked by word overlap with its source (no correction); extraction:
        nothing found; other: empty."""
        if task == "distill":
            return distill_memory_lines(prompt)
        if task == "align":
            return json.dumps(review_by_overlap(prompt))
        if task == "extract":
            return "[]"
        return ""


_LIST_TOOLS = {MEMORY_ADD, MEMORY_LIST, MEMORY_UPDATE}
_LISTED = re.compile(r"^\[\d+\] #(?P<number>\d+) (?P<statement>.*?)(?: \(done [^()]*\))?$", re.M)
_LIST_WORDS = {"shopping_item": "shopping list", "task": "tasks", "goal": "goals"}
_DONE_WORDS = {"tick_off": "Ticked off", "restore": "Back on", "remove": "Removed from"}
_UPDATE_ACTIONS = {"tick_off": "tick_off", "restore": "restore", "remove": "retract"}


async def _obey(
    command: ListCommand, offered: set[str], executor: ToolExecutor, reply: list[str]
) -> AsyncIterator[StreamEvent]:
    """Carry out a list command with the memory tools, as a model would: add each item, or
    find each by its words on the list (``memory_list``) and change it (``memory_update``),
    asking when two match. ``reply`` receives the answer; it stays empty when an implicit
    command ("I bought a bike") names nothing on the list: then it was no command."""
    calls = 0

    async def call(name: str, tool_input: dict[str, object]) -> AsyncIterator[StreamEvent]:
        nonlocal calls
        calls += 1
        request = ToolCall(id=f"offline_call_{calls}", name=name, input=tool_input)
        yield request
        yield await run_tool_call(request, available=offered, executor=executor)

    where = _LIST_WORDS[command.claim_type or "shopping_item"]
    lines: list[str] = []
    if command.action == "add":
        added = []
        for item in command.items:
            async for event in call(
                MEMORY_ADD,
                {
                    "statement": item_statement(item),
                    "claim_types": [command.claim_type],
                    "asked_by_user": True,  # the user's own command, whatever the mode
                },
            ):
                yield event
                if isinstance(event, ToolResult):
                    saved = re.search(r"#(\d+)", event.content)
                    if event.is_error or saved is None:
                        lines.append(f"I could not add {item}: {event.content}")
                    else:
                        added.append(f"{item} (#{saved.group(1)})")
        if added:
            lines.insert(0, f"Added to your {where}: {_and(added)}.")
        reply.append(" ".join(lines))
        return
    status = "done" if command.action == "restore" else "current"
    listed: list[tuple[int, str]] = []
    for claim_type in [command.claim_type] if command.claim_type else list(_LIST_WORDS):
        async for event in call(MEMORY_LIST, {"type": claim_type, "status": status}):
            yield event
            if isinstance(event, ToolResult) and not event.is_error:
                listed += [
                    (int(m["number"]), m["statement"]) for m in _LISTED.finditer(event.content)
                ]
        if command.claim_type is None and any(matching(i, listed) for i in command.items):
            where = _LIST_WORDS[claim_type]
            break
    changed, missing = [], []
    for item in command.items:
        found = matching(item, listed)
        if len(found) > 1:
            options = " or ".join(f"#{number} {statement}" for number, statement in found)
            lines.append(f"Which {item} do you mean: {options}? Say its number.")
            continue
        if not found:
            missing.append(item)
            continue
        number, statement = found[0]
        async for event in call(
            MEMORY_UPDATE,
            {"claim_number": number, "action": _UPDATE_ACTIONS[command.action]},
        ):
            yield event
            if isinstance(event, ToolResult):
                if event.is_error:
                    lines.append(f"I could not change #{number} {statement}: {event.content}")
                else:
                    changed.append(f"{statement} (#{number})")
    if not command.explicit and not changed and not lines:
        reply.append("")  # "I bought a bike": nothing on the list, so no command
        return
    if changed:
        verb = _DONE_WORDS[command.action]
        place = f" your {where}" if command.action != "tick_off" else ""
        lines.insert(0, f"{verb}{place}: {_and(changed)}.")
    if missing:
        state = "done on" if command.action == "restore" else "on"
        lines.append(f"I found no {_and(missing, 'or')} {state} your {where}.")
    reply.append(" ".join(lines))


def _and(parts: Sequence[str], word: str = "and") -> str:
    return parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} {word} {parts[-1]}"


def compose_offline_reply(
    question: str, sources: Sequence[SourceItem], *, max_sources: int = 5
) -> str:
    """A short, cited answer built only from the turn's sources: those that share a word
    with the question, or that the user chose (referenced, attached, pinned: no score),
    best first, one plain sentence each. That Cairn runs offline is said once, by the
    chat page's banner, not in every answer (issue 17)."""
    asked = " ".join(question.split())
    if len(asked) > 160:
        asked = asked[:159].rstrip() + "…"
    terms = _terms(asked)
    # What the user said here that waits for their review: used, and said to wait (issue 28).
    waiting = [item for item in sources if item.waiting]
    relevant = [
        item
        for item in sources
        if not item.waiting
        and (item.score is None or item.score >= CLOSE_BY_MEANING or _overlap(terms, item) > 0)
    ]
    ranked = sorted(
        relevant, key=lambda item: (-_overlap(terms, item), -(item.score or 0.0), item.number)
    )
    chosen = ranked[:max_sources]
    held = "; ".join(f"“{_quote(item.excerpt, terms)}” [{item.number}]" for item in waiting)
    held_line = f"{HELD_BACK}: {held}." if held else ""
    if not chosen:
        if held_line:
            return held_line
        about = f" about “{asked}”" if asked else ""
        return (
            f"I found nothing{about} in your memory or files yet. Add it on the Knowledge "
            "page, upload a file, or tell me “remember that …”."
        )
    # A list, one source a line: the page renders it as one, not as a run-on paragraph.
    sentences = [f"- {_sentence(item, terms)} [{item.number}]." for item in chosen]
    more = len(relevant) - len(chosen)
    if more > 0:
        sentences.append(f"\n({more} more source{'s' if more != 1 else ''} not shown.)")
    if held_line:
        sentences.append("\n" + held_line)
    return "\n".join(sentences)


_LIST_BLOCK = re.compile(r"^<(goals|tasks|shopping_list)>\n(.*?)\n</\1>$", re.DOTALL | re.MULTILINE)
_LIST_ITEM = re.compile(r"^- #(\d+) (.*?)(?: — source \[(\d+)\])?$", re.MULTILINE)
_LIST_NAMES = {"goals": "Your goals", "tasks": "Your tasks", "shopping_list": "Your shopping list"}


def compose_list_reply(system: str) -> str | None:
    """When the question was about goals, tasks or the shopping list, the prompt holds
    that whole list (issue 17): answer with it, every open item with its #N and [k]. None
    when the prompt has no list section."""
    blocks = _LIST_BLOCK.findall(system)
    if not blocks:
        return None
    parts = []
    for tag, body in blocks:
        items = _LIST_ITEM.findall(body)
        name = _LIST_NAMES[tag]
        if not items:
            parts.append(f"{name}: nothing open.")
            continue
        lines = [
            f"- {statement} (#{number})" + (f" [{source}]" if source else "")
            for number, statement, source in items
        ]
        parts.append(f"{name}, {len(items)} open:\n" + "\n".join(lines))
    return "\n\n".join(parts)


def _sentence(item: SourceItem, terms: set[str]) -> str:
    """One source in plain words: what the memory, a fact, a file or a past chat says."""
    excerpt = _quote(" ".join(item.excerpt.split()), terms).rstrip(".")
    title = " ".join(item.title.split())
    if item.kind == "claim":
        return f"Your memory says: {excerpt}"
    if item.kind == "fact":
        return f"{title[:1].upper()}{title[1:]} is {excerpt}"
    if item.kind == "message" and ", " in title:
        speaker, _, rest = title.partition(", ")
        day = rest.split(":", 1)[0]
        verb = "you said" if speaker == "You" else f"{speaker} said"
        return f"On {day} {verb}: “{excerpt}”"
    return f"{title or 'A file'} says: “{excerpt}”"


def distill_memory_lines(prompt: str) -> str:
    """`- statement (#N) [k]` for every non-referenced memory line found in `prompt`."""
    bullets: list[str] = []
    for match in _MEMORY_LINE.finditer(prompt):
        if match.group("label").strip().upper().startswith("REFERENCED"):
            continue  # re-injected verbatim by the pipeline
        rest = match.group("rest")
        source = re.search(r" — source \[(\d+)\]\s*$", rest)
        statement = rest[: source.start()] if source else rest
        statement = re.sub(r" \(answers: [^()]*\)\s*$", "", statement).strip()
        cite = f" [{source.group(1)}]" if source else ""
        bullets.append(f"- {statement} (#{match.group('number')}){cite}")
    return "\n".join(bullets)


_SOURCE_LINE = re.compile(r"^- \[(?P<number>\d+)\] (?P<text>.*)$", re.MULTILINE)
_CITED = re.compile(r"\[(\d{1,4}(?:\s*,\s*\d{1,4})*)\]")


def review_by_overlap(prompt: str) -> dict[str, object]:
    """The alignment review without a model: a sentence citing `[N]` must share at least
    one content word with source N, else it is reported as unsupported. Deterministic, so
    tests (and an offline install) see the same verdict every time (issue 17)."""
    sources_block = _between(prompt, "<sources>\n", "\n</sources>")
    answer = _between(prompt, "<answer>\n", "\n</answer>")
    sources = {
        int(match.group("number")): _terms(match.group("text"))
        for match in _SOURCE_LINE.finditer(sources_block)
    }
    issues: list[dict[str, object]] = []
    for line in answer.splitlines():
        for sentence in _SENTENCE_BREAK.split(line):
            cited = [
                int(part)
                for group in _CITED.findall(sentence)
                for part in re.split(r"\s*,\s*", group)
            ]
            words = _terms(_CITED.sub(" ", sentence))
            for number in dict.fromkeys(cited):
                if number in sources and words and not words & sources[number]:
                    quoted = " ".join(_CITED.sub("", sentence).split()).lstrip("- ")
                    issues.append(
                        {
                            "type": "unsupported",
                            "ref": number,
                            "claim": quoted[:200],
                            "reason": f"shares no words with source [{number}]",
                        }
                    )
    return {"pass": not issues, "issues": issues}


def _between(text: str, start: str, end: str) -> str:
    _, found, rest = text.partition(start)
    return rest.split(end, 1)[0] if found else ""


def _remembered_reply(statement: str, result: ToolResult) -> str:
    if result.is_error:
        return f"I could not save that to your memory: {result.content}"
    return f"Noted. I saved this to your memory: “{statement}”. {result.content}".strip()


def _quote(text: str, terms: set[str]) -> str:
    """What to quote of a source, once: all of a short one; of a longer one (a file's
    passage is up to 2,048 characters) the sentence sharing the most words with the
    question (with the next when it is short), since that is where the answer is; at most
    ``_EXCERPT_CHARS``."""
    starts = [0, *(match.end() for match in _SENTENCE_BREAK.finditer(text))]
    ends = [*starts[1:], len(text)]
    overlaps = [len(terms & _terms(text[a:b])) for a, b in zip(starts, ends, strict=True)]
    best = overlaps.index(max(overlaps))
    if len(starts) == 1 or len(text) <= _EXCERPT_CHARS:
        quote, start = text, 0
    else:
        start, end = starts[best], ends[best]
        if end - start < 60 and best + 1 < len(ends):
            end = ends[best + 1]
        quote = text[start:end].strip()
    if len(quote) > _EXCERPT_CHARS:
        quote = quote[: _EXCERPT_CHARS - 1].rsplit(" ", 1)[0] + "…"
    return ("…" if start else "") + quote


def _terms(text: str) -> set[str]:
    words = (w for w in _WORD.findall(text.lower()) if len(w) > 2 and w not in STOP_WORDS)
    return {_stem(word) for word in words}


def _stem(word: str) -> str:
    """Enough stemming for a word match: "workouts" → "workout", "training" → "train"."""
    for suffix in ("ing", "ed", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def _overlap(terms: set[str], item: SourceItem) -> int:
    return len(terms & _terms(f"{item.title} {item.excerpt}"))
