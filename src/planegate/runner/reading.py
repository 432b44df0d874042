"""A running child's stream, read in a thread of its own, and what the caller's thread does
while the child runs: work begun once the child has selected its tests (`then`), and work a
record of the run can start before the run ends (`heard`)."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from planegate.progress import Progress
from planegate.runner.stream import Fold, lines_of

Hook = Callable[[], None]
Heard = Callable[[Mapping[str, Any]], None]


@dataclass(frozen=True)
class Signals:
    """What the reader of a run's stream tells the caller's thread while the run goes on."""

    selected: threading.Event = field(default_factory=threading.Event)  # or the stream ended
    extra: threading.Event = field(default_factory=threading.Event)  # a record kept whole came
    over: threading.Event = field(default_factory=threading.Event)  # the stream ended


def beside_the_run(
    then: Hook | None, heard: Mapping[str, Heard], signals: Signals, fold: Fold
) -> Hook | None:
    """What the caller's thread does while the child runs: `then`, once the child has selected
    its tests (not if its stream ended first: what starts beside the run takes no CPU from its
    collection); then each of `heard`'s callbacks, once a record of its kind is in, until the
    stream ends."""
    if then is None and not heard:
        return None

    def beside() -> None:
        signals.selected.wait()
        if then is not None and fold.seen_selected and not fold.ended:
            then()
        waiting = dict(heard)
        while waiting and not signals.over.is_set():
            signals.extra.wait()
            signals.extra.clear()
            for kind in [kind for kind in waiting if kind in fold.extra]:
                waiting.pop(kind)(fold.extra[kind])

    return beside


def read_lines(fd: int, fold: Fold, progress: Progress, end: Hook, signals: Signals) -> None:
    """Every record into `fold`; `signals.selected` once the selection is in, `extra` each time
    a record kept whole comes (every signal when the stream ends); `end` once the closing
    record is."""
    done, told, chosen, kept = 0, False, False, 0
    try:
        for raw in lines_of(fd):
            text = raw.decode("utf-8", "replace")
            try:
                fold.feed(text)
            except (KeyError, TypeError, ValueError, AttributeError):  # a record of a bad shape
                fold.stray += 1
            if fold.seen_selected and not chosen:
                chosen = True
                signals.selected.set()
            if len(fold.extra) != kept:
                kept = len(fold.extra)
                signals.extra.set()
            if fold.ended and not told:
                told = True
                end()
            elif '"when":"teardown"' in text:
                done += 1
                progress.update(done, len(fold.selected))
    finally:
        os.close(fd)
        signals.over.set()
        signals.selected.set()
        signals.extra.set()
