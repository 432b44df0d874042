"""Gate overhead: wall time of `planegate gate` over a plain `python -m pytest` of the same tests.

Generates a repository (fixture and property planes), commits main, writes main's digest (as
the push to main does), then times on a patch branch, alternating:
  plain: python -m pytest -q -p no:cacheprovider       (in a checkout of the patch)
  gate:  python -m planegate gate --base main --digest  (worktree, overlay, channel, canaries)
and prints the best-of-N times, the measure each variant has a goal for, and the gate's own
per-step seconds; a summary of every variant against its goal ends the output.
Variants (--variant): `paths` (2,000 tests, planes by path patterns), `paths-1000` and
`paths-10000` (the same at 1,000 and 10,000 tests), `nodeids` (planegate.yml lists all 2,000
nodeids), `locked` (200 fixture data files locked in the manifest), `nodigest` (no digest:
the gate runs the base itself; goal against plain pytest run twice), `subtests` and
`unittest` (40 tests with 2,000 subtests: pytest's `subtests` fixture, unittest's `subTest`),
`small` (a 1-second suite: the gate's fixed cost in seconds), `params` (packaging's shape:
5,000 parametrized cases of a microsecond each in 5 files, ids of 30 to 40 characters: the
child's cost per test, against tests that cost almost nothing). Goals: <= 1.10x, and a fixed
cost <= 3 s. Sampled canaries are on (the default). Usage:
  python bench/bench_gate.py [--runs N] [--variant NAME|all]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from planegate.config import manifest as fixtures
from planegate.gate.pipeline import CHILDREN_CPU  # the JSON report's timing of it
from planegate.repo.hashing import bytes_sha256

TESTS = 2000
PER_FILE = 50
PROPERTY_FILES = 4  # 200 Hypothesis tests at a small budget, the rest example-based
LOCKED = 200  # data files of the `locked` variant
SUBTEST_FILES, SUBTEST_TESTS, SUBTESTS = 8, 5, 50  # the `subtests` shape: 2,000 subtests
SUBTEST_VARIANTS = ("subtests", "unittest")
SIZES = {"paths-1000": 1000, "paths-10000": 10000}  # the `paths` shape at other sizes
SMALL = ("small", 20, 0.05)  # a 1-second suite: 20 tests of 50 ms each
# packaging's shape: a few files of many tiny parametrized cases with long ids (5,000 tests)
PARAMS = ("params", 5, 1000)
VARIANTS = (
    "paths",
    *SIZES,
    "nodeids",
    "locked",
    "nodigest",
    *SUBTEST_VARIANTS,
    SMALL[0],
    PARAMS[0],
)
GOAL_RATIO, GOAL_FIXED = 1.10, 3.0

CONFIG = """\
version: 1
owner: "@bench/map"
planes:
  property:
    paths: ["tests/prop/"]
    max_examples: 5
  fixture:
    paths: ["tests/fix/"]
    data: ["tests/fix/data/"]
pytest:
  plugins: ["hypothesis"]
