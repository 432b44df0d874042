"""Honest values' cost: the scoring session of a suite that does little but compare (ints,
strings, lists, dicts, dataclass objects, unittest assert methods), run by the gate's own child
with and without the check of every compared value (probes/honest/).

    python bench/bench_honest.py --runs 5 --files 40 --tests 50

Prints the best and median wall seconds of each and their ratio (goal <= 1.10x).
"""

from __future__ import annotations

import argparse
import resource
import statistics
import tempfile
import time
from pathlib import Path

from planegate.probes.honest.wire import child_plugins
from planegate.runner import session

CORE = """\
from dataclasses import dataclass


@dataclass(frozen=True)
class Point:
    x: int
    y: int


def add(a, b):
    return a + b


def points(n):
    return [Point(i, i + 1) for i in range(n)]


def table(n):
    return {f"k{i}": [i, str(i)] for i in range(n)}
"""

TEST = """\
import unittest

import pytest

from calc.core import Point, add, points, table


@pytest.mark.parametrize("n", range({tests}))
def test_values(n):
    assert add(n, 1) == n + 1
    assert add(str(n), "x") == f"{{n}}x"
    assert add(n, 0.5) <= n + 1
    result = points(5)
    assert result == [Point(i, i + 1) for i in range(5)]
    assert result[0] != Point(9, 9)
    assert table(20)["k3"] == [3, "3"]
    assert "k4" in table(20)
    for i in range(20):
        assert add(i, n) == i + n


class TestCase(unittest.TestCase):
    def test_methods(self):
        for i in range({tests}):
            self.assertEqual(add(i, 1), i + 1)
            self.assertIn("k2", table(5))
            self.assertTrue(points(3)[1] == Point(1, 2))
"""


def project(root: Path, files: int, tests: int) -> None:
    (root / "calc").mkdir(parents=True)
    (root / "calc/__init__.py").write_text("")
    (root / "calc/core.py").write_text(CORE)
    (root / "tests").mkdir()
    for index in range(files):
        (root / f"tests/test_v{index}.py").write_text(TEST.format(tests=tests))


def timed(tree: Path, honest: bool) -> tuple[float, float]:
    """Wall seconds of the session and CPU seconds of its child."""
    plugins = child_plugins((), (), ("tests",)) if honest else ()
    spec = session.RunSpec(tree=tree, ini_options={}, child_plugins=plugins, canaries=False)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    result = session.run(spec)
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if not result.closed or not all(o.passed for o in result.outcomes.values()):
        raise SystemExit(f"the bench's session did not pass: {result.output[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return elapsed, cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--files", type=int, default=40)
    parser.add_argument("--tests", type=int, default=50)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="planegate-bench-") as scratch:
        tree = Path(scratch)
        project(tree, args.files, args.tests)
        plain, checked = [], []
        for _ in range(args.runs):  # interleaved: a busy moment weighs on both alike
            plain.append(timed(tree, False))
            checked.append(timed(tree, True))
    asserts = args.files * args.tests * 29
    print(f"{args.files} files, {args.files * (args.tests + 1)} tests, ~{asserts} comparisons")
    for name, runs in (("without the check", plain), ("with the check", checked)):
        walls, cpus = [w for w, _ in runs], [c for _, c in runs]
        print(
            f"  {name}: best {min(walls):.2f}s, median {statistics.median(walls):.2f}s wall; "
            f"best {min(cpus):.2f}s cpu"
        )
    best = min(w for w, _ in checked) / min(w for w, _ in plain)
    cpu = min(c for _, c in checked) / min(c for _, c in plain)
    print(f"  ratio (best wall): {best:.3f}x  (goal <= 1.10x)")
    print(f"  ratio (best cpu): {cpu:.3f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
