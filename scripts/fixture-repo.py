"""Make a fixture repository for the action's smoke tests: the demo shop on `main`, one patch.

usage: python scripts/fixture-repo.py DIR PATCH

DIR becomes a git repository whose `main` branch is the demo shop (fixtures locked, one test
frozen) and whose checked-out branch `patch` holds one commit: PATCH, a name from
planegate.demo.PATCHES (honest-fix passes; rewritten-golden, added-skip, ... must fail).
Prints the exit code the gate is expected to give.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from planegate import demo


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 64
    root, name = Path(argv[0]), argv[1]
    patches = {patch.name: patch for patch in demo.PATCHES}
    if name not in patches:
        print(f"fixture-repo: unknown patch {name!r}; known: {', '.join(patches)}", file=sys.stderr)
        return 64
    root.mkdir(parents=True, exist_ok=False)
    demo.build(root)

    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)

    git("branch", "-M", "main")
    git("switch", "-c", "patch")
    patches[name].edit(root)
    git("add", "-A")
    git(
        "-c",
        "user.name=fixture",
        "-c",
        "user.email=fixture@example.invalid",
        "commit",
        "-q",
        "-m",
        f"patch: {patches[name].what}",
    )
    print(patches[name].expected_exit)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
