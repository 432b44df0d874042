"""What the test child's sandbox adds to every run: `python -s -c pass` started as the gate
starts its child, with the sandbox (bubblewrap, the gate's own options and layout) and
without, alternating, best and median wall time of --runs each (after one warm-up run each).
Prints the difference per start; a gate starts one child per session (a plain gate: two or
three). Usage: python bench/bench_sandbox.py [--runs N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from planegate.runner import contain, sandbox


def _layout(tree: Path, scratch: Path) -> list[str]:
    how = contain.plan_launch(tree, scratch, None)
    root = (os.geteuid() if how.user is None else how.user) == 0
    layout = sandbox.Layout(
        tree=str(tree),
        scratch=str(scratch),
        masked=sandbox.masked_folders(os.environ, network=False),
        keep=sandbox.kept(os.environ.get("PATH", ""), ()),
        root=root,
    )
    sandbox.require(os.environ, how.prefix, how.user, layout)
    return [sandbox.program(os.environ), *sandbox.arguments(layout)]


def _time(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=True, stdin=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=20)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as tree, tempfile.TemporaryDirectory() as scratch:
        child = [sys.executable, "-s", "-c", "pass"]
        boxed = [*_layout(Path(tree), Path(scratch)), "--", *child]
        plain_times, boxed_times = [], []
        _time(child), _time(boxed)
        for _ in range(runs):
            plain_times.append(_time(child))
            boxed_times.append(_time(boxed))
    for name, times in (("without the sandbox", plain_times), ("in the sandbox", boxed_times)):
        best, median = min(times) * 1000, statistics.median(times) * 1000
        print(f"{name:<20} best {best:6.1f} ms  median {median:6.1f} ms")
    best = min(boxed_times) - min(plain_times)
    added = statistics.median(boxed_times) - statistics.median(plain_times)
    print(f"the sandbox adds {best * 1000:.1f} ms (best), {added * 1000:.1f} ms (median) per start")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
