"""Peak memory of the gate's own process on a suite of 50,000 tests (goal: under 300 MB).

The pytest child runs in its own process; the gate's process holds the inventory, the
result stream and the report. The baseline is the same process before the gate runs.
"""

from __future__ import annotations

import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TESTS = 50_000
FILES = 10


def build(root: Path) -> None:
    per_file = TESTS // FILES
    (root / "tests/fix").mkdir(parents=True)
    (root / "planegate.yml").write_text(
        "version: 1\nplanes:\n  property: {}\n  fixture:\n    paths: ['tests/fix/']\n"
        "    owner: '@bench'\n  freeze: {max_fraction: 0.5}\n"
    )
    (root / "pytest.ini").write_text("[pytest]\ntestpaths = tests\n")
    for index in range(FILES):
        (root / f"tests/fix/test_many_{index}.py").write_text(
            "import pytest\n\n\n"
            f"@pytest.mark.parametrize('n', range({per_file}))\n"
            "def test_n(n):\n    assert n >= 0\n"
        )
    for args in (
        ["init", "-q", "-b", "main"],
        ["add", "-A"],
        ["-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "suite"],
        ["checkout", "-qb", "patch"],
        ["-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "p", "--allow-empty"],
    ):
        subprocess.run(["git", *args], cwd=root, check=True)


def main() -> None:
    from planegate.gate import pipeline as gate
    from planegate.gate.context import GateOptions
    from planegate.gate.digest_check import build_digest
    from planegate.repo.digest_format import to_json
    from planegate.repo.git import GitRepo

    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        build(root)
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        started = time.perf_counter()
        digest = build_digest(GitRepo(root), "main", None)
        (root.parent / "bench-digest.json").write_text(to_json(digest))
        report = gate.run(
            GateOptions(
                root=root, base="main", head="patch", digest_file=root.parent / "bench-digest.json"
            )
        )
        elapsed = time.perf_counter() - started
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    passed = report.steps[-1].notes[0]
    print(f"{TESTS} tests: exit {report.exit_code}, {passed}, {elapsed:.1f} s (digest + gate)")
    print(
        f"gate process peak RSS {peak / 1024:.0f} MiB (baseline {before / 1024:.0f} MiB, "
        f"ratio {peak / before:.2f}x); goal < 300 MiB"
    )
    sys.exit(0 if peak < 300 * 1024 else 1)


if __name__ == "__main__":
    main()
