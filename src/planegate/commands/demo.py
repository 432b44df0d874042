"""`planegate demo`: build the bundled demo repository and gate honest and cheating patches;
then, when cmake and a C++ compiler are on PATH, the ctest demo (`runner: junit`)."""

from __future__ import annotations

import argparse

from planegate import exitcodes
from planegate.commands.common import progress_of


def run(args: argparse.Namespace) -> int:
    from planegate import demo
    from planegate.demo import ctest_demo

    runner = getattr(args, "runner", "all")
    code = demo.run(progress_of(args)) if runner in ("pytest", "all") else 0
    if runner == "pytest":
        return code
    if not ctest_demo.available():
        print("planegate demo: no cmake or C++ compiler on PATH: the ctest demo is left out")
        return code if runner == "all" else exitcodes.UNAVAILABLE
    return max(code, ctest_demo.run(progress_of(args)))
