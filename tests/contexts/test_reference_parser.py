"""The @reference parser: the shared case table, properties over random text, bad input.

The table (tests/fixtures/reference_cases.json) is also run by tests/js/, and one test
here feeds the same random texts to both parsers, so Python and JavaScript stay one.
"""

from __future__ import annotations

import dataclasses
import json
import random
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from apps.contexts.reference_parser import (
    MAX_IDENTIFIER_LENGTH,
    MAX_PARSE_CHARS,
    MAX_REFERENCES,
    WHITESPACE,
    ParsedMessage,
    ParsedReference,
    parse_references,
)

ROOT = Path(__file__).resolve().parents[2]
CASES_PATH = ROOT / "tests" / "fixtures" / "reference_cases.json"
JS_PARSER_PATH = ROOT / "static" / "js" / "references.js"
CASES: list[dict[str, Any]] = json.loads(CASES_PATH.read_text(encoding="utf-8"))

# Pieces that meet the parser's edges: every form, code markers, brackets, white space
# that Python and JavaScript disagree about, marks, emoji, RTL, controls, a lone surrogate.
ALPHABET = [
    "@", "@", "@", "#", "#", "a", "b", "Z", "c", "x", "1", "4", "0", "_", "-", " ", " ", "  ",
    "\n", "\n\n", "\t", "\r", "`", "```", "~~~", "(", ")", "[", "]", '"', "'", "*", ".", ",",
    ":", ";", "!", "?", "\u201c", "\u201d", "\u00ab", "\u00bb", "\u00e9", "\u0301", "\U0001f600",
    "\U0001d400", "\u05e9", "\u7684", "\u00a0", "\u3000", "\u200b", "\u200f", "\ufeff", "\x00",
    "\x1c", "\x85", "\ud800", "mem", "memory:", "claim_", "claim_042", "abc", "ab",
    "550e8400-e29b-41d4-a716-446655440000", "6BA7B8109DAD11D180B400C04FD430C8",
]  # fmt: skip
KIND_PATTERNS = {
    "uuid": re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"),
    "number": re.compile(r"claim_(0|[1-9][0-9]{0,17})"),
    "friendly": re.compile(rf"[A-Za-z][A-Za-z0-9_-]{{1,{MAX_IDENTIFIER_LENGTH - 2}}}[A-Za-z0-9]"),
}


def random_texts(seed: int, count: int, max_pieces: int = 40) -> list[str]:
    rng = random.Random(seed)
    return [
        "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, max_pieces)))
        for _ in range(count)
    ]


def as_rows(parsed: ParsedMessage) -> list[dict[str, Any]]:
    return [dataclasses.asdict(reference) for reference in parsed.references]


def test_case_table_holds_the_seed_cases_and_thirty_more() -> None:
    names = [case["name"] for case in CASES]
    seed_cases = [name for name in names if name.startswith("seed:")]

    assert len(names) == len(set(names))
    assert len(seed_cases) >= 13
    assert len(names) - len(seed_cases) >= 30


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_shared_case(case: dict[str, Any]) -> None:
    parsed = parse_references(case["text"])

    assert parsed.clean_text == case["clean_text"]
    assert as_rows(parsed) == case["references"]
    for reference in parsed.references:
        assert case["text"][reference.start : reference.end] == reference.raw


def test_result_is_immutable() -> None:
    parsed = parse_references("@abc")

    with pytest.raises(dataclasses.FrozenInstanceError):
        parsed.references[0].identifier = "other"  # type: ignore[misc]
    assert parsed == ParsedMessage(
        clean_text="",
        references=(ParsedReference("friendly", "abc", "@abc", 0, 4),),
    )


@pytest.mark.parametrize("seed", range(4))
def test_properties_hold_for_random_text(seed: int) -> None:
    for text in random_texts(seed, 2_000):
        parsed = parse_references(text)

        previous_end = 0
        seen: set[tuple[str, str]] = set()
        for reference in parsed.references:
            assert text[reference.start : reference.end] == reference.raw, text
            assert reference.raw[0] in "@#", text
            assert reference.start >= previous_end, text
            assert KIND_PATTERNS[reference.kind].fullmatch(reference.identifier), text
            assert (reference.kind, reference.identifier) not in seen, text
            previous_end = reference.end
            seen.add((reference.kind, reference.identifier))
        if not parsed.references:
            assert parsed.clean_text == text.strip(WHITESPACE), text
        assert len(parsed.clean_text) <= len(text), text


