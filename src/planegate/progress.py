"""Progress on stderr for long work: the step, and tests done of total with the time spent
and an estimate of what is left. On a terminal the count is shown at most once a `interval`;
elsewhere (a CI log) one line per tenth of the run, so a log stays short. Silent with --quiet.
A Stopwatch adds up the seconds each named part took (the report's per-step seconds)."""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Callable, Iterator
from typing import TextIO

TENTHS = 10


class Progress:
    def __init__(
        self,
        quiet: bool = False,
        stream: TextIO | None = None,
        interval: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.quiet = quiet
        self.stream = stream if stream is not None else sys.stderr
        self.interval = interval
        self.clock = clock
        self._step = ""
        self._last = 0.0
        self._tenth = 0
        self._started = clock()
        self._terminal = _is_terminal(self.stream)

    def step(self, name: str, detail: str = "") -> None:
        self._step = name
        self._last = 0.0
        self._tenth = 0
        self._started = self.clock()
        self._write(f"planegate: {name}{': ' + detail if detail else ''}")

    def update(self, done: int, total: int) -> None:
        """`done` of `total` tests reported: a line when it is time for one."""
        if self.quiet or total <= 0:
            return
        now = self.clock()
        if not self._due(done, total, now):
            return
        self._last = now
        self._write(f"planegate: {self._step}: {counted(done, total, now - self._started)}")

    def _due(self, done: int, total: int, now: float) -> bool:
        if self._terminal:
            return done >= total or now - self._last >= self.interval
        tenth = min(TENTHS, done * TENTHS // total)
        if tenth <= self._tenth:
            return False
        self._tenth = tenth
        return True

    def _write(self, line: str) -> None:
        if not self.quiet:
            print(line, file=self.stream, flush=True)


def counted(done: int, total: int, elapsed: float) -> str:
    """`N/M tests, 12 s elapsed, about 30 s left` (no estimate before the first test ends)."""
    text = f"{done}/{total} tests, {duration(elapsed)} elapsed"
    if 0 < done < total:
        text += f", about {duration(elapsed / done * (total - done))} left"
    return text


def duration(seconds: float) -> str:
    whole = max(0, round(seconds))
    if whole < 60:
        return f"{whole} s"
    minutes, rest = divmod(whole, 60)
    return f"{minutes} min {rest:02d} s"


def _is_terminal(stream: TextIO) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


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
