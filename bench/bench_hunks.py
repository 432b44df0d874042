"""Benchmark: test-hunk analysis of 5,000 generated changed test files.

Prints the wall time of `analyze_files` over every pair (on one CPU, then as the gate
runs it, over every CPU) and, as a baseline measured in the
same run, the time of a plain `ast.parse` of the same base and head sources.
Usage: python bench/bench_hunks.py [--files N] [--seed S]
"""

from __future__ import annotations

import argparse
import ast
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from planegate.analysis.hunks.batch import FileChange, analyze_files, available_cpus

GOAL_SECONDS = 2.0
HEADER = """import math

import pytest
from hypothesis import given, settings, strategies as st

from shop.cart import Cart, total
"""


def _test(rng: random.Random, index: int) -> str:
    kind = rng.choice(["plain", "param", "raises", "approx", "hypothesis", "class"])
    a, b = rng.randint(0, 99), rng.randint(0, 99)
    if kind == "param":
        cases = ", ".join(f"({i}, {i + a})" for i in range(rng.randint(2, 6)))
        return (
            f"@pytest.mark.parametrize('count, expected', [{cases}])\n"
            f"def test_param_{index}(count, expected):\n"
            f"    cart = Cart([{a}] * count)\n"
            f"    assert cart.size == count\n"
            f"    assert total(cart) >= 0\n"
        )
    if kind == "raises":
        return (
            f"def test_raises_{index}():\n"
            f"    with pytest.raises(ValueError, match='negative'):\n"
            f"        Cart([-{a}])\n"
        )
    if kind == "approx":
        return (
            f"def test_approx_{index}():\n"
            f"    value = total(Cart([{a}, {b}]))\n"
            f"    assert value == pytest.approx({a + b}.0, rel=1e-9)\n"
            f"    assert math.isclose(value, {a + b}, rel_tol=1e-9)\n"
        )
    if kind == "hypothesis":
        return (
            f"@settings(max_examples=200)\n"
            f"@given(st.lists(st.integers(min_value=0, max_value={a + 10})))\n"
            f"def test_property_{index}(items):\n"
            f"    assert total(Cart(items)) == sum(items)\n"
        )
    if kind == "class":
        return (
            f"class TestCart{index}:\n"
            f"    def test_empty(self):\n"
            f"        assert Cart([]).size == 0\n\n"
            f"    def test_one(self):\n"
            f"        cart = Cart([{a}])\n"
            f"        assert cart.size == 1\n"
            f"        assert total(cart) == {a}\n"
        )
    return (
        f"def test_total_{index}():\n"
        f"    cart = Cart([{a}, {b}])\n"
        f"    result = total(cart)\n"
        f"    assert result == {a + b}\n"
        f"    assert result > {min(a, b) - 1}\n"
    )


_EDITS = (
    ("skip", "\ndef test_", "\n@pytest.mark.skip(reason='later')\ndef test_"),
    ("assert", "    assert result > ", "    # assert result > "),
    ("tolerance", "rel=1e-9)", "rel=0.5)"),
    ("raises", "pytest.raises(ValueError, match='negative')", "pytest.raises(Exception)"),
    ("budget", "max_examples=200", "max_examples=5"),
    ("param", "[(0, ", "[(99, "),
    ("honest", "cart = Cart(", "shopping_cart = Cart("),
    ("added", "", ""),
)


def generate_pairs(count: int, seed: int) -> list[tuple[str, str, str]]:
    rng = random.Random(seed)
    pairs = []
    for number in range(count):
        tests = [_test(rng, index) for index in range(rng.randint(3, 8))]
        base = HEADER + "\n\n" + "\n\n".join(tests)
        name, old, new = rng.choice(_EDITS)
        if name == "added":
            head = base + "\n\ndef test_added():\n    assert total(Cart([1])) == 1\n"
        elif name == "honest":
            head = base.replace(old, new, 1).replace("total(cart)", "total(shopping_cart)", 1)
        else:
            head = base.replace(old, new, 1)
        pairs.append((f"tests/test_bench_{number}.py", base, head))
    return pairs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--files", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=20240601)
    args = parser.parse_args(argv)
    pairs = generate_pairs(args.files, args.seed)
    lines = sum(base.count("\n") + head.count("\n") for _, base, head in pairs)

    start = time.perf_counter()
    for _, base, head in pairs:
        ast.parse(base)
        ast.parse(head)
    baseline = time.perf_counter() - start

    changes = [
        FileChange(path, base, head, plane="fixture", owner="@bench", fixture_plane=True)
        for path, base, head in pairs
    ]
    start = time.perf_counter()
    serial = analyze_files(changes, workers=1)
    one_cpu = time.perf_counter() - start

    start = time.perf_counter()
    findings = analyze_files(changes)
    elapsed = time.perf_counter() - start
    if findings != serial:
        print("parallel findings differ from the serial ones", file=sys.stderr)
        return 2

    print(f"files: {len(pairs)} changed test files ({lines} lines, base + head)")
    print(f"findings: {len(findings)}")
    print(f"baseline ast.parse of base and head: {baseline:.3f} s")
    print(f"analyze_files, one CPU: {one_cpu:.3f} s ({one_cpu / baseline:.2f}x the parse baseline)")
    cpus = available_cpus()
    print(
        f"analyze_files, {cpus} CPUs (as the gate runs it): {elapsed:.3f} s "
        f"({elapsed / baseline:.2f}x the parse baseline)"
    )
    verdict = "within" if elapsed < GOAL_SECONDS else "OVER"
    print(f"goal: < {GOAL_SECONDS:.1f} s -> {verdict}")
    return 0 if elapsed < GOAL_SECONDS else 1


if __name__ == "__main__":
    raise SystemExit(main())