"""


def test_file(index: int) -> tuple[str, str, list[str]]:
    """(path, source, nodeids) of the index-th generated test file."""
    prop = index < PROPERTY_FILES
    path = f"tests/{'prop' if prop else 'fix'}/test_m{index:03d}.py"
    lines = ["from calc.core import add\n"]
    if prop:
        lines.append("from hypothesis import given, settings, strategies as st\n")
    names = []
    for case in range(PER_FILE):
        if prop:
            names.append(f"test_p{case}")
            lines.append(
                f"\n\n@settings(max_examples=5)\n@given(st.integers())\n"
                f"def test_p{case}(x):\n    assert add(x, {case}) == add({case}, x)\n"
            )
        else:
            names.append(f"test_e{case}")
            lines.append(f"\n\ndef test_e{case}():\n    assert add({case}, 1) == {case + 1}\n")
    return path, "".join(lines), [f"{path}::{name}" for name in names]


def subtest_file(index: int, style: str) -> tuple[str, str]:
    """(path, source) of the index-th file of a subtest shape: a few tests, each with many
    subtests, as table-driven suites write them: pytest 9's `subtests` fixture (`subtests`)
    or unittest's `subTest` (`unittest`, as tomli's suite does)."""
    lines = ["import unittest\n\nfrom calc.core import add\n"]
    if style == "unittest":
        lines.append("\n\nclass TestTable(unittest.TestCase):")
    for case in range(SUBTEST_TESTS):
        if style == "unittest":
            lines.append(
                f"\n    def test_table{case}(self):\n"
                f"        for n in range({SUBTESTS}):\n"
                f"            with self.subTest(msg='row', n=n):\n"
                f"                self.assertEqual(add(n, {case}), n + {case})\n"
            )
        else:
            lines.append(
                f"\n\ndef test_table{case}(subtests):\n"
                f"    for n in range({SUBTESTS}):\n"
                f"        with subtests.test(msg='row', n=n):\n"
                f"            assert add(n, {case}) == n + {case}\n"
            )
    return f"tests/fix/test_s{index:03d}.py", "".join(lines)


def shape(variant: str) -> str:
    if variant in SUBTEST_VARIANTS:
        tests = SUBTEST_FILES * SUBTEST_TESTS
        return f"tests {tests} with {tests * SUBTESTS} subtests"
    if variant == SMALL[0]:
        return f"tests {SMALL[1]} of {SMALL[2] * 1000:.0f} ms each"
    if variant == PARAMS[0]:
        return f"tests {PARAMS[1] * PARAMS[2]} parametrized cases in {PARAMS[1]} files"
    return f"tests {SIZES.get(variant, TESTS)} ({PROPERTY_FILES * PER_FILE} property)"


def small_file() -> str:
    lines = ["import time\n\nfrom calc.core import add\n"]
    for case in range(SMALL[1]):
        lines.append(
            f"\n\ndef test_s{case}():\n    time.sleep({SMALL[2]})\n"
            f"    assert add({case}, 1) == {case + 1}\n"
        )
    return "".join(lines)


def params_file(index: int) -> tuple[str, str]:
    """(path, source) of a file of packaging's shape: one test parametrized over many
    version-like strings (ids of 30 to 40 characters), each case a microsecond of work."""
    cases = ", ".join(
        f'("{major}.{minor}.dev{index}+local.{case}", "=={major}.{minor}", {case % 3 == 0})'
        for case in range(PARAMS[2])
        for major, minor in [(case // 100, case % 100)]
    )
    source = (
        "import pytest\n\nfrom calc.core import add\n\n\n"
        f"CASES = [{cases}]\n\n\n"
        '@pytest.mark.parametrize(("version", "spec", "expected"), CASES)\n'
        f"def test_matches_{index}(version, spec, expected):\n"
        "    assert add(len(version), 0) == len(version)\n"
        "    assert isinstance(expected, bool) and spec.startswith('==')\n"
    )
    return f"tests/fix/test_params{index:02d}.py", source


def nodeid_config(ids: dict[str, list[str]]) -> str:
    """planegate.yml naming every nodeid (a map written by `planegate init` looks like it)."""
    lines = ["version: 1", 'owner: "@bench/map"', "planes:"]
    for plane in ("property", "fixture"):
        lines.append(f"  {plane}:")
        if plane == "property":
            lines.append("    max_examples: 5")
        else:
            lines.append('    data: ["tests/fix/data/"]')
        lines.append("    nodeids:")
        lines += [f'      - "{nodeid}"' for nodeid in ids[plane]]
    lines += ["pytest:", '  plugins: ["hypothesis"]']
    return "\n".join(lines) + "\n"


def project_files(variant: str = "paths") -> dict[str, str]:
    files = {
        "planegate.yml": CONFIG,
        "pytest.ini": "[pytest]\ntestpaths = tests\n",
        "calc/__init__.py": "",
        "calc/core.py": "def add(a, b):\n    return a + b\n",
        "tests/fix/data/readme.txt": "bench data\n",
    }
    ids: dict[str, list[str]] = {"property": [], "fixture": []}
    if variant in SUBTEST_VARIANTS:
        for index in range(SUBTEST_FILES):
            path, source = subtest_file(index, variant)
            files[path] = source
    if variant == SMALL[0]:
        files["tests/fix/test_small.py"] = small_file()
    if variant == PARAMS[0]:
        files.update(params_file(index) for index in range(PARAMS[1]))
    apart = (*SUBTEST_VARIANTS, SMALL[0], PARAMS[0])  # no generated test_mNNN files
    generated = 0 if variant in apart else SIZES.get(variant, TESTS)
    for index in range(generated // PER_FILE):
        path, source, nodeids = test_file(index)
        files[path] = source
        ids["property" if index < PROPERTY_FILES else "fixture"] += nodeids
    if variant == "nodeids":
        files["planegate.yml"] = nodeid_config(ids)
    if variant == "locked":
        for index in range(LOCKED):
            files[f"tests/fix/data/case_{index:03d}.txt"] = f"case {index}\n" * 20
    hashes = {p: bytes_sha256(t.encode()) for p, t in files.items() if "/data/" in p}
    files["tests/fixtures.lock.json"] = fixtures.render(fixtures.lock(None, hashes, "2026-01-01"))
    return files


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


def make_repo(root: Path, variant: str) -> Path:
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    for key, value in (("user.name", "bench"), ("user.email", "bench@planegate.invalid")):
        git(root, "config", key, value)
    for path, text in project_files(variant).items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, "utf-8")
    git(root, "add", "--all")
    git(root, "commit", "-q", "-m", "main")
    digest = root.parent / "digest.json"
    run([sys.executable, "-m", "planegate", "digest", "--out", str(digest), "-q"], root)
    git(root, "checkout", "-q", "-b", "patch")
    (root / "calc/core.py").write_text("def add(a, b):\n    return b + a\n", "utf-8")
    git(root, "commit", "-q", "-am", "patch")
    return digest


def fresh_checkout_env() -> dict[str, str]:
    """Both commands as on a fresh CI checkout: installed packages have their bytecode (pip
    writes it; planegate's is compiled once below), the checkout's test files do not. Plain
    pytest rewrites the asserts of every module of a distribution with a `pytest11` entry
    point (Hypothesis: about 90 modules) and caches the result beside the module unless
    `PYTHONDONTWRITEBYTECODE` is set: one plain run without it, in a scratch folder, caches
    them, so the plain baseline never pays that rewriting (as on a developer's machine)."""
    compile_planegate()
    warm_rewrite_caches()
    return {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}


def compile_planegate() -> None:
    """planegate's own bytecode written, as pip's install writes it: with
    `PYTHONDONTWRITEBYTECODE` set, a module changed since its bytecode was last written is
    compiled again by every gate and every test child that imports it."""
    import planegate

    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(Path(planegate.__file__).parent)],
        check=True,
    )


