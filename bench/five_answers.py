"""The five answers of issue 28's closing note (rent, workout, pi-hole, May 2024, shopping),
asked through the REST API of a fresh account with the offline provider.

Run: .venv/bin/python bench/five_answers.py
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench import _django  # noqa: E402


def main() -> None:
    _django.setup("cairn_bench_answers")
    from bench.answers_scenario import build, five_answers

    scenario = build(name="five")
    for label, question, answer in five_answers(scenario):
        print(f"== {label}: {question}\n{answer}\n", flush=True)


if __name__ == "__main__":
    main()
