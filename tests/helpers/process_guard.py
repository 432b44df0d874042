"""The unit tier's guard: every way Python starts a process, refused for one test's duration."""

from __future__ import annotations

import _posixsubprocess
import os
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NoReturn

import pytest

# Every os function that forks, execs or spawns (those this platform has).
OS_STARTS = (
    *("fork", "forkpty", "posix_spawn", "posix_spawnp", "system"),
    *("execl", "execle", "execlp", "execlpe", "execv", "execve", "execvp", "execvpe"),
    *("spawnl", "spawnle", "spawnlp", "spawnlpe", "spawnv", "spawnve", "spawnvp", "spawnvpe"),
)
MESSAGE = "a unit test starts no process"


@dataclass
class ProcessGuard:
    """The process starts refused during one test, by name."""

    refused: list[str] = field(default_factory=list)

    def refusal(self, name: str) -> Callable[..., NoReturn]:
        def refuse(*args: object, **_options: object) -> NoReturn:
            self.refused.append(name)
            given = [arg for arg in args if not isinstance(arg, subprocess.Popen)]  # not `self`
            shown = ", ".join(repr(arg)[:120] for arg in given)
            pytest.fail(f"{MESSAGE}: {name}({shown}) was called; {where()}")

        return refuse


def where() -> str:
    return "a test that needs git or a child process goes in tests/integration/ or tests/e2e/"


def refuse_process_starts(monkeypatch: pytest.MonkeyPatch, guard: ProcessGuard) -> None:
    """Replace, until `monkeypatch` undoes it, everything that starts a process."""
    monkeypatch.setattr(subprocess.Popen, "__init__", guard.refusal("subprocess.Popen"))
    # multiprocessing's spawn and forkserver start children through this, not through Popen
    monkeypatch.setattr(_posixsubprocess, "fork_exec", guard.refusal("fork_exec"))
    for name in OS_STARTS:
        if hasattr(os, name):
            monkeypatch.setattr(os, name, guard.refusal(f"os.{name}"))