def warm_rewrite_caches() -> None:
    """One plain pytest run that writes the assertion-rewrite caches of installed plugins."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    with tempfile.TemporaryDirectory(prefix="planegate-bench-warm-") as scratch:
        (Path(scratch) / "test_warm.py").write_text("def test_warm():\n    assert True\n")
        subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", scratch],
            cwd=scratch,
            env=env,
            capture_output=True,
            check=True,
        )


ENV: dict[str, str] = {}


def run(argv: list[str], cwd: Path, expect: int = 0) -> float:
    return timed(argv, cwd, expect)[0]


def timed(argv: list[str], cwd: Path, expect: int = 0) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the command and every process it waited for): on a
    shared machine the CPU time moves much less with the load than the wall time."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, env=ENV or None)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != expect:
        raise SystemExit(f"{' '.join(argv)} exited {done.returncode}:\n{done.stdout}{done.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return elapsed, cpu


def timed_gate(argv: list[str], cwd: Path) -> tuple[float, float]:
    """`timed` for a gate, its JSON report written aside: the gate stops each test child at
    its closing record, and the sandbox reaps it, so the kernel's count of the gate's
    children leaves the tests' CPU out; the report carries what each child reported."""
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        elapsed, cpu = timed([*argv, "--format", "json", "--output", out.name], cwd)
        report = json.loads(Path(out.name).read_text("utf-8") or "{}")
    return elapsed, cpu + float(report.get("timings", {}).get(CHILDREN_CPU, 0.0))


