"""Instructions, not seconds: the gate's cost over plain pytest counted by valgrind's callgrind.

On a shared machine wall time and even CPU time move by a third from one run to the next;
the count of machine instructions a run executes moves by well under one percent. This bench
generates a repository of one of `bench_gate.py`'s shapes (main's digest written, an honest
patch committed), then runs under `valgrind --tool=callgrind --trace-children=yes`:
  plain: python -m pytest -q -p no:cacheprovider
  gate:  python -m planegate gate --no-sandbox --base main -q --digest D
and prints the instructions of each Python process (the gate's own process, its test child)
and the ratio of the gate's total to plain pytest's. git's processes are not counted (they
are skipped), nor is the sandbox (`--no-sandbox`: bubblewrap only sets up namespaces).
Both run with `PYTHONDONTWRITEBYTECODE=1` after planegate's own modules are compiled, as on a
fresh CI checkout. Each run takes about 30 times its plain duration.

    python bench/bench_instructions.py [--variant nodeids|subtests|unittest|small|...]

Needs valgrind (`apt-get install valgrind`); `make test` does not.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_gate  # the shapes and the repository builder


def counted(argv: list[str], cwd: Path, out: Path, env: dict[str, str]) -> dict[str, int]:
    """Instructions per traced process: {its command line (cut): instructions}."""
    out.mkdir()
    command = [
        "valgrind",
        "--tool=callgrind",
        "--trace-children=yes",
        "--trace-children-skip=*git*",
        f"--callgrind-out-file={out}/out.%p",
        *argv,
    ]
    subprocess.run(command, cwd=cwd, env=env, capture_output=True, check=False)
    found: dict[str, int] = {}
    for path in sorted(out.iterdir()):
        text = path.read_text("utf-8", "replace")
        cmd = re.search(r"^cmd:\s*(.*)$", text, re.M)
        total = re.search(r"^summary:\s*(\d+)$", text, re.M)
        if cmd and total:
            found[f"{cmd.group(1)[:60]} [{path.suffix[1:]}]"] = int(total.group(1))
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", choices=bench_gate.VARIANTS, default="nodeids")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        print("valgrind is not installed (apt-get install valgrind): no instruction counts")
        return 0
    env = bench_gate.fresh_checkout_env()
    bench_gate.ENV.update(env)
    with tempfile.TemporaryDirectory(prefix="planegate-instr-") as scratch:
        root = Path(scratch) / "repo"
        digest = bench_gate.make_repo(root, args.variant)
        shutil.rmtree(root / ".hypothesis", ignore_errors=True)
        plain = counted(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
            root,
            Path(scratch) / "plain",
            env,
        )
        shutil.rmtree(root / ".hypothesis", ignore_errors=True)
        gate_cmd = [sys.executable, "-m", "planegate", "gate", "--no-sandbox", "--base", "main"]
        gate = counted([*gate_cmd, "-q", "--digest", str(digest)], root, Path(scratch) / "g", env)
    print(f"variant {args.variant}: {bench_gate.shape(args.variant)}")
    for name, found in (("plain pytest", plain), ("planegate gate", gate)):
        for command, total in found.items():
            print(f"  {name}: {total / 1e9:.3f} G instructions  {command}")
    ratio = sum(gate.values()) / max(1, sum(plain.values()))
    print(f"  ratio (instructions): {ratio:.3f}x  (goal <= {bench_gate.GOAL_RATIO:.2f}x)")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    raise SystemExit(main())
