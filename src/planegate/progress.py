"""Progress on stderr for long work: the step, and tests done of total. Silent with --quiet."""

from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    def __init__(
        self, quiet: bool = False, stream: TextIO | None = None, interval: float = 1.0
    ) -> None:
        self.quiet = quiet
        self.stream = stream if stream is not None else sys.stderr
        self.interval = interval
        self._step = ""
        self._last = 0.0

    def step(self, name: str, detail: str = "") -> None:
        self._step = name
        self._last = 0.0
        self._write(f"planegate: {name}{': ' + detail if detail else ''}")

    def update(self, done: int, total: int) -> None:
        now = time.monotonic()
        if done < total and now - self._last < self.interval:
            return
        self._last = now
        self._write(f"planegate: {self._step}: {done}/{total} tests")

    def _write(self, line: str) -> None:
        if not self.quiet:
            print(line, file=self.stream, flush=True)


QUIET = Progress(quiet=True)