def timings(root: Path, gate_cmd: list[str]) -> dict[str, float]:
    """The gate's own per-step seconds (its JSON report's `timings`)."""
    done = subprocess.run(
        [*gate_cmd, "--format", "json"], cwd=root, capture_output=True, text=True, env=ENV or None
    )
    if not done.stdout.strip():
        tail = done.stderr[-2000:]
        raise SystemExit(f"the gate exited {done.returncode} without a report: {tail}")
    report = json.loads(done.stdout)
    return {str(k): float(v) for k, v in report.get("timings", {}).items()}


def measure(variant: str, runs: int) -> tuple[str, float, str, bool]:
    with tempfile.TemporaryDirectory(prefix="planegate-bench-") as scratch:
        root = Path(scratch) / "repo"
        digest = make_repo(root, variant)
        plain_cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
        gate_cmd = [sys.executable, "-m", "planegate", "gate", "--base", "main", "-q"]
        if variant != "nodigest":
            gate_cmd += ["--digest", str(digest)]
        plain, gated = [], []
        for _ in range(runs):
            shutil.rmtree(root / ".hypothesis", ignore_errors=True)  # a fresh checkout's state
            plain.append(timed(plain_cmd, root))
            gated.append(timed_gate(gate_cmd, root))
        steps = timings(root, gate_cmd)
    best_plain, best_gate = min(w for w, _ in plain), min(w for w, _ in gated)
    cpu_plain, cpu_gate = min(c for _, c in plain), min(c for _, c in gated)
    median_plain = statistics.median(w for w, _ in plain)
    median_gate = statistics.median(w for w, _ in gated)
    print(f"variant {variant}: {shape(variant)}, runs {runs}")
    for name, best, median, cpu in (
        ("plain pytest", best_plain, median_plain, cpu_plain),
        ("planegate gate", best_gate, median_gate, cpu_gate),
    ):
        print(f"  {name}: best {best:.2f}s, median {median:.2f}s, cpu {cpu:.2f}s")
    print(f"  ratio (cpu): {cpu_gate / cpu_plain:.3f}x")
    print("  gate steps: " + ", ".join(f"{name} {sec:.2f}s" for name, sec in steps.items()))
    found = judged(variant, best_plain, best_gate)
    print(f"  {found[0]}: {found[1]:.2f}  (goal {found[2]})" + ("" if found[3] else "  OVER"))
    return found


def judged(variant: str, plain: float, gate: float) -> tuple[str, float, str, bool]:
    """(what is measured, its value, the goal, whether it is met) for one variant's best times:
    without a digest the base's run is inherent (against plain pytest run twice); on the
    1-second suite the gate's fixed cost in seconds; elsewhere the ratio to plain pytest."""
    if variant == "nodigest":
        ratio = gate / (2 * plain)
        return "ratio to plain pytest twice", ratio, f"<= {GOAL_RATIO:.2f}x", ratio <= GOAL_RATIO
    if variant == SMALL[0]:
        fixed = gate - plain
        return "fixed cost (s)", fixed, f"<= {GOAL_FIXED:.0f} s", fixed <= GOAL_FIXED
    ratio = gate / plain
    return "ratio (best wall)", ratio, f"<= {GOAL_RATIO:.2f}x", ratio <= GOAL_RATIO


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--variant", choices=(*VARIANTS, "all"), default="all")
    args = parser.parse_args()
    ENV.update(fresh_checkout_env())
    results = {}
    for variant in VARIANTS if args.variant == "all" else (args.variant,):
        results[variant] = measure(variant, args.runs)
    print("summary (best wall times, alternating runs):")
    for variant, (what, value, goal, met) in results.items():
        print(f"  {variant:12} {what} {value:.2f}  goal {goal}  {'met' if met else 'OVER'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
