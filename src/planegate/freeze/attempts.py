"""A pytest session seen as the sweep's attempts, and what the sweep and thaw shells share:
the commit's configuration and pytest setup, and CPU load for the timing probe."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

from planegate.config.from_git import load_config
from planegate.config.load import Config
from planegate.freeze import sweep as core
from planegate.repo.git import GitRepo
from planegate.repo.snapshot import snapshot
from planegate.runner import pytest_ini, session


def setup(
    repo: GitRepo, commit: str, config_path: str | None
) -> tuple[Config, dict[str, Any], set[str]]:
    snap = snapshot(repo, commit)
    cfg = load_config(repo, commit, config_path, set(snap.files))
    return cfg, pytest_ini.base_options(snap.read), set(snap.files)


def problem(result: session.RunResult) -> str | None:
    if not result.closed:
        why = "timed out" if result.timed_out else f"exited {result.exit_status}"
        return f"the run ended without its closing record ({why})"
    if result.canary_problem:
        return f"result channel compromised: {result.canary_problem}"
    if result.collect_errors:
        nodeid, _ = result.collect_errors[0]
        return f"collection failed ({nodeid or 'session'})"
    return None


def attempts(result: session.RunResult) -> dict[str, core.Attempt]:
    return {
        nodeid: core.Attempt(outcome.outcome, outcome.message)
        for nodeid, outcome in result.outcomes.items()
    }


def one(result: session.RunResult, nodeid: str) -> core.Attempt:
    outcome = result.outcome_of(nodeid)
    return core.Attempt(outcome.outcome, outcome.message)


@contextlib.contextmanager
def cpu_load(workers: int | None = None) -> Iterator[int]:
    """Busy processes in the parent while a test runs (the timing probe); always stopped."""
    count = workers or os.cpu_count() or 2
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", "while True: pass"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for _ in range(count)
    ]
    try:
        yield count
    finally:
        for proc in procs:
            proc.kill()
        for proc in procs:
            proc.wait()
