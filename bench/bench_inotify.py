"""What the kernel's count of locked files' opens (runner/inotify.py) adds to a traced run: a
suite of --files test files in --folders folders, each folder with a golden its tests read,
run traced by the gate's own runner with the watch and without (alternating, after one
warm-up each), best and median wall time of --runs each.
Usage: python bench/bench_inotify.py [--files N] [--folders N] [--runs N]
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from unittest import mock

from planegate.runner import inotify, session
from planegate.runner.traced import TraceSpec

TEST = (
    "from pathlib import Path\n\n\n"
    "def test_golden():\n"
    "    assert (Path(__file__).parent / 'golden.txt').read_text() == 'ok'\n"
)


def _suite(root: Path, files: int, folders: int) -> list[str]:
    locked = []
    for index in range(files):
        folder = f"tests/f{index % folders:03d}"
        (root / folder).mkdir(parents=True, exist_ok=True)
        (root / folder / f"test_{index:04d}.py").write_text(TEST, "utf-8")
        (root / folder / "golden.txt").write_text("ok", "utf-8")
        locked += [f"{folder}/test_{index:04d}.py", f"{folder}/golden.txt"]
    (root / "tests" / "__init__.py").write_text("", "utf-8")
    return sorted(set(locked))


@contextlib.contextmanager
def _unwatched(*_: object) -> Iterator[list[inotify.Opens]]:
    yield [inotify.Opens()]


def _run(tree: Path, locked: list[str], watched: bool) -> float:
    tests = tuple(p for p in locked if p.endswith(".py"))
    spec = session.RunSpec(
        tree=tree, ini_options={}, trace=TraceSpec(tests, ("tests",)), trusted=frozenset(locked)
    )
    patch = (
        contextlib.nullcontext() if watched else mock.patch.object(inotify, "watching", _unwatched)
    )
    start = time.perf_counter()
    with patch:
        result = session.run(spec)
    took = time.perf_counter() - start
    assert result.closed and len(result.outcomes) == len(tests), result.output[-2000:]
    return took


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--folders", type=int, default=200)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        tree = Path(folder)
        locked = _suite(tree, args.files, args.folders)
        times: dict[bool, list[float]] = {True: [], False: []}
        for watched in (True, False):
            _run(tree, locked, watched)
        for _ in range(args.runs):
            for watched in (True, False):
                times[watched].append(_run(tree, locked, watched))
    for watched in (True, False):
        found = times[watched]
        print(
            f"{'watched' if watched else 'unwatched':9}  best {min(found):.2f} s  "
            f"median {statistics.median(found):.2f} s"
        )
    change = statistics.median(times[True]) - statistics.median(times[False])
    print(f"difference of medians: {change:+.2f} s")


if __name__ == "__main__":
    main()