def test_text_without_markers_comes_back_stripped() -> None:
    for text in random_texts(99, 500):
        plain = text.replace("@", "").replace("#", "")
        assert parse_references(plain) == ParsedMessage(plain.strip(WHITESPACE), ())


def test_only_the_first_max_parse_chars_are_searched() -> None:
    filler = "x " * (MAX_PARSE_CHARS // 2 - 3)
    text = "@first " + filler + "@second " + filler + "@third"

    parsed = parse_references(text)

    assert [reference.identifier for reference in parsed.references] == ["first"]
    assert parsed.clean_text.endswith("@second " + filler + "@third")


def test_the_search_stops_after_max_references() -> None:
    tokens = [f"@ref_{index:03d}" for index in range(MAX_REFERENCES + 20)]

    parsed = parse_references(" ".join(tokens))

    assert [reference.raw for reference in parsed.references] == tokens[:MAX_REFERENCES]
    assert parsed.clean_text == " ".join(tokens[MAX_REFERENCES:])


def test_a_token_cut_by_the_limit_is_not_a_reference() -> None:
    # The limit falls inside "@abcdef": the first MAX_PARSE_CHARS characters end "@abc".
    text = " " * (MAX_PARSE_CHARS - 4) + "@abcdef tail"

    parsed = parse_references(text)

    assert parsed.references == ()
    assert parsed.clean_text == "@abcdef tail"


@pytest.mark.parametrize(
    "text",
    [
        "@" * 50_000,
        "#" * 50_000,
        "@" + "a-" * 50_000,
        "(" * 40_000 + "@abc" + ")" * 40_000,
        "@abc" + " " * 50_000 + "(" * 20_000 + "@def" + ")" * 20_000,
        "`" * 30_000 + "@abc" + "``" * 10_000,
        "```\n" * 20_000 + "@abc",
        "".join(chr(code) for code in range(0x20)) * 2_000 + " @abc",
        "@abc " * 20_000,
        "\U0001f600 @abc " * 20_000,
    ],
    ids=[
        "at signs",
        "hashes",
        "long identifier",
        "deep brackets",
        "spaces then brackets",
        "backtick runs",
        "many fences",
        "control characters",
        "many references",
        "emoji and references",
    ],
)
def test_hostile_input_parses(text: str) -> None:
    parsed = parse_references(text)

    for reference in parsed.references:
        assert text[reference.start : reference.end] == reference.raw


def test_hostile_input_gives_sensible_results() -> None:
    assert parse_references("(" * 40_000 + "@abc" + ")" * 40_000).clean_text == ""
    assert len(parse_references("@abc " * 20_000).references) == 1
    assert parse_references("@" + "a-" * 50_000).references == ()


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_javascript_parser_agrees_on_random_text() -> None:
    texts = random_texts(7, 3_000) + [case["text"] for case in CASES]
    texts += [
        " ".join(f"@ref_{index:03d}" for index in range(MAX_REFERENCES + 20)),
        "\U0001f600 " * MAX_PARSE_CHARS + "@abc",
        "\U0001f600 " * (MAX_PARSE_CHARS // 2 - 4) + "@abc @def",
    ]
    script = (
        f"const {{parseReferences}} = require({json.dumps(str(JS_PARSER_PATH))});"
        "let input = '';"
        "process.stdin.on('data', (chunk) => { input += chunk; });"
        "process.stdin.on('end', () => {"
        "  const rows = JSON.parse(input).map((text) => {"
        "    const parsed = parseReferences(text);"
        "    return [parsed.cleanText, parsed.references.map("
        "      (r) => ({kind: r.kind, identifier: r.identifier, raw: r.raw,"
        "               start: r.start, end: r.end}))];"
        "  });"
        "  process.stdout.write(JSON.stringify(rows));"
        "});"
    )

    # ensure_ascii keeps the lone surrogate a \\ud800 escape that both sides read alike.
    completed = subprocess.run(
        ["node", "-e", script],
        input=json.dumps(texts),
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )

    javascript = json.loads(completed.stdout)
    python = [[parsed.clean_text, as_rows(parsed)] for parsed in map(parse_references, texts)]
    disagreements = [
        (text, py, js) for text, py, js in zip(texts, python, javascript, strict=True) if py != js
    ]
    assert disagreements == []
