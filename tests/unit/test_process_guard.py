"""The unit tier's guard: every way of starting a process fails the test that tries."""

from __future__ import annotations

import _posixsubprocess
import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from helpers.process_guard import MESSAGE, OS_STARTS, ProcessGuard
from planegate.repo.git import GitRepo

ORIGINAL = {name: getattr(os, name) for name in OS_STARTS if hasattr(os, name)}
MISSING = "/nonexistent/planegate-guard-probe"  # were a start let through, it would fail here

STARTS: dict[str, Callable[[], object]] = {
    "subprocess.Popen": lambda: subprocess.run([MISSING], check=False),
    "fork_exec": lambda: _posixsubprocess.fork_exec(),  # type: ignore[call-arg]
    "os.fork": lambda: os.fork(),
    "os.system": lambda: os.system(MISSING),
    "os.posix_spawn": lambda: os.posix_spawn(MISSING, [MISSING], {}),
    "os.posix_spawnp": lambda: os.posix_spawnp(MISSING, [MISSING], {}),
    "os.execv": lambda: os.execv(MISSING, [MISSING]),
    "os.spawnv": lambda: os.spawnv(os.P_WAIT, MISSING, [MISSING]),
}


def test_every_os_start_is_replaced_for_the_test() -> None:
    assert all(getattr(os, name) is not original for name, original in ORIGINAL.items())


@pytest.mark.parametrize("name", sorted(STARTS))
def test_a_process_start_is_refused_and_fails_the_test(
    name: str, process_guard: ProcessGuard
) -> None:
    with pytest.raises(pytest.fail.Exception, match=MESSAGE) as refused:
        STARTS[name]()
    assert f"{name}(" in str(refused.value)
    assert process_guard.refused == [name]
    process_guard.refused.clear()  # refused as it should be: this test passes


def test_git_through_the_repository_adapter_is_refused(process_guard: ProcessGuard) -> None:
    with pytest.raises(pytest.fail.Exception, match=r"subprocess\.Popen\(\['git'"):
        GitRepo(Path(__file__).resolve().parents[2]).resolve("HEAD")
    assert process_guard.refused
    process_guard.refused.clear()
