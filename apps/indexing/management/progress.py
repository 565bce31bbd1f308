"""A terminal progress bar on stderr, redrawn in place with ``\\r``."""

from __future__ import annotations

import shutil
import sys
import time
from typing import TextIO

from django.core.management.base import OutputWrapper


class ProgressBar:
    """``stream``: a command's ``self.stderr`` (its line ending is suppressed) or a file."""

    def __init__(
        self, *, total: int = 0, label: str = "", stream: OutputWrapper | TextIO | None = None
    ) -> None:
        self.total, self.done, self.label = total, 0, label
        self.stream = stream or sys.stderr
        self.started = time.monotonic()
        self._last_draw = 0.0

    def start(self, total: int) -> None:
        self.total, self.done, self.started = total, 0, time.monotonic()
        self.draw(force=True)

    def advance(self, count: int = 1, current: str = "") -> None:
        self.done += count
        self.draw(current=current, force=self.done >= self.total)

    def draw(self, *, current: str = "", force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self._last_draw < 0.1:
            return
        self._last_draw = now
        width = shutil.get_terminal_size((80, 20)).columns
        fraction = self.done / self.total if self.total else 1.0
        cells = 30
        filled = round(cells * min(1.0, fraction))
        rate = self.done / max(now - self.started, 1e-6)
        text = (
            f"{self.label}[{'#' * filled}{'-' * (cells - filled)}] {self.done}/{self.total} "
            f"{fraction:4.0%} {rate:5.1f}/s {current}"
        )
        self._write("\r" + text[: width - 1].ljust(width - 1))

    def finish(self) -> None:
        self.draw(force=True)
        self._write("\n")

    def _write(self, text: str) -> None:
        if isinstance(self.stream, OutputWrapper):
            self.stream.write(text, ending="")
        else:
            self.stream.write(text)
        self.stream.flush()
