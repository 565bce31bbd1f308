"""Benchmark-only LLM providers: zero latency, so what is measured is Cairn itself.
Never used by the product (DESIGN: test doubles stay out of the running product)."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Sequence
from typing import Any

from apps.chat.llm import StreamDone, TextDelta, Usage


class InstantProvider:
    """Streams ``deltas`` pieces at once; each carries its index and the time it was made,
    so a client can check order and measure the latency Cairn adds per delta."""

    name = "instant"

    def __init__(self, deltas: int = 200) -> None:
        self.deltas = deltas

    def model_name(self, role: str) -> str:
        return "instant"

    async def stream(self, **kwargs: Any) -> AsyncIterator[Any]:
        for index in range(self.deltas):
            yield TextDelta(f"<{index}|{time.time():.6f}>")
        yield StreamDone(stop_reason="end_turn", usage=Usage(0, self.deltas), model="instant")

    async def complete(self, **kwargs: Any) -> str:
        return '{"pass": true}'

    async def aclose(self) -> None:
        return None


def parse_delta(text: str) -> tuple[int, float]:
    index, sent = text.strip("<>").split("|")
    return int(index), float(sent)


def summary(values: Sequence[float]) -> str:
    ordered = sorted(values)
    pick = lambda q: ordered[min(len(ordered) - 1, int(q * len(ordered)))]  # noqa: E731
    return f"p50 {pick(0.5):7.2f}  p95 {pick(0.95):7.2f}  p99 {pick(0.99):7.2f}"
