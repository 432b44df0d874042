"""Gate overhead: wall time of `planegate gate` over a plain `python -m pytest` of the same tests.

Generates a repository of 2,000 tests (fixture and property planes), commits main, writes
main's digest (as the push to main does), then times on a patch branch, alternating:
  plain: python -m pytest -q -p no:cacheprovider       (in a checkout of the patch)
  gate:  python -m planegate gate --base main --digest  (worktree, overlay, channel, canaries)
and prints the best-of-N times and their ratio. Usage: python bench/bench_gate.py [--runs N]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from planegate.config import manifest as fixtures
from planegate.repo.hashing import bytes_sha256

TESTS = 2000
PER_FILE = 50
PROPERTY_FILES = 4  # 200 Hypothesis tests at a small budget, the rest example-based

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


def project_files() -> dict[str, str]:
    files = {
        "planegate.yml": CONFIG,
        "pytest.ini": "[pytest]\ntestpaths = tests\n",
        "calc/__init__.py": "",
        "calc/core.py": "def add(a, b):\n    return a + b\n",
        "tests/fix/data/readme.txt": "bench data\n",
    }
    for index in range(TESTS // PER_FILE):
        prop = index < PROPERTY_FILES
        folder = "prop" if prop else "fix"
        lines = ["from calc.core import add\n"]
        if prop:
            lines.append("from hypothesis import given, settings, strategies as st\n")
        for case in range(PER_FILE):
            if prop:
                lines.append(
                    f"\n\n@settings(max_examples=5)\n@given(st.integers())\n"
                    f"def test_p{case}(x):\n    assert add(x, {case}) == add({case}, x)\n"
                )
            else:
                lines.append(f"\n\ndef test_e{case}():\n    assert add({case}, 1) == {case + 1}\n")
        files[f"tests/{folder}/test_m{index:03d}.py"] = "".join(lines)
    hashes = {p: bytes_sha256(t.encode()) for p, t in files.items() if "/data/" in p}
    files["tests/fixtures.lock.json"] = fixtures.render(fixtures.lock(None, hashes, "2026-01-01"))
    return files


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


def make_repo(root: Path) -> Path:
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    for key, value in (("user.name", "bench"), ("user.email", "bench@planegate.invalid")):
        git(root, "config", key, value)
    for path, text in project_files().items():
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


def run(argv: list[str], cwd: Path, expect: int = 0) -> float:
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode != expect:
        raise SystemExit(f"{' '.join(argv)} exited {done.returncode}:\n{done.stdout}{done.stderr}")
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="planegate-bench-") as scratch:
        root = Path(scratch) / "repo"
        digest = make_repo(root)
        plain_cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
        gate_cmd = [sys.executable, "-m", "planegate", "gate", "--base", "main", "-q"]
        gate_cmd += ["--digest", str(digest)]
        plain, gated = [], []
        for _ in range(args.runs):
            plain.append(run(plain_cmd, root))
            gated.append(run(gate_cmd, root))
    best_plain, best_gate = min(plain), min(gated)
    print(f"tests: {TESTS} ({PROPERTY_FILES * PER_FILE} property), runs: {args.runs}")
    print(f"plain pytest: best {best_plain:.2f}s, median {statistics.median(plain):.2f}s")
    print(f"planegate gate: best {best_gate:.2f}s, median {statistics.median(gated):.2f}s")
    print(f"ratio (best): {best_gate / best_plain:.3f}x  (goal <= 1.15x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
