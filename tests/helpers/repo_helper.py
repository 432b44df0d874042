"""Real temporary git repositories for tests: write files, commit, branch."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path


class TestRepo:
    """A git repository in a temporary folder, driven with the real git command."""

    __test__ = False  # not a test class

    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        self.git("init", "-q", "-b", "main")
        self.git("config", "user.name", "planegate tests")
        self.git("config", "user.email", "tests@planegate.invalid")
        self.git("config", "commit.gpgsign", "false")

    def git(self, *args: str) -> str:
        done = subprocess.run(
            ["git", *args], cwd=self.root, check=True, capture_output=True, text=True
        )
        return done.stdout.strip()

    def write(self, files: Mapping[str, str | bytes]) -> None:
        for path, content in files.items():
            target = self.root / path
            target.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                target.write_bytes(content)
            else:
                target.write_text(content, "utf-8")

    def delete(self, *paths: str) -> None:
        for path in paths:
            (self.root / path).unlink()

    def commit(
        self, message: str = "change", files: Mapping[str, str | bytes] | None = None
    ) -> str:
        if files:
            self.write(files)
        self.git("add", "--all")
        self.git("commit", "-q", "--allow-empty", "-m", message)
        return self.git("rev-parse", "HEAD")

    def branch(self, name: str, start: str = "main") -> None:
        self.git("checkout", "-q", "-b", name, start)

    def checkout(self, name: str) -> None:
        self.git("checkout", "-q", name)


def run_cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """The real `python -m planegate` in a child process, importing the same planegate as
    these tests (the tree under test, not whatever else is installed)."""
    import os

    import planegate

    source = str(Path(planegate.__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([source, os.environ.get("PYTHONPATH", "")])}
    return subprocess.run(
        [sys.executable, "-m", "planegate", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
