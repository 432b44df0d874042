"""Run every benchmark in bench/ (each prints ratios against a baseline it measures itself)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def main() -> int:
    status = 0
    for script in sorted(Path(__file__).parent.glob("bench_*.py")):
        print(f"== {script.name}", flush=True)
        status |= subprocess.run([sys.executable, str(script)], check=False).returncode
    return status


if __name__ == "__main__":
    raise SystemExit(main())
