"""Time the @reference parser against its budget: 2,000 characters in 0.2 ms (issue 4).

Run: .venv/bin/python bench/bench_reference_parser.py [--runs N]

Needs neither Django nor a database. Prints mean and p95 per message kind and the ratio
of each to the budget (below 1.00 is inside it), all measured in this one run; when node
is on PATH the page's parser (static/js/references.js) is timed on the same messages.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from apps.contexts.reference_parser import parse_references  # noqa: E402

BUDGET_MS = 0.2
MESSAGE_CHARS = 2_000

PROSE = (
    "I have been thinking about how to plan the next quarter, and I would like your help "
    "to weigh the options against what you already know about me and the project. "
    "Mail me at someone@example.com if anything is unclear, and keep the answer short. "
)
REFERENCES = [
    "@prefer_morning_workouts_a3f2",
    "#42",
    "@memory:550e8400-e29b-41d4-a716-446655440000",
    "(@project_alpha_context)",
    "@claim_7,",
]


def build_message(*, references: list[str], code: bool = False) -> str:
    """2,000 characters of prose with the references spread evenly through it."""
    prefix = "Run `make test @not_a_ref` first.\n```\nprint('@also_not')\n```\n" if code else ""
    budget = MESSAGE_CHARS - len(prefix) - sum(len(reference) + 1 for reference in references)
    words = (PROSE * (budget // len(PROSE) + 1))[:budget].split(" ")
    step = len(words) // (len(references) + 1)
    for index, reference in enumerate(references, start=1):
        words.insert(index * step + index - 1, reference)
    return prefix + " ".join(words)


def time_python(text: str, runs: int) -> list[float]:
    timings: list[float] = []
    parse: Callable[[str], object] = parse_references
    for _ in range(min(runs, 1_000)):  # warm-up
        parse(text)
    for _ in range(runs):
        started = time.perf_counter_ns()
        parse(text)
        timings.append((time.perf_counter_ns() - started) / 1e6)
    return timings


NODE_SCRIPT = """
const {parseReferences} = require(process.argv[1]);
const {texts, runs} = JSON.parse(require("fs").readFileSync(0, "utf8"));
const out = texts.map((text) => {
  for (let i = 0; i < Math.min(runs, 1000); i++) parseReferences(text);
  const timings = [];
  for (let i = 0; i < runs; i++) {
    const started = process.hrtime.bigint();
    parseReferences(text);
    timings.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return timings;
});
process.stdout.write(JSON.stringify(out));
"""


def time_javascript(texts: list[str], runs: int) -> list[list[float]] | None:
    node = shutil.which("node")
    if node is None:
        return None
    completed = subprocess.run(
        [node, "-e", NODE_SCRIPT, str(ROOT / "static" / "js" / "references.js")],
        input=json.dumps({"texts": texts, "runs": runs}),
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(completed.stdout)


def summary(timings: list[float]) -> tuple[float, float]:
    return statistics.fmean(timings), statistics.quantiles(timings, n=20)[18]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20_000)
    runs = parser.parse_args().runs

    messages = {
        "5 references": build_message(references=REFERENCES),
        "5 references + code": build_message(references=REFERENCES, code=True),
        "no references": build_message(references=[]),
        "no @ or #": build_message(references=[]).replace("@", "a"),
    }
    for name, text in messages.items():
        found = len(parse_references(text).references)
        print(f"{name:22} {len(text):5,} chars, {found} references found")

    javascript = time_javascript(list(messages.values()), runs)
    print(f"\nbudget {BUDGET_MS} ms a message, {runs:,} runs each; ratio = time / budget\n")
    print(f"{'message':22} {'parser':10} {'mean ms':>9} {'p95 ms':>9} {'mean':>6} {'p95':>6}")
    for index, (name, text) in enumerate(messages.items()):
        rows = [("python", time_python(text, runs))]
        if javascript is not None:
            rows.append(("javascript", javascript[index]))
        for parser_name, timings in rows:
            mean, p95 = summary(timings)
            print(
                f"{name:22} {parser_name:10} {mean:9.4f} {p95:9.4f} "
                f"{mean / BUDGET_MS:6.2f} {p95 / BUDGET_MS:6.2f}"
            )
    if javascript is None:
        print("(node is not on PATH: the JavaScript parser was not timed)")


if __name__ == "__main__":
    main()
