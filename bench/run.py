"""Run every benchmark in bench/ (each prints ratios against a baseline it measures itself).

bench_bigpatch (git-only gate work, 50,000 nodeids, 5,000 changed test files), bench_gate
(gate overhead over plain pytest), bench_instructions (the same in instructions counted by
valgrind, when it is installed), bench_github (GitHub requests per gate), bench_hashing
(1 GiB against sha256sum), bench_hunks (test-hunk analysis), bench_memory (50,000 tests),
bench_sandbox (what bubblewrap adds to a child's start), bench_startup (`planegate --version`);
docs/performance.md gives each one's figures.

The real-project bench (bench/real_projects.py) runs last; it needs its sdist cache, filled
once with `python bench/real_projects.py --fetch`, and says so when the cache is missing.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def main() -> int:
    status = 0
    here = Path(__file__).parent
    for script in [*sorted(here.glob("bench_*.py")), here / "real_projects.py"]:
        print(f"== {script.name}", flush=True)
        status |= subprocess.run([sys.executable, str(script)], check=False).returncode
    return status


if __name__ == "__main__":
    raise SystemExit(main())
