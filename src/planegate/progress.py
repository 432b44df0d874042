"""Progress on stderr for long work: the step, and tests done of total. Silent with --quiet.
A Stopwatch adds up the seconds each named part took (the report's per-step seconds)."""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Iterator
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


class Stopwatch:
    """Seconds per named part, in the order the parts first ran."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    @contextlib.contextmanager
    def time(self, name: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            spent = time.perf_counter() - start
            self.seconds[name] = round(self.seconds.get(name, 0.0) + spent, 3)
