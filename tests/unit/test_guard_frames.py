"""The result channel's guard walks the stack for production code on every record; a walk stops
at a running frame an earlier walk found clean. What is above it is still walked, a
generator's frame (resumed from anywhere) is never taken as clean, and the frames are let go
once the phase's report is sent."""

from __future__ import annotations

import sys
from collections.abc import Callable, Generator
from types import FrameType, SimpleNamespace
from typing import Any

from planegate.runner.child import frames


def state() -> SimpleNamespace:
    return SimpleNamespace(
        prefixes=("/tree/",), cache={}, trusted=set(), clean={}, bottom=None, floor=None, handers={}
    )


def compiled(source: str, filename: str) -> dict[str, Any]:
    space: dict[str, Any] = {}
    exec(compile(source, filename, "exec"), space)
    return space


HARNESS = compiled(
    "def outer(then):\n    return then()\n\n\n"
    "def runner(gen):\n    return next(gen)\n\n\n"
    "def stepper(probe):\n    while True:\n        yield probe()\n",
    "/site/harness.py",
)
PRODUCTION = compiled(
    "def sneaky(then):\n    return then()\n\n\ndef resume(gen):\n    return next(gen)\n",
    "/tree/calc/core.py",
)


def probe(s: SimpleNamespace) -> Callable[[], FrameType | None]:
    def look() -> FrameType | None:
        return frames._production_frame(s, sys._getframe(1))

    return look


def test_production_code_above_a_frame_found_clean_is_still_found() -> None:
    s = state()
    look = probe(s)

    def both() -> tuple[FrameType | None, FrameType | None]:
        first = look()  # clean: this frame and everything below is kept
        second = PRODUCTION["sneaky"](look)  # production code called from the same frame
        return first, second

    first, second = HARNESS["outer"](both)
    assert first is None
    assert s.clean  # the walk was kept
    assert second is not None and second.f_code.co_filename == "/tree/calc/core.py"


def test_a_generator_resumed_from_production_code_is_walked_again() -> None:
    s = state()
    look = probe(s)
    gen: Generator[FrameType | None, None, None] = HARNESS["stepper"](look)
    assert HARNESS["runner"](gen) is None  # resumed by the harness: clean
    assert not any(f.f_code.co_name == "stepper" for f in s.clean)
    found = PRODUCTION["resume"](gen)  # the same generator, resumed by production code
    assert found is not None and found.f_code.co_name == "resume"


def test_the_frames_found_clean_are_let_go() -> None:
    s = state()
    assert HARNESS["outer"](probe(s)) is None
    assert s.clean
    frames.forget_clean(s)
    assert s.clean == {}
