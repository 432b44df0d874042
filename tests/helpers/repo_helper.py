"""Real temporary git repositories for tests: write files, commit, branch; and the CLI, run
in this process or through the interpreter."""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import planegate
from planegate.cli import main


class TestRepo:
    """A git repository in a temporary folder, driven with the real git command."""

    __test__ = False  # not a test class

    def __init__(self, root: Path, *, init: bool = True) -> None:
        self.root = root
        if not init:
            return
        root.mkdir(parents=True, exist_ok=True)
        self.git("init", "-q", "-b", "main")
        self.git("config", "user.name", "planegate tests")
        self.git("config", "user.email", "tests@planegate.invalid")
        self.git("config", "commit.gpgsign", "false")

    def copy(self, root: Path) -> TestRepo:
        """This repository, history and working tree, copied to `root` (no git process)."""
        shutil.copytree(self.root, root, symlinks=True)
        return TestRepo(root, init=False)

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


@dataclass(frozen=True)
class CliRun:
    """What `planegate ARGS` returned and printed."""

    returncode: int
    stdout: str
    stderr: str


@contextlib.contextmanager
def _working_directory(path: Path | None) -> Iterator[None]:
    before = Path.cwd()
    if path is not None:
        os.chdir(path)
    try:
        yield
    finally:
        os.chdir(before)


def run_cli(*args: str, cwd: Path | None = None) -> CliRun:
    """`planegate ARGS` in this process: `planegate.cli.main` with its own stdout, stderr and
    working directory (the gate's children are processes of their own all the same)."""
    out, err = io.StringIO(), io.StringIO()
    with _working_directory(cwd), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(args))
        except SystemExit as done:  # argparse's --version and --help
            code = done.code if isinstance(done.code, int) else int(done.code is not None)
    return CliRun(code, out.getvalue(), err.getvalue())


def run_cli_process(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """The real `python -m planegate` in a child process, importing the same planegate as
    these tests (the tree under test, not whatever else is installed): for what only the
    process boundary shows (exit codes through the interpreter, its streams)."""
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
